// From a planned action to its queued job: the `actions` row (queued) and the job the worker runs,
// enqueued with job id `action-<id>` and never retried (a logoff or an update must not run twice unasked).
// Used by the API routes and the worker's automatic update fallback.
import type { JobsOptions } from 'bullmq';
import type { Pool } from '@watchpost/runtime';
import type { ActionActorRole, ActionJobOf, ActionKind, ActionPayloads } from '@watchpost/schemas';
import { createAction, type ActionRecord } from './records.ts';

/** One action of a kind with its payload (a host action's payload carries its `target`). */
export type PlannedAction<K extends ActionKind = ActionKind> = { [P in K]: { kind: P; payload: ActionPayloads[P] } }[K];

export const actionJobId = (actionId: number) => `action-${actionId}`;

export function actionJobOptions(actionId: number): JobsOptions {
  return {
    jobId: actionJobId(actionId),
    attempts: 1,
    removeOnComplete: { age: 86_400, count: 1000 },
    removeOnFail: { age: 86_400, count: 1000 },
  };
}

export function actionJob<K extends ActionKind>(
  kind: K,
  payload: ActionPayloads[K],
  actionId: number,
  deadline: Date,
  actorRole: ActionActorRole,
): ActionJobOf<K> {
  const job = { ...payload, kind, action_id: actionId, deadline: deadline.toISOString(), actor_role: actorRole };
  return job;
}

/**
 * Records a planned action as queued (its params: the payload, with the target's address instead of the
 * target) and returns it with its job, which the worker refuses to start after `deadline`.
 */
export async function recordAction<K extends ActionKind>(
  pg: Pool,
  plan: { kind: K; payload: ActionPayloads[K] },
  who: { actor: string; role: ActionActorRole; address: string | null },
  deadline: Date,
): Promise<{ action: ActionRecord; job: ActionJobOf<K> }> {
  const { target, ...rest } = plan.payload as { target?: { host_id: number; hostname: string; address: string } };
  const { action_id: _, ...job } = actionJob(plan.kind, plan.payload, 0, deadline, who.role);
  const action = await createAction(pg, {
    job,
    kind: plan.kind,
    hostId: target?.host_id ?? null,
    hostname: target?.hostname ?? null,
    actor: who.actor,
    address: who.address,
    params: target ? { ...rest, address: target.address } : rest,
  });
  return { action, job: actionJob(plan.kind, plan.payload, action.id, deadline, who.role) };
}
