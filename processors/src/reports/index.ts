// The daily report job (`dailyReportJob`, run by the scheduler role, checked every
// SERVICE_DAILY_REPORT_CHECK_SECONDS): once the local report time of today has come, the report of the
// 24 hours before it is built, stored once (`daily_reports` UNIQUE day+timezone: a second scheduler
// process finds it there and stops) and sent under the policy: e-mail to SERVICE_DAILY_REPORT_RECIPIENTS
// (else the e-mail channel's), a summary to chat, the webhook.
import type { Config, ClickHouseClient, Pool } from '@watchpost/runtime';
import { SCHEDULED_JOBS } from '@watchpost/schemas';
import {
  closeDeliveryQueues,
  createDeliveryQueues,
  decide,
  loadChannelTargets,
  loadPolicy,
  dailyRunOn,
  localDate,
  recordAndEnqueue,
  shiftDate,
  type DeliveryQueues,
} from '@watchpost/core/notify';
import { NO_TYPE_SETTINGS } from '@watchpost/core/type-settings';
import type { ScheduledJob } from '../shared/scheduled-job.ts';
import { dailyFigures, renderReport, type DailyFigures } from './daily.ts';

export { dailyFigures, renderReport, type DailyFigures } from './daily.ts';

export interface ReportDeps {
  /** the daily report's section and the notify section it sends through */
  config: Pick<Config, 'dailyReport' | 'notify'>;
  pg: Pool;
  ch: ClickHouseClient;
  /** Opened only when a report is sent. */
  openQueues(): { queues: DeliveryQueues; close: () => Promise<void> };
}

export type ReportRun =
  | { status: 'disabled' }
  | { status: 'not_yet'; runs_at: string }
  | { status: 'done_already'; day: string }
  | { status: 'built'; id: number; day: string; queued: number }
  | { status: 'resent'; id: number; day: string; queued: number };

export async function runDailyReport(deps: ReportDeps, now = new Date()): Promise<ReportRun> {
  const { config, pg } = deps;
  const cfg = config.dailyReport;
  if (!cfg.enabled) return { status: 'disabled' };
  const today = localDate(now, cfg.timezone);
  const runAt = dailyRunOn(today, cfg.time, cfg.timezone);
  if (now >= runAt) return ensureReport(deps, today, runAt);
  // Before today's time: yesterday's report, if the schedulers were down across its whole day (from
  // before its time until now). Only once some earlier report exists: a new install does not report
  // on the days before it ran.
  const yesterday = shiftDate(today, -1);
  const missed = await pg.query<{ missed: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM daily_reports WHERE day = $1 AND timezone = $2)
        AND EXISTS (SELECT 1 FROM daily_reports WHERE day < $1 AND timezone = $2) AS missed`,
    [yesterday, cfg.timezone],
  );
  if (missed.rows[0]?.missed) return ensureReport(deps, yesterday, dailyRunOn(yesterday, cfg.time, cfg.timezone));
  return { status: 'not_yet', runs_at: runAt.toISOString() };
}

/** The report of `day` (the 24 h before `runAt`): built and sent once, or sent again if it was left pending. */
async function ensureReport(deps: ReportDeps, day: string, runAt: Date): Promise<ReportRun> {
  const { config, pg } = deps;
  const cfg = config.dailyReport;
  const exists = await pg.query<{ id: string; figures: DailyFigures; settled: boolean }>(
    `SELECT id, figures, created_at < now() - interval '1 minute' AS settled FROM daily_reports WHERE day = $1 AND timezone = $2`,
    [day, cfg.timezone],
  );
  const stored = exists.rows[0];
  if (stored) {
    // Stored but not (all) handed to the queues: a process that died between the two steps, or Redis
    // down at that moment. Sending again is safe: job ids are the delivery ids, and sent ones are skipped.
    // A minute's grace leaves a report being sent right now to the process that built it.
    if (!stored.settled || !(await sendPending(pg, `report:${stored.id}`))) return { status: 'done_already', day };
    const queued = await send(deps, stored.id, day, renderReport(stored.figures));
    return { status: 'resent', id: Number(stored.id), day, queued };
  }
  const from = new Date(runAt.getTime() - 86_400_000);
  const figures = await dailyFigures(deps.ch, pg, { from, to: runAt, day, timezone: cfg.timezone });
  const r = renderReport(figures);
  const ins = await pg.query<{ id: string }>(
    `INSERT INTO daily_reports (day, timezone, period_start, period_end, figures, html, text)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (day, timezone) DO NOTHING RETURNING id`,
    [day, cfg.timezone, from, runAt, JSON.stringify(figures), r.html, r.text],
  );
  const id = ins.rows[0]?.id;
  if (id === undefined) return { status: 'done_already', day };
  return { status: 'built', id: Number(id), day, queued: await send(deps, id, day, r) };
}

/** No decision recorded yet for the report, or a delivery still waiting to be queued. */
async function sendPending(pg: Pool, subjectKey: string): Promise<boolean> {
  const r = await pg.query(
    `SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM notification_decisions WHERE subject_key = $1)
        OR EXISTS (SELECT 1 FROM notification_deliveries WHERE subject_key = $1 AND state = 'queued')`,
    [subjectKey],
  );
  return r.rows.length > 0;
}

async function send(deps: ReportDeps, id: string, day: string, r: ReturnType<typeof renderReport>): Promise<number> {
  const { config, pg } = deps;
  const cfg = config.dailyReport;
  const [policy, targets] = await Promise.all([loadPolicy(pg, config.notify), loadChannelTargets(pg, config.notify)]);
  const decision = decide({ kind: 'daily_report', recipients: cfg.recipients }, policy, targets, NO_TYPE_SETTINGS);
  const subjectKey = `report:${id}`;
  const { queues, close } = deps.openQueues();
  try {
    const queued = await recordAndEnqueue(
      { pg, queues, notify: config.notify },
      [{ subjectKey, subjectKind: 'daily_report', subjectId: id, decision }],
      new Map([
        [
          subjectKey,
          {
            kind: 'daily_report' as const,
            report_id: Number(id),
            day,
            title: r.title,
            text: r.text,
            html: r.html,
            summary: r.summary,
          },
        ],
      ]),
    );
    return queued;
  } finally {
    await close();
  }
}

/** The daily report's job, run by the scheduler role; the delivery queues are opened only when it sends. */
export const dailyReportJob: ScheduledJob = {
  name: SCHEDULED_JOBS.dailyReport,
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
    if (r.status === 'built') ctx.log.info({ job: SCHEDULED_JOBS.dailyReport, ...r }, 'daily report built');
    return r;
  },
};
