// The `actions` worker role: takes jobs from the BullMQ `actions` queue and runs them over SSH or WinRM
// (all outbound connections to managed hosts and git servers leave from this role, never from api or
// ingest). Each action job belongs to one `actions` row: queued -> running -> succeeded | failed, with
// result or reason and duration, and one audit entry (core's finishAction). Jobs are not retried (a
// logoff or an update must not run twice unasked); a job whose deadline passed before it started is
// failed as expired. Three maintenance jobs run as BullMQ job schedulers on the same queue (one run
// cluster-wide per interval): the latest-version refresh, the automatic update fallback and the session
// actions waiting for a host's agent (agent-transport.ts).
import type { Job } from 'bullmq';
import { createQueue, createWorker, onRedisReconnect, type RoleStarter } from '@watchpost/runtime';
import {
  ACTIONS_MAINTENANCE_JOBS,
  ACTIONS_QUEUE,
  type ActionJobOf,
  type ActionKind,
  type ActionsQueueJob,
} from '@watchpost/schemas';
import { ACTION_KIND_DESCRIPTORS, finishAction, getAction, startAction } from '@watchpost/core/actions';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { RemoteError } from './errors.ts';
import { runHandler } from './handlers/index.ts';
import type { ActionDeps } from './deps.ts';
import { refreshLatestVersions } from './git.ts';
import { runUpdateFallback } from './fallback.ts';
import { advanceAgentActions, AGENT_ACTIONS_SCAN_MS, HandedToAgent } from './agent-transport.ts';

export { RemoteError } from './errors.ts';
export { advanceAgentActions } from './agent-transport.ts';

/** How often the fallback looks for ignored updates. */
const FALLBACK_SCAN_MS = 60_000;

/** Runs one action job to its recorded outcome. Never throws for a remote failure (the row says it). */
export async function runActionJob<K extends ActionKind>(
  deps: ActionDeps,
  data: ActionJobOf<K>,
): Promise<{ status: 'succeeded' | 'failed' | 'skipped' | 'agent' }> {
  const { pg, log } = deps;
  if (Date.parse(data.deadline) < Date.now()) {
    await finishAction(pg, data.action_id, {
      ok: false,
      error: 'expired: the worker did not reach the action before its deadline',
    });
    return { status: 'failed' };
  }
  if (!(await startAction(pg, data.action_id))) {
    // The job id is unique, so meeting our own row 'running' means BullMQ handed out a stalled job again
    // (its worker died mid-run). The remote side is unknown: say so rather than run it twice.
    if ((await getAction(pg, data.action_id))?.status === 'running') {
      await finishAction(pg, data.action_id, {
        ok: false,
        error: 'interrupted: the worker stopped while running it; check the host',
      });
      return { status: 'failed' };
    }
    return { status: 'skipped' };
  }
  const timeoutMs =
    ACTION_KIND_DESCRIPTORS[data.kind].timeout === 'update' ? deps.config.actions.updateTimeoutMs : deps.config.actions.timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    // Every handler honours the signal; the race makes sure a forgotten await cannot hold a worker slot.
    const result = await Promise.race([
      runHandler(deps, data, signal),
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new RemoteError(`timed out after ${timeoutMs} ms`)), { once: true }),
      ),
    ]);
    await finishAction(pg, data.action_id, { ok: true, result });
    return { status: 'succeeded' };
  } catch (err) {
    // A session action now waiting for the host's agent: its commands' results finish it (agent-transport.ts).
    if (err instanceof HandedToAgent) return { status: 'agent' };
    const remote = err instanceof RemoteError;
    if (!remote) log.error({ err, action_id: data.action_id, kind: data.kind }, 'action failed unexpectedly');
    const error = remote
      ? err.message
      : signal.aborted
        ? `timed out after ${timeoutMs} ms`
        : 'internal error (see the actions worker log)';
    await finishAction(pg, data.action_id, { ok: false, error, result: { error_class: remote ? 'remote' : 'internal' } });
    return { status: 'failed' };
  }
}

export const actionsRole: RoleStarter = async ({ config, log, clients }) => {
  const secretsKey = await loadSecretsKey(config.actions.secretsKey, config.stateDir);
  const deps: ActionDeps = { pg: clients.pg, config, secretsKey, log };
  const queueConn = clients.bullmqConnection();
  const workerConn = clients.bullmqConnection();
  const queue = createQueue<ActionsQueueJob>(config, ACTIONS_QUEUE, queueConn);
  const every = {
    [ACTIONS_MAINTENANCE_JOBS.versionsRefresh]: config.actions.agentUpdate.refreshSeconds * 1000,
    [ACTIONS_MAINTENANCE_JOBS.updateFallback]: FALLBACK_SCAN_MS,
    [ACTIONS_MAINTENANCE_JOBS.agentActions]: AGENT_ACTIONS_SCAN_MS,
  };
  const upsert = (name: string, ms: number) =>
    queue.upsertJobScheduler(
      name,
      { every: ms },
      { name, data: { kind: name } as ActionsQueueJob, opts: { removeOnComplete: 100, removeOnFail: 100, attempts: 1 } },
    );
  for (const [name, ms] of Object.entries(every)) await upsert(name, ms);
  // A Redis back without its data has no schedulers: the missing ones are put back.
  const stopRestore = onRedisReconnect(
    queueConn,
    async () => {
      for (const [name, ms] of Object.entries(every)) if (!(await queue.getJobScheduler(name))) await upsert(name, ms);
    },
    (err) => log.warn({ err }, 'restoring job schedulers failed; tried again at the next reconnect'),
  );
  const worker = createWorker<ActionsQueueJob>(
    config,
    ACTIONS_QUEUE,
    async (job: Job<ActionsQueueJob>) => {
      const d = job.data;
      if (d.kind === ACTIONS_MAINTENANCE_JOBS.versionsRefresh) return refreshLatestVersions(deps);
      if (d.kind === ACTIONS_MAINTENANCE_JOBS.updateFallback) return runUpdateFallback(deps, queue);
      if (d.kind === ACTIONS_MAINTENANCE_JOBS.agentActions) return advanceAgentActions(deps);
      return runActionJob(deps, d);
    },
    workerConn,
    { concurrency: config.actions.concurrency },
  );
  worker.on('failed', (job, err) => log.error({ err, job: job?.id }, 'actions job failed'));
  return {
    checks: { actions_worker: async () => worker.isRunning() },
    async close() {
      stopRestore();
      await worker.close();
      await queue.close();
      await Promise.allSettled([queueConn.quit(), workerConn.quit()]);
    },
  };
};
