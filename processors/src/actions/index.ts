// The `actions` worker role: takes jobs from the BullMQ `actions` queue and runs them over SSH or WinRM
// (all outbound connections to managed hosts leave from this role, never from api or ingest). Each job
// belongs to one `actions` row: queued -> running -> succeeded | failed, with result or reason and
// duration, and one audit entry (core's finishAction). Jobs are not retried (a logoff or an update
// must not run twice unasked); a job whose deadline passed before it started is failed as expired.
import type { Job } from 'bullmq';
import { createWorker, type RoleStarter } from '@watchpost/runtime';
import { ACTIONS_QUEUE, type ActionJob } from '@watchpost/schemas';
import { finishAction, loadSecretsKey, startAction } from '@watchpost/core';
import { RemoteError } from './errors.ts';
import { runHandler, type ActionDeps } from './handlers.ts';

export { RemoteError } from './errors.ts';

/** Runs one action job to its recorded outcome. Never throws for a remote failure (the row says it). */
export async function runActionJob(deps: ActionDeps, data: ActionJob): Promise<{ status: 'succeeded' | 'failed' | 'skipped' }> {
  const { pg, log } = deps;
  if (Date.parse(data.deadline) < Date.now()) {
    await finishAction(pg, data.action_id, {
      ok: false,
      error: 'expired: the worker did not reach the action before its deadline',
    });
    return { status: 'failed' };
  }
  if (!(await startAction(pg, data.action_id))) return { status: 'skipped' };
  const timeoutMs = data.kind === 'agent.update' ? deps.config.actions.updateTimeoutMs : deps.config.actions.timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const result = await runHandler(deps, data, signal);
    await finishAction(pg, data.action_id, { ok: true, result });
    return { status: 'succeeded' };
  } catch (err) {
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
  const conn = clients.bullmqConnection();
  const worker = createWorker<ActionJob>(
    config,
    ACTIONS_QUEUE,
    async (job: Job<ActionJob>) => runActionJob(deps, job.data),
    conn,
    {
      concurrency: config.actions.concurrency,
    },
  );
  worker.on('failed', (job, err) => log.error({ err, job: job?.id }, 'action job failed'));
  return {
    checks: { actions_worker: async () => worker.isRunning() },
    async close() {
      await worker.close();
      await conn.quit().catch(() => {});
    },
  };
};
