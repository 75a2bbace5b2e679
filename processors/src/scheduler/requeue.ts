// The requeue sweep: a Redis that comes back without its data (no persistence, a replaced instance) has
// lost every queued BullMQ job, while Postgres still says `queued`. Deliveries and remote actions not
// finished after a grace period (longer than any normal queue wait) whose job is gone get it back, with
// the same job id and the same data (kept beside the row: the decision's subject, the action's job).
// Only rows Postgres says are not done are put back, so a job that completed and was removed never runs
// again; beginDelivery's row fence and startAction's queued -> running keep a late duplicate harmless.
import type { Queue } from 'bullmq';
import { counter, createQueue, type Config, type Pool, type Redis } from '@watchpost/runtime';
import { ACTIONS_QUEUE, NOTIFY_CHANNELS, type ActionsQueueJob, type NotificationSubject } from '@watchpost/schemas';
import { actionJobId, actionJobOptions } from '@watchpost/core/actions';
import {
  closeDeliveryQueues,
  createDeliveryQueues,
  enqueueDeliveries,
  type DeliveryQueues,
  type QueuedDelivery,
} from '@watchpost/core/notify';

/** Rows younger than this are left to their queue (a job waits seconds, not a minute). */
export const REQUEUE_GRACE_MS = 60_000;
/** Rows looked at per page, oldest first, and pages per kind and sweep; the next sweep takes the rest. */
const REQUEUE_LIMIT = 500;
const REQUEUE_PAGES = 20;

export const jobsRequeued = counter(
  'watchpost_jobs_requeued_total',
  'BullMQ jobs queued again by the requeue sweep because Redis had lost them (kind: delivery, action)',
  ['kind'],
);

export interface RequeueQueues {
  deliveries: DeliveryQueues;
  actions: Queue<ActionsQueueJob>;
}

export function openRequeueQueues(config: Pick<Config, 'queuePrefix'>, connection: Redis): RequeueQueues {
  return {
    deliveries: createDeliveryQueues(config, connection),
    actions: createQueue<ActionsQueueJob>(config, ACTIONS_QUEUE, connection),
  };
}

export async function closeRequeueQueues(q: RequeueQueues): Promise<void> {
  await Promise.all([closeDeliveryQueues(q.deliveries), q.actions.close()]);
}

export interface RequeueResult {
  deliveries: number;
  actions: number;
}

const missing = async (queue: Queue, ids: string[]): Promise<Set<string>> => {
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  return new Set(ids.filter((_, i) => !jobs[i]));
};

/** One sweep: puts back the jobs of unfinished rows older than `graceMs` that Redis does not hold. */
export async function requeueLostJobs(
  pg: Pool,
  notify: Pick<Config['notify'], 'attempts' | 'backoffMs'>,
  queues: RequeueQueues,
  graceMs = REQUEUE_GRACE_MS,
): Promise<RequeueResult> {
  return {
    deliveries: await requeueDeliveries(pg, notify, queues.deliveries, graceMs),
    actions: await requeueActions(pg, queues.actions, graceMs),
  };
}

async function requeueDeliveries(
  pg: Pool,
  notify: Pick<Config['notify'], 'attempts' | 'backoffMs'>,
  queues: DeliveryQueues,
  graceMs: number,
): Promise<number> {
  let total = 0;
  // Paged, so that rows waiting with a live job (a retry's backoff) never hide the lost ones behind them.
  let after: { at: Date; id: string } = { at: new Date(0), id: '' };
  for (let page = 0; page < REQUEUE_PAGES; page++) {
    // 'sending' too: a worker that died mid-send left it so, and its job went with Redis.
    const r = await pg.query<QueuedDelivery & { subject: NotificationSubject; updated_at: Date }>(
      `SELECT d.id, d.subject_key, d.rule, d.channel, d.destination, d.updated_at, n.subject
         FROM notification_deliveries d JOIN notification_decisions n ON n.subject_key = d.subject_key
        WHERE d.state IN ('queued', 'sending') AND d.updated_at < now() - make_interval(secs => $1)
          AND (d.updated_at, d.id) > ($2, $3) AND n.subject IS NOT NULL AND d.channel = ANY($4)
        ORDER BY d.updated_at, d.id LIMIT $5`,
      [graceMs / 1000, after.at, after.id, NOTIFY_CHANNELS, REQUEUE_LIMIT],
    );
    const lost: QueuedDelivery[] = [];
    for (const channel of NOTIFY_CHANNELS) {
      const rows = r.rows.filter((x) => x.channel === channel);
      if (rows.length === 0) continue;
      const gone = await missing(
        queues[channel],
        rows.map((x) => x.id),
      );
      lost.push(...rows.filter((x) => gone.has(x.id)));
    }
    if (lost.length > 0) {
      const subjects = new Map(r.rows.map((x) => [x.subject_key, x.subject]));
      await enqueueDeliveries(queues, notify, lost, (k) => subjects.get(k)!);
      jobsRequeued.inc({ kind: 'delivery' }, lost.length);
      total += lost.length;
    }
    if (r.rows.length < REQUEUE_LIMIT) break;
    const last = r.rows.at(-1)!;
    after = { at: last.updated_at, id: last.id };
  }
  return total;
}

async function requeueActions(pg: Pool, queue: Queue<ActionsQueueJob>, graceMs: number): Promise<number> {
  let total = 0;
  let after = 0;
  for (let page = 0; page < REQUEUE_PAGES; page++) {
    // An action handed to the host's agent is queued for the agent's poll, not for a job.
    // `job` is the job recordAction queued, without its id (the row's).
    const r = await pg.query<{ id: string; job: Record<string, unknown> }>(
      `SELECT id, job FROM actions
        WHERE status = 'queued' AND transport IS DISTINCT FROM 'agent' AND job IS NOT NULL
          AND created_at < now() - make_interval(secs => $1) AND id > $2
        ORDER BY id LIMIT $3`,
      [graceMs / 1000, after, REQUEUE_LIMIT],
    );
    const gone = await missing(
      queue,
      r.rows.map((x) => actionJobId(Number(x.id))),
    );
    // A job past its deadline is put back too: the worker then fails it as expired instead of leaving it queued.
    for (const x of r.rows.filter((x) => gone.has(actionJobId(Number(x.id))))) {
      const id = Number(x.id);
      const job = { ...x.job, action_id: id } as ActionsQueueJob;
      await queue.add(job.kind, job, actionJobOptions(id));
      jobsRequeued.inc({ kind: 'action' });
      total++;
    }
    if (r.rows.length < REQUEUE_LIMIT) break;
    after = Number(r.rows.at(-1)!.id);
  }
  return total;
}
