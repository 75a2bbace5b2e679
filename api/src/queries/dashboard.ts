// GET /dashboards/summary: event figures over an exact window [from, toExclusive) of occurred_at,
// by default the last 24 hours to the second (the same events as the events list with
// from=now-24h&to=now). An event stored twice counts once. Whole hours inside the window that the
// rollup job has recomputed come from `events_hourly` (migration 0400, exact uniqExact counts written by
// processors/src/store/rollup.ts), so those queries touch thousands of rows, not millions; the partial
// hours at the window's two edges and the hours that received rows since the rollup's watermark
// (normally the current hour or two) are counted from `events` with uniqExact and the exact bounds.
// Host and problem figures come from Postgres. Hidden types are left out of every figure; severities
// are shown after the per-type override.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import { sql, Sql } from '@watchpost/runtime';
import { occurredHoursSql, occurredRangeSql } from '@watchpost/runtime';
import { notInHoursSql, pendingHours } from './hourly.ts';
import { SEVERITIES, type Severity } from '@watchpost/schemas';
import { effectiveSeveritySql, visibleTypeSql, type TypeSettings } from './type-settings.ts';
import { listEvents, recentEvents, type EventRow } from './events.ts';
import { findHostsByHostname, hostCounts, type StaleRule } from '@watchpost/core/hosts';
import { visibleProblemTypeSql } from './problems.ts';

const HOUR_MS = 3_600_000;
const HOUR_S = 3600;
export const SUMMARY_WINDOW_HOURS = 24;
/** Longest window the summary answers (744 hourly buckets). */
export const MAX_WINDOW_DAYS = 31;
const RECENT_LOOKBACK_MS = 10 * 60_000;

export interface DashboardSummary {
  generated_at: string;
  /** [from, to): `to` is exclusive; hours rounded to 0.01 */
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
  /** the event window [from, toExclusive); default summaryWindow(now) */
  window?: { from: Date; toExclusive: Date };
  staleMinutes: StaleRule;
  topN?: number;
  recentN?: number;
}

/**
 * The default event window: the last 24 hours to the second, [now - 24 h, now] with `now` cut to the
 * second (stored times have second precision), as the events list reads from=now-24h&to=now.
 */
export function summaryWindow(now: Date, ms: number = SUMMARY_WINDOW_HOURS * HOUR_MS): { from: Date; toExclusive: Date } {
  const sec = Math.floor(now.getTime() / 1000) * 1000;
  return { from: new Date(sec - ms), toExclusive: new Date(sec + 1000) };
}

const hourOf = (d: Date) => Math.floor(d.getTime() / 1000 / HOUR_S) * HOUR_S;

/** Every UTC hour (unix seconds) the window touches, partial edge hours included. */
export function windowHours(w: { from: Date; toExclusive: Date }): number[] {
  const out: number[] = [];
  for (let h = hourOf(w.from); h * 1000 < w.toExclusive.getTime(); h += HOUR_S) out.push(h);
  return out;
}

/**
 * Grouped rows of the whole hours of the window that are rolled up and current (exact: FINAL keeps each
 * key's latest recount); the hours in `exact` are read from `events` instead.
 */
function rolledUpRows(
  ts: TypeSettings,
  w: { from: Date; toExclusive: Date },
  exact: readonly number[],
  keys: 'hour, type, severity' | 'hostname',
  extra: Sql = sql`1`,
): Sql {
  const k = new Sql(keys);
  return sql`(SELECT ${k}, sum(events) AS c FROM events_hourly FINAL
    WHERE hour >= ${w.from} AND hour <= ${new Date(w.toExclusive.getTime() - HOUR_MS)} AND ${notInHoursSql(exact)}
      AND ${visibleTypeSql(ts)} AND ${extra} GROUP BY ${k})`;
}

interface RawRow {
  hour: number | string;
  type: string;
  sev: string;
  hostname: string;
  events: number | string;
}

/** The `exact` hours straight from `events` within the window, exact per (hour, type, effective severity, hostname). */
async function rawHourRows(
  ch: ClickHouseClient,
  ts: TypeSettings,
  w: { from: Date; toExclusive: Date },
  exact: readonly number[],
): Promise<RawRow[]> {
  if (exact.length === 0) return [];
  return queryRows<RawRow>(
    ch,
    sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS hour, type, ${effectiveSeveritySql(ts)} AS sev, hostname,
               uniqExact(event_id) AS events
        FROM events PREWHERE ${occurredHoursSql(exact)} AND ${occurredRangeSql(w)}
        WHERE ${visibleTypeSql(ts)}
        GROUP BY hour, type, sev, hostname`,
  );
}

/**
 * Hours of the window read from `events`: the partial hours at its edges, and the hours not rolled up
 * since they last changed (`pending`, from pendingHours).
 */
export function exactHours(w: { from: Date; toExclusive: Date }, pending: readonly number[]): number[] {
  const edges: number[] = [];
  if (w.from.getTime() / 1000 !== hourOf(w.from)) edges.push(hourOf(w.from));
  if (w.toExclusive.getTime() / 1000 !== hourOf(w.toExclusive)) edges.push(hourOf(w.toExclusive));
  const inside = pending.filter((h) => h * 1000 < w.toExclusive.getTime() && (h + HOUR_S) * 1000 > w.from.getTime());
  return [...new Set([...edges, ...inside])].sort((a, b) => a - b);
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
  const w = opts.window ?? summaryWindow(now);
  const { from } = w;
  // The metrics rule of the problem figures: created in exactly the last 24 hours, whatever the window.
  const day = new Date(now.getTime() - SUMMARY_WINDOW_HOURS * HOUR_MS);
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
    [day, ...hiddenProblems.params],
  );

  // Postgres and the recent events do not depend on the rollup state: started first.
  // Recent events of a window reaching the present: a short lookback first (in parallel with the rest);
  // when it holds too few, the bound from the hourly counts keeps the second scan as short as possible.
  // A window in the past: the first page of the events list over its newest hours (bound by the
  // hourly figures, so that the list's own counts and scan cover an hour or two, not the window).
  const live = w.toExclusive.getTime() >= now.getTime();
  const quickFrom = new Date(Math.max(from.getTime(), now.getTime() - RECENT_LOOKBACK_MS));
  const quickQ = live ? recentEvents(ch, pg, ts, quickFrom, recentN) : Promise.resolve([]);
  // Which hours are not rolled up yet decides where each hour is read from (one small query first).
  const eventFigures = (async () => {
    const exact = exactHours(w, await pendingHours(ch, from));
    // With hours read raw every host's rolled-up total is needed to rank the sum; else the top N suffice.
    const hostLimit = exact.length === 0 ? sql`LIMIT ${topN}` : sql``;
    return Promise.all([
      queryRows<{ hour: number | string; type: string; sev: string; events: number | string }>(
        ch,
        sql`SELECT toUnixTimestamp(hour) AS hour, type, ${sev} AS sev, sum(c) AS events FROM ${rolledUpRows(ts, w, exact, 'hour, type, severity')}
            GROUP BY hour, type, sev`,
      ),
      queryRows<{ hostname: string; events: number | string }>(
        ch,
        sql`SELECT hostname, sum(c) AS events FROM ${rolledUpRows(ts, w, exact, 'hostname')} GROUP BY hostname ORDER BY events DESC, hostname ${hostLimit}`,
      ),
      queryRows<{ hostname: string }>(
        ch,
        sql`SELECT DISTINCT hostname FROM ${rolledUpRows(ts, w, exact, 'hostname', sql`type = 'agent.heartbeat'`)}`,
      ),
      rawHourRows(ch, ts, w, exact),
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
  // Every hour of the window, empty ones as 0 (a chart shows the gaps).
  const hourly = windowHours(w).map((hour) => ({ hour, events: hours.get(hour) ?? 0 }));
  const recent = !live
    ? (await listEvents(ch, pg, ts, { from: recentBound(hourly, recentN, from), toExclusive: w.toExclusive }, 1, recentN)).items
    : quick.length >= recentN || quickFrom.getTime() === from.getTime()
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
    window: {
      from: from.toISOString(),
      to: w.toExclusive.toISOString(),
      hours: Math.round(((w.toExclusive.getTime() - from.getTime()) / HOUR_MS) * 100) / 100,
    },
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
