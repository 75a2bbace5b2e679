// The `scheduler` role: BullMQ job schedulers on the `scheduler` queue plus the worker that runs them.
// upsertJobScheduler is idempotent (one scheduler per id in Redis, whatever the number of processes),
// and each tick becomes ONE job that exactly one worker takes: one run cluster-wide per interval.
// Other periodic jobs (daily reports, ...) add an entry to `scheduledJobs`.
import type { Job } from 'bullmq';
import { createQueue, createWorker, onRedisReconnect, type RoleContext, type RoleStarter } from '@watchpost/runtime';
import { SCHEDULED_JOBS, SCHEDULER_QUEUE } from '@watchpost/schemas';
import { runLivenessScan } from '../correlate/liveness.ts';
import { recordScan } from '../correlate/metrics.ts';
import { runHourlyRollup } from '../store/rollup.ts';
import { closeDeliveryQueues, createDeliveryQueues, pruneByAge } from '@watchpost/core';
import { runDailyReport } from '../reports/index.ts';
import { closeRequeueQueues, openRequeueQueues, requeueLostJobs, type RequeueQueues } from './requeue.ts';

export interface ScheduledJob {
  /** Job scheduler id and job name. */
  name: string;
  everyMs(ctx: RoleContext): number;
  run(ctx: RoleContext, job: Job): Promise<unknown>;
}

export const LIVENESS_SCAN_JOB = SCHEDULED_JOBS.livenessScan;
export const EVENTS_ROLLUP_JOB = SCHEDULED_JOBS.eventsRollup;
export const POSTGRES_RETENTION_JOB = SCHEDULED_JOBS.postgresRetention;
export const DAILY_REPORT_JOB = SCHEDULED_JOBS.dailyReport;
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

export const scheduledJobs: ScheduledJob[] = [
  {
    name: LIVENESS_SCAN_JOB,
    everyMs: (ctx) => ctx.config.livenessScanIntervalSeconds * 1000,
    async run(ctx) {
      const r = await runLivenessScan(ctx.clients.pg, { now: new Date(), staleMinutes: ctx.config.heartbeat });
      recordScan(r);
      if (r.opened.length + r.reopened.length + r.markedStale > 0)
        ctx.log.info({ job: LIVENESS_SCAN_JOB, ...r }, 'liveness scan');
      return { markedStale: r.markedStale, opened: r.opened.length, reopened: r.reopened.length, suppressed: r.suppressed };
    },
  },
  {
    // Exact hourly event counts for the dashboard (processors/src/store/rollup.ts).
    name: EVENTS_ROLLUP_JOB,
    everyMs: (ctx) => ctx.config.eventsRollupIntervalSeconds * 1000,
    async run(ctx) {
      const r = await runHourlyRollup(ctx.clients.clickhouse, ctx.config.clickhouseDatabase);
      return { hours: r.hours, watermark: r.watermark.toISOString() };
    },
  },
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
    // The daily report once its local time has come (processors/src/reports).
    name: DAILY_REPORT_JOB,
    everyMs: (ctx) => ctx.config.dailyReport.checkSeconds * 1000,
    async run(ctx) {
      const r = await runDailyReport({
        config: ctx.config,
        pg: ctx.clients.pg,
        ch: ctx.clients.clickhouse,
        openQueues: () => {
          const conn = ctx.clients.bullmqConnection();
          const queues = createDeliveryQueues(ctx.config, conn);
          return {
            queues,
            close: async () => {
              await closeDeliveryQueues(queues);
              await conn.quit().catch(() => undefined);
            },
          };
        },
      });
      if (r.status === 'built') ctx.log.info({ job: DAILY_REPORT_JOB, ...r }, 'daily report built');
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

export const schedulerRole: RoleStarter = async (ctx) => {
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
};
