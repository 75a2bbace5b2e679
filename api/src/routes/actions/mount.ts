// The routes that start remote actions, mounted from the kinds' descriptors (core/src/actions/kinds/),
// and what every one of them does with the planned action: record it, enqueue its job on the actions
// queue (job id `action-<id>`) and either answer 202 at once or wait for the actions worker, bounded by
// SERVICE_ACTION_WAIT_MS. The `actions` row stays the answer: 200 when it succeeded, 400 ACTION_FAILED
// with its reason, 504 ACTION_TIMEOUT when it is not finished in time (spec: Errors). A session action
// (a kind whose descriptor lists the `agent` transport) is refused early when core's
// chooseSessionTransport finds neither WinRM nor a bound agent; one the worker handed to the host's agent
// (transport `agent`, issue 22) answers 202 at once: the agent polls every 60 s, so the caller follows
// GET /actions/{id}.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ACTION_KINDS } from '@watchpost/schemas';
import { ACTION_HOST_COLUMNS, findHost } from '@watchpost/core/hosts';
import {
  ACTION_KIND_DESCRIPTORS,
  ActionRefused,
  actionJobOptions,
  chooseSessionTransport,
  finishAction,
  getAction,
  loadTargetNetworks,
  NO_TARGET_NETWORKS,
  recordAction,
  runsThroughAgent,
  type ActionRecord,
  type ActionResource,
  type ActionRouteContext,
  type PlannedAction,
} from '@watchpost/core/actions';
import { ApiError, notFound } from '../../errors.ts';
import { getEvent } from '../../queries/events.ts';
import { loadTypeSettings } from '../../queries/type-settings.ts';
import type { ApiDeps } from '../../types.ts';
import { actionResponses, eventParams, hostParams, waitQuery } from './schemas.ts';

/** A queued (not synchronous) action still not started after this long is failed as expired by the worker. */
export const QUEUED_ACTION_TTL_MS = 3_600_000;

const RESOURCES: Record<ActionResource, { prefix: string; params?: object }> = {
  host: { prefix: '/hosts/:id/actions/', params: hostParams },
  event: { prefix: '/events/:event_id/actions/', params: eventParams },
  'agent-updates': { prefix: '/settings/agent-updates/' },
};

type Params = { id?: number; event_id?: string } & Record<string, unknown>;

/** Mounts the POST route of every descriptor route that hangs under `on`, in the order of the kinds. */
export function mountActionRoutes(app: FastifyInstance, on: ActionResource): void {
  const { pg, clickhouse, config } = app.deps;
  for (const kind of ACTION_KINDS) {
    for (const r of ACTION_KIND_DESCRIPTORS[kind].routes) {
      if (r.on !== on) continue;
      const params = r.params ?? RESOURCES[on].params;
      app.post<{ Params: Params; Querystring: { wait?: boolean }; Body: unknown }>(
        RESOURCES[on].prefix + r.path,
        {
          config: { access: r.access },
          schema: {
            tags: [...r.tags],
            summary: r.summary,
            ...(r.description === undefined ? {} : { description: r.description }),
            ...(params ? { params } : {}),
            ...(r.wait === 'always' ? {} : { querystring: waitQuery(r.wait) }),
            ...(r.body ? { body: r.body } : {}),
            response: actionResponses,
          },
        },
        async (req, reply) => {
          const ctx: ActionRouteContext<unknown, unknown> = {
            pg,
            config: config.actions,
            user: req.user!,
            params: req.params,
            body: req.body,
            async host() {
              const h = await findHost(pg, { id: Number(req.params.id) }, ACTION_HOST_COLUMNS);
              if (!h) throw notFound('host');
              return h;
            },
            async event() {
              const e = await getEvent(clickhouse, pg, await loadTypeSettings(pg), String(req.params.event_id));
              if (!e) throw notFound('event');
              return e;
            },
          };
          const plan = await r.plan(ctx).catch((err: unknown) => {
            throw err instanceof ActionRefused ? new ApiError(400, err.code, err.message) : err;
          });
          // A session action (a kind the host's agent can run too) with neither WinRM nor a bound agent to
          // run it is refused here, before anything is queued: the transport as core chooses it (the worker
          // chooses again when it runs it, resolving the address and probing the WinRM port).
          const hostname = 'target' in plan.payload ? plan.payload.target.hostname : null;
          if (hostname !== null && runsThroughAgent(plan.kind)) {
            const t = await chooseSessionTransport(pg, config.actions, hostname);
            if (t.via === 'none') throw new ApiError(400, 'ACTION_NOT_POSSIBLE', t.refusal);
          } else if (hostname !== null && (await loadTargetNetworks(pg, config.actions)).length === 0)
            // Another host action with no target networks set could connect nowhere: say so before queueing
            // it. (The worker checks the resolved address against the networks before it connects.)
            throw new ApiError(400, 'ACTION_NOT_POSSIBLE', NO_TARGET_NETWORKS);
          return runAction(app.deps, req, reply, plan, r.wait === 'always' || req.query.wait === true);
        },
      );
    }
  }
}

/** Records, enqueues and (when `wait`) waits. The reply follows the outcome. */
async function runAction(
  deps: ApiDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  plan: PlannedAction,
  wait: boolean,
): Promise<ActionRecord> {
  const { pg, config, actions } = deps;
  const deadline = new Date(Date.now() + (wait ? config.actions.waitMs : QUEUED_ACTION_TTL_MS));
  const { action, job } = await recordAction(
    pg,
    plan,
    { actor: req.user!.username, role: req.user!.role, address: req.ip },
    deadline,
  );
  const opts = actionJobOptions(action.id);
  const queued = async <T>(add: () => Promise<T>): Promise<T> => {
    try {
      return await add();
    } catch (err) {
      await finishAction(pg, action.id, { ok: false, error: 'could not be queued (Redis unavailable)' });
      throw err;
    }
  };
  if (!wait) {
    await queued(() => actions.queue.add(job.kind, job, opts));
    reply.code(202);
    return action;
  }
  // The worker completes the job whatever the action's outcome; the row says which.
  await queued(() => actions.replies.request(job.kind, job, { waitMs: deadline.getTime() - Date.now(), job: opts }));
  const done = await getAction(pg, action.id);
  if (!done) throw notFound('action');
  if (done.transport === 'agent' && (done.status === 'queued' || done.status === 'running')) {
    reply.code(202);
    return done;
  }
  if (done.status === 'failed')
    throw new ApiError(400, 'ACTION_FAILED', done.error ?? 'the action failed', { action_id: done.id });
  if (done.status !== 'succeeded')
    throw new ApiError(504, 'ACTION_TIMEOUT', `the action did not finish within ${config.actions.waitMs} ms`, {
      action_id: done.id,
    });
  return done;
}
