// The `scheduler` role: BullMQ job schedulers on the `scheduler` queue plus the worker that runs them.
// upsertJobScheduler is idempotent (one scheduler per id in Redis, whatever the number of processes),
// and each tick becomes ONE job that exactly one worker takes: one run cluster-wide per interval.
// The periodic jobs are declared by the roles whose work they are (the liveness scan by correlate, the
// hourly rollup by store, the daily report by reports) and handed in by the package entry
// (processors/src/index.ts: `schedulerRole`); this folder imports none of them and adds its own two
// (Postgres retention and the requeue sweep).
import { createQueue, createWorker, onRedisReconnect, type RoleStarter, type RoleContext } from '@watchpost/runtime';
import { SCHEDULED_JOBS, SCHEDULER_QUEUE } from '@watchpost/schemas';
import { pruneByAge } from '@watchpost/core/retention';
import type { ScheduledJob } from '../shared/scheduled-job.ts';
import { closeRequeueQueues, openRequeueQueues, requeueLostJobs, type RequeueQueues } from './requeue.ts';

export const POSTGRES_RETENTION_JOB = SCHEDULED_JOBS.postgresRetention;
export const REQUEUE_LOST_JOB = SCHEDULED_JOBS.requeueLost;

/** How often the requeue sweep looks for jobs a Redis restarted without its data lost (requeue.ts). */
const REQUEUE_EVERY_MS = 30_000;

/** One requeue sweep on its own connection; logs a line when it put anything back. */
async function runRequeue(ctx: RoleContext, why: string): Promise<{ deliveries: number; actions: number }> {
  const conn = ctx.clients.bullmqConnection();
  const queues: RequeueQueues = openRequeueQueues(ctx.config, conn);
  try {
    const r = await requeueLostJobs(ctx.clients.pg, ctx.config.notify, queues, ctx.config.requeueGraceSeconds * 1000);
    if (r.deliveries + r.actions > 0) ctx.log.warn({ job: REQUEUE_LOST_JOB, why, ...r }, 'requeued jobs Redis had lost');
    return r;
  } finally {
    await closeRequeueQueues(queues);
    await conn.quit().catch(() => undefined);
  }
}

/** The scheduler's own jobs, after those the roles declare. */
const ownJobs: ScheduledJob[] = [
  {
    // Tables that grow with events or time, pruned by age in chunks (core/src/retention.ts).
    name: POSTGRES_RETENTION_JOB,
    everyMs: () => 3600_000,
    async run(ctx) {
      const r = await pruneByAge(ctx.clients.pg, ctx.config.postgresRetention);
      if (Object.values(r).some((n) => n > 0)) ctx.log.info({ job: POSTGRES_RETENTION_JOB, ...r }, 'retention');
      return r;
    },
  },
  {
    // Deliveries and actions still queued in Postgres whose job Redis lost (processors/src/scheduler/requeue.ts).
    name: REQUEUE_LOST_JOB,
    everyMs: () => REQUEUE_EVERY_MS,
    run: (ctx) => runRequeue(ctx, 'periodic'),
  },
];

/** The scheduler role running `declared` (the other roles' periodic jobs) and its own. */
export function schedulerRoleWith(declared: readonly ScheduledJob[]): RoleStarter {
  const scheduledJobs = [...declared, ...ownJobs];
  const names = scheduledJobs.map((j) => j.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`scheduled job ${twice} declared twice`);
  return (ctx) => startScheduler(ctx, scheduledJobs);
}

async function startScheduler(ctx: RoleContext, scheduledJobs: readonly ScheduledJob[]) {
  const { config, log, clients } = ctx;
  const queueConn = clients.bullmqConnection();
  const workerConn = clients.bullmqConnection();
  const queue = createQueue(config, SCHEDULER_QUEUE, queueConn);
  const upsert = (j: ScheduledJob) =>
    queue.upsertJobScheduler(
      j.name,
      { every: j.everyMs(ctx) },
      { name: j.name, opts: { removeOnComplete: 100, removeOnFail: 100, attempts: 1 } },
    );
  for (const j of scheduledJobs) await upsert(j);
  // A Redis back without its data has no schedulers: the missing ones are put back.
  const stopRestore = onRedisReconnect(
    queueConn,
    async () => {
      for (const j of scheduledJobs) if (!(await queue.getJobScheduler(j.name))) await upsert(j);
      // Redis may have lost queued jobs with the schedulers: the rows past the grace period get theirs now.
      await runRequeue(ctx, 'redis reconnected');
    },
    (err) => log.warn({ err }, 'restoring job schedulers or lost jobs failed; tried again at the next reconnect or sweep'),
  );
  const byName = new Map(scheduledJobs.map((j) => [j.name, j]));
  const worker = createWorker(
    config,
    SCHEDULER_QUEUE,
    async (job) => {
      const j = byName.get(job.name);
      if (!j) throw new Error(`unknown scheduled job ${job.name}`);
      return j.run(ctx, job);
    },
    workerConn,
    { concurrency: 1 },
  );
  worker.on('failed', (job, err) => log.error({ err, job: job?.name }, 'scheduled job failed'));
  return {
    checks: { scheduler_worker: async () => worker.isRunning() },
    async close() {
      stopRestore();
      await worker.close();
      await queue.close();
      await Promise.allSettled([queueConn.quit(), workerConn.quit()]);
    },
  };
}
