// Exact hourly rollup of `events` into `events_hourly` (migration 0400), run by the scheduler role.
// The store delivers at-least-once, so counting inserts would double-count a replayed batch; instead
// every hour that received rows since the last run (the `events_changed_hours` log, filled by a
// materialized view on every INSERT) is recomputed with uniqExact(event_id) and written with a higher
// version (ReplacingMergeTree, read with FINAL). The state row's watermark tells readers which hours
// may still be stale: those logged at or after it, which the dashboard reads from `events` directly.
import type { ClickHouseClient } from '@watchpost/runtime';
import { execSql, queryRows } from '@watchpost/runtime';
import { joinSql, mutationsOfEveryShard, sql, storageTable } from '@watchpost/runtime';
import { occurredHoursSql } from '@watchpost/runtime';
import { dropExpiredPartitions } from './retention.ts';

/**
 * How far back of a run's start the next run (and readers) look again: `now()` of an INSERT is taken
 * when it starts, its rows become visible when it ends, so an insert running while the rollup reads
 * is caught by the next run. Longer than any store batch insert.
 */
export const ROLLUP_OVERLAP_SECONDS = 60;
/** Hours recomputed per INSERT … SELECT (a long outage leaves many). */
const HOURS_PER_INSERT = 24;

export interface RollupResult {
  hours: number;
  watermark: Date;
}

const toDate = (ts: number | string) => new Date(Number(ts) * 1000);

/** Watermark of the last completed run (1970 when none ran yet: every logged hour is pending). */
export async function rollupWatermark(ch: ClickHouseClient): Promise<Date> {
  const r = await queryRows<{ w: number | string }>(
    ch,
    sql`SELECT toUnixTimestamp(max(watermark)) AS w FROM events_hourly_state`,
  );
  return toDate(r[0]?.w ?? 0);
}

/** Hours (unix seconds) logged as changed at or after `since`, from `minHour` on. */
export async function changedHours(ch: ClickHouseClient, since: Date, minHour = new Date(0)): Promise<number[]> {
  const rows = await queryRows<{ h: number | string }>(
    ch,
    sql`SELECT DISTINCT toUnixTimestamp(hour) AS h FROM events_changed_hours WHERE changed_at >= ${since} AND hour >= ${minHour} ORDER BY h`,
  );
  return rows.map((r) => Number(r.h));
}

/** Splits sorted hours into groups of at most `size` (one INSERT each). */
export function chunkHours(hours: readonly number[], size = HOURS_PER_INSERT): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < hours.length; i += size) out.push(hours.slice(i, i + size));
  return out;
}

/** Recomputes the given hours (unix seconds) of `events` into `events_hourly` and `events_hourly_values` with `version`. */
export async function recomputeHours(ch: ClickHouseClient, hours: readonly number[], version: number): Promise<void> {
  for (const group of chunkHours([...hours].sort((a, b) => a - b))) {
    await execSql(
      ch,
      sql`INSERT INTO events_hourly (hour, type, severity, hostname, events, version)
          SELECT toStartOfHour(occurred_at, 'UTC') AS hour, type, severity, hostname, uniqExact(event_id) AS events, toUInt64(${version}) AS version
          FROM events
          PREWHERE ${occurredHoursSql(group)}
          GROUP BY hour, type, severity, hostname`,
    );
    await recomputeValueHours(ch, group, version);
  }
}

/**
 * Top users and addresses of the given hours (at most one chunk) into `events_hourly_values`
 * (migration 0610): every row of an hour with `version`, then its marker row (field '') that makes
 * readers take this version, also for an hour whose values all went.
 */
async function recomputeValueHours(ch: ClickHouseClient, hours: readonly number[], version: number): Promise<void> {
  await execSql(
    ch,
    sql`INSERT INTO events_hourly_values (field, hour, value, type, severity, events, version)
        SELECT kv.1 AS field, toStartOfHour(occurred_at, 'UTC') AS hour, kv.2 AS value, type, severity,
          uniqExact(event_id) AS events, toUInt64(${version}) AS version
        FROM events
        ARRAY JOIN [('actor_user', actor_user), ('source_ip', source_ip)] AS kv
        PREWHERE ${occurredHoursSql(hours)}
        WHERE value != ''
        GROUP BY field, hour, value, type, severity`,
  );
  await insertMarkers(ch, '', hours, version);
}

/**
 * The marker rows of `field` ('' for hours, 'day:' for days) at the given times (unix seconds) with
 * `version`: readers take a time's values only at its marker's version, so a time whose values all
 * went still gets its marker.
 */
async function insertMarkers(ch: ClickHouseClient, field: '' | 'day:', times: readonly number[], version: number): Promise<void> {
  await execSql(
    ch,
    sql`INSERT INTO events_hourly_values (field, hour, value, type, severity, events, version)
        SELECT ${field} AS field, toDateTime(t) AS hour, '' AS value, '' AS type, '' AS severity, toUInt64(0) AS events,
          toUInt64(${version}) AS version
        FROM (SELECT arrayJoin(${times}) AS t)`,
  );
}

const DAY_S = 86_400;

/**
 * The given UTC days (unix seconds of midnight) of `events_hourly_values` summed from their hours
 * (each hour's rows of its marker's version) into day rows (field 'day:<field>', hour = midnight)
 * with `version`, then each day's marker (field 'day:'). Readers take a day only when its marker is
 * at least as new as every hour's in it and none of its hours is pending.
 */
async function recomputeValueDays(ch: ClickHouseClient, days: readonly number[], version: number): Promise<void> {
  const list = joinSql(
    days.map((d) => sql`toDateTime(${d})`),
    ', ',
  );
  await execSql(
    ch,
    sql`INSERT INTO events_hourly_values (field, hour, value, type, severity, events, version)
        SELECT concat('day:', field) AS day_field, toStartOfDay(hour, 'UTC') AS day, value, type, severity, sum(events) AS n,
          toUInt64(${version}) AS v
        FROM events_hourly_values
        WHERE field IN ('actor_user', 'source_ip') AND toStartOfDay(hour, 'UTC') IN (${list})
          AND (hour, version) IN (SELECT hour, max(version) FROM events_hourly_values
                                  WHERE field = '' AND toStartOfDay(hour, 'UTC') IN (${list}) GROUP BY hour)
        GROUP BY day_field, day, value, type, severity`,
  );
  await insertMarkers(ch, 'day:', days, version);
}

/**
 * Rolled-up hours (unix seconds) with no marker in `events_hourly_values` (those `events` held before
 * migration 0610, and a deleted host's: api/src/queries/hourly.ts forgetHostValues), newest first, at
 * most `limit`.
 */
export async function unmarkedHours(ch: ClickHouseClient, limit = HOURS_PER_INSERT): Promise<number[]> {
  const rows = await queryRows<{ h: number | string }>(
    ch,
    sql`SELECT DISTINCT toUnixTimestamp(hour) AS h FROM events_hourly
        WHERE hour NOT IN (SELECT hour FROM events_hourly_values WHERE field = '') ORDER BY h DESC LIMIT ${limit}`,
  );
  return rows.map((r) => Number(r.h));
}

/**
 * One rollup run: recompute every hour logged since the previous watermark (and the top values of up
 * to a chunk of hours without them, then the days of all these), then advance it to this run's start
 * minus the overlap. Concurrent runs are harmless (each writes exact counts), the
 * scheduler runs one at a time anyway. Change-log partitions older than a day before the watermark
 * are dropped (they can no longer matter).
 */
export async function runHourlyRollup(
  ch: ClickHouseClient,
  database: string,
  opts: { overlapSeconds?: number; cluster?: string } = {},
): Promise<RollupResult> {
  const start = await queryRows<{ now: number | string }>(ch, sql`SELECT toUnixTimestamp(now()) AS now`);
  const startedAt = Number(start[0]!.now);
  const since = await rollupWatermark(ch);
  const hours = await changedHours(ch, since);
  // Milliseconds: strictly above every earlier run's version (and the migration backfill's 0).
  const version = Date.now();
  await recomputeHours(ch, hours, version);
  // The top-values rollup of hours without a marker (stored before it existed, or a deleted host's),
  // a chunk per run; not while a deletion is still being applied to `events`.
  const deleting = await queryRows<{ n: number | string }>(
    ch,
    sql`SELECT count() AS n FROM ${mutationsOfEveryShard(opts.cluster ?? '')} WHERE database = ${database} AND table = ${storageTable('events', opts.cluster ?? '')} AND is_done = 0`,
  );
  const unmarked = Number(deleting[0]?.n ?? 0) > 0 ? [] : (await unmarkedHours(ch)).filter((h) => !hours.includes(h));
  if (unmarked.length > 0) await recomputeValueHours(ch, unmarked, version);
  // Then the days of every hour written (after their hours: a day is never newer than its hours' rows).
  const days = [...new Set([...hours, ...unmarked].map((h) => Math.floor(h / DAY_S) * DAY_S))];
  for (const group of chunkHours(
    days.sort((a, b) => a - b),
    7,
  ))
    await recomputeValueDays(ch, group, version);
  const watermark = toDate(startedAt - (opts.overlapSeconds ?? ROLLUP_OVERLAP_SECONDS));
  await execSql(ch, sql`INSERT INTO events_hourly_state (id, watermark, run_at) VALUES (1, ${watermark}, ${toDate(startedAt)})`);
  await dropExpiredPartitions(ch, database, 1, watermark, 'events_changed_hours', opts.cluster ?? '');
  return { hours: hours.length, watermark };
}
