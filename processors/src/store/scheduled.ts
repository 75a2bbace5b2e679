// The store role's periodic job, run by the scheduler role: exact hourly event counts for the dashboard
// (rollup.ts).
import { SCHEDULED_JOBS } from '@watchpost/schemas';
import type { ScheduledJob } from '../shared/scheduled-job.ts';
import { runHourlyRollup } from './rollup.ts';

export const eventsRollupJob: ScheduledJob = {
  name: SCHEDULED_JOBS.eventsRollup,
  everyMs: (ctx) => ctx.config.eventsRollupIntervalSeconds * 1000,
  async run(ctx) {
    const r = await runHourlyRollup(ctx.clients.clickhouse, ctx.config.clickhouseDatabase, {
      cluster: ctx.config.clickhouseCluster,
    });
    return { hours: r.hours, watermark: r.watermark.toISOString() };
  },
};
