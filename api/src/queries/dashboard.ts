// GET /dashboards/summary: the last 24 hours. Event figures are exact (an event stored twice counts
// once) over whole UTC hours (the window starts at the beginning of the hour that began 24 hours ago):
// hours already rolled up come from `events_hourly` (migration 0400, exact uniqExact counts written by
// the rollup job, processors/src/store/rollup.ts), so those queries touch thousands of rows, not
// millions; hours that received rows since the rollup's watermark (normally the current hour or two)
// are counted from `events` with uniqExact. Host and problem figures come from Postgres. Hidden types
// are left out of every figure; severities are shown after the per-type override.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import { sql, Sql } from '@watchpost/runtime';
import { occurredHoursSql } from '@watchpost/runtime';
import { notInHoursSql, pendingHours } from './hourly.ts';
import { SEVERITIES, type Severity } from '@watchpost/schemas';
import { effectiveSeveritySql, visibleTypeSql, type TypeSettings } from './type-settings.ts';
import { recentEvents, type EventRow } from './events.ts';
import { findHostsByHostname, hostCounts, type StaleRule } from '@watchpost/core';
import { visibleProblemTypeSql } from './problems.ts';

const HOUR_MS = 3_600_000;
export const SUMMARY_WINDOW_HOURS = 24;
const RECENT_LOOKBACK_MS = 10 * 60_000;

export interface DashboardSummary {
  generated_at: string;
  window: { from: string; to: string; hours: number };
  events_24h: number;
  severity: Record<Severity, number>;
  events_by_hour: { hour: string; events: number }[];
  top_hosts: { hostname: string; display_name: string | null; events: number }[];
  top_event_types: { type: string; events: number }[];
  daily_reports_24h: number;
  heartbeats: { events_24h: number; hosts_24h: number; last_heartbeat_at: string | null };
  hosts: { total: number; online: number; stale: number };
  open_problems: number;
  acknowledged_problems: number;
  problems_24h: { open: number; acknowledged: number; total: number; resolved: number };
  recent_events: EventRow[];
}

export interface SummaryOptions {
  now?: Date;
  staleMinutes: StaleRule;
  topN?: number;
  recentN?: number;
}

/**
 * The event window: from the start of the UTC hour that began 24 hours ago until now (24 to 25 hours),
 * so that it is made of whole hours (rolled up, or read from `events` while pending).
 */
export function summaryWindow(now: Date): { from: Date } {
  return { from: new Date(Math.floor((now.getTime() - SUMMARY_WINDOW_HOURS * HOUR_MS) / HOUR_MS) * HOUR_MS) };
}

/** Grouped rows of the rolled-up hours of the window (exact: FINAL keeps each key's latest recount). */
function rolledUpRows(
  ts: TypeSettings,
  from: Date,
  pending: readonly number[],
  keys: 'hour, type, severity' | 'hostname',
  extra: Sql = sql`1`,
): Sql {
  const k = new Sql(keys);
  return sql`(SELECT ${k}, sum(events) AS c FROM events_hourly FINAL
    WHERE hour >= ${from} AND ${notInHoursSql(pending)} AND ${visibleTypeSql(ts)} AND ${extra} GROUP BY ${k})`;
}

interface RawRow {
  hour: number | string;
  type: string;
  sev: string;
  hostname: string;
  events: number | string;
}

/** The pending hours straight from `events`, exact per (hour, type, effective severity, hostname). */
async function pendingRows(ch: ClickHouseClient, ts: TypeSettings, pending: readonly number[]): Promise<RawRow[]> {
  if (pending.length === 0) return [];
  return queryRows<RawRow>(
    ch,
    sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS hour, type, ${effectiveSeveritySql(ts)} AS sev, hostname,
               uniqExact(event_id) AS events
        FROM events PREWHERE ${occurredHoursSql(pending)}
        WHERE ${visibleTypeSql(ts)}
        GROUP BY hour, type, sev, hostname`,
  );
}

/** Lower time bound holding at least `n` events, from hourly counts (to keep the recent-events scan short). */
export function recentBound(hourly: { hour: number; events: number }[], n: number, from: Date): Date {
  let acc = 0;
  for (const h of [...hourly].sort((a, b) => b.hour - a.hour)) {
    acc += h.events;
    if (acc >= n) return new Date(Math.max(h.hour * 1000, from.getTime()));
  }
  return from;
}

export async function dashboardSummary(
  ch: ClickHouseClient,
  pg: Pool,
  ts: TypeSettings,
  opts: SummaryOptions,
): Promise<DashboardSummary> {
  const now = opts.now ?? new Date();
  const topN = opts.topN ?? 10;
  const recentN = opts.recentN ?? 10;
  const { from } = summaryWindow(now);
  const sev = effectiveSeveritySql(ts);
  const hiddenProblems = visibleProblemTypeSql(ts, 'p.type', 2);

  const hostsQ = hostCounts(pg, opts.staleMinutes);
  const problemsQ = pg.query<{ open: number; acknowledged: number; open_24h: number; ack_24h: number; resolved_24h: number }>(
    `SELECT count(*) FILTER (WHERE p.status = 'open')::int AS open,
            count(*) FILTER (WHERE p.status = 'acknowledged')::int AS acknowledged,
            count(*) FILTER (WHERE p.status = 'open' AND p.created_at >= $1)::int AS open_24h,
            count(*) FILTER (WHERE p.status = 'acknowledged' AND p.created_at >= $1)::int AS ack_24h,
            count(*) FILTER (WHERE p.status = 'resolved' AND p.created_at >= $1)::int AS resolved_24h
       FROM problems p
      WHERE (p.status <> 'resolved' OR p.created_at >= $1) AND ${hiddenProblems.text}`,
    [from, ...hiddenProblems.params],
  );

  // Postgres and the recent events do not depend on the rollup state: started first.
  // Recent events: a short lookback first (in parallel with the rest); when it holds too few, the
  // bound from the hourly counts keeps the second scan as short as possible.
  const quickFrom = new Date(Math.max(from.getTime(), now.getTime() - RECENT_LOOKBACK_MS));
  const quickQ = recentEvents(ch, pg, ts, quickFrom, recentN);
  // Which hours are not rolled up yet decides where each hour is read from (one small query first).
  const eventFigures = (async () => {
    const pending = await pendingHours(ch, from);
    // With pending hours every host's rolled-up total is needed to rank the sum; else the top N suffice.
    const hostLimit = pending.length === 0 ? sql`LIMIT ${topN}` : sql``;
    return Promise.all([
      queryRows<{ hour: number | string; type: string; sev: string; events: number | string }>(
        ch,
        sql`SELECT toUnixTimestamp(hour) AS hour, type, ${sev} AS sev, sum(c) AS events FROM ${rolledUpRows(ts, from, pending, 'hour, type, severity')}
            GROUP BY hour, type, sev`,
      ),
      queryRows<{ hostname: string; events: number | string }>(
        ch,
        sql`SELECT hostname, sum(c) AS events FROM ${rolledUpRows(ts, from, pending, 'hostname')} GROUP BY hostname ORDER BY events DESC, hostname ${hostLimit}`,
      ),
      queryRows<{ hostname: string }>(
        ch,
        sql`SELECT DISTINCT hostname FROM ${rolledUpRows(ts, from, pending, 'hostname', sql`type = 'agent.heartbeat'`)}`,
      ),
      pendingRows(ch, ts, pending),
    ]);
  })();
  // Everything independent runs at once; Promise.all so one failure never leaves a rejection unhandled.
  const [[byTypeRows, rolledHosts, hbHosts, rawRows], h, problemsRes, quick] = await Promise.all([
    eventFigures,
    hostsQ,
    problemsQ,
    quickQ,
  ]);
  const raw = rawRows.map((r) => ({
    hour: Number(r.hour),
    type: r.type,
    sev: r.sev,
    hostname: r.hostname,
    events: Number(r.events),
  }));
  const byType = [
    ...byTypeRows.map((r) => ({ hour: Number(r.hour), type: r.type, sev: r.sev, events: Number(r.events) })),
    ...raw,
  ];
  const hostTotals = new Map(rolledHosts.map((r) => [r.hostname, Number(r.events)]));
  for (const r of raw) hostTotals.set(r.hostname, (hostTotals.get(r.hostname) ?? 0) + r.events);
  const topHosts = [...hostTotals]
    .map(([hostname, events]) => ({ hostname, events }))
    .sort((x, y) => y.events - x.events || (x.hostname < y.hostname ? -1 : x.hostname > y.hostname ? 1 : 0))
    .slice(0, topN);
  const hbHostSet = new Set(hbHosts.map((r) => r.hostname));
  for (const r of raw) if (r.type === 'agent.heartbeat') hbHostSet.add(r.hostname);
  const severity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const types = new Map<string, number>();
  const hours = new Map<number, number>();
  let total = 0;
  let daily = 0;
  let heartbeats = 0;
  for (const r of byType) {
    total += r.events;
    if (r.sev in severity) severity[r.sev as Severity] += r.events;
    types.set(r.type, (types.get(r.type) ?? 0) + r.events);
    hours.set(r.hour, (hours.get(r.hour) ?? 0) + r.events);
    if (r.type.startsWith('report.daily.')) daily += r.events;
    if (r.type === 'agent.heartbeat') heartbeats += r.events;
  }
  const hourly = [...hours].map(([hour, events]) => ({ hour, events })).sort((a, b) => a.hour - b.hour);
  const recent =
    quick.length >= recentN || quickFrom.getTime() === from.getTime()
      ? quick
      : await recentEvents(ch, pg, ts, recentBound(hourly, recentN, from), recentN);
  const names = new Map<string, string | null>();
  if (topHosts.length > 0) {
    const rows = await findHostsByHostname(
      pg,
      topHosts.map((h) => h.hostname),
      ['display_name'],
    );
    for (const [hostname, r] of rows) names.set(hostname, r.display_name);
  }
  const p = problemsRes.rows[0]!;
  return {
    generated_at: now.toISOString(),
    window: { from: from.toISOString(), to: now.toISOString(), hours: SUMMARY_WINDOW_HOURS },
    events_24h: total,
    severity,
    events_by_hour: hourly.map((x) => ({ hour: new Date(x.hour * 1000).toISOString(), events: x.events })),
    top_hosts: topHosts.map((t) => ({
      hostname: t.hostname,
      display_name: names.get(t.hostname) ?? null,
      events: t.events,
    })),
    top_event_types: [...types]
      .map(([type, events]) => ({ type, events }))
      .sort((a, b) => b.events - a.events || a.type.localeCompare(b.type))
      .slice(0, topN),
    daily_reports_24h: daily,
    heartbeats: {
      events_24h: heartbeats,
      hosts_24h: hbHostSet.size,
      last_heartbeat_at: h.last_heartbeat_at ? new Date(h.last_heartbeat_at).toISOString() : null,
    },
    hosts: { total: h.total, online: h.online, stale: h.total - h.online },
    open_problems: p.open,
    acknowledged_problems: p.acknowledged,
    problems_24h: { open: p.open_24h, acknowledged: p.ack_24h, total: p.open_24h + p.ack_24h, resolved: p.resolved_24h },
    recent_events: recent,
  };
}
