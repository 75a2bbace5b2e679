// The correlate role's periodic job, run by the scheduler role: the liveness scan (liveness.ts).
import { SCHEDULED_JOBS } from '@watchpost/schemas';
import type { ScheduledJob } from '../shared/scheduled-job.ts';
import { runLivenessScan } from './liveness.ts';
import { recordScan } from './metrics.ts';

export const livenessScanJob: ScheduledJob = {
  name: SCHEDULED_JOBS.livenessScan,
  everyMs: (ctx) => ctx.config.livenessScanIntervalSeconds * 1000,
  async run(ctx) {
    const r = await runLivenessScan(ctx.clients.pg, { now: new Date(), staleMinutes: ctx.config.heartbeat });
    recordScan(r);
    if (r.opened.length + r.reopened.length + r.markedStale > 0)
      ctx.log.info({ job: SCHEDULED_JOBS.livenessScan, ...r }, 'liveness scan');
    return { markedStale: r.markedStale, opened: r.opened.length, reopened: r.reopened.length, suppressed: r.suppressed };
  },
};
