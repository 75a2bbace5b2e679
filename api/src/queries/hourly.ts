// Exact event counts per UTC hour of occurred_at, cheap on any range: hours the rollup job has
// recomputed since they last changed come from `events_hourly` (migration 0400, thousands of rows),
// the rest from `events` with uniqExact (normally the current hour or two, plus the partial hours at
// the edges of a range that does not start or end on a whole hour). Used by the dashboard summary
// and the events list (its total, and how far back a page has to read).
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import { joinSql, sql, Sql } from '@watchpost/runtime';
import { occurredHoursSql, occurredRangeSql } from '@watchpost/runtime';

const HOUR_S = 3600;

/**
 * Hours (unix seconds) at or after `from` that may be stale in `events_hourly`: logged as changed
 * (any INSERT into `events`, replays included) at or after the rollup's watermark.
 */
export async function pendingHours(ch: ClickHouseClient, from?: Date): Promise<number[]> {
  const rows = await queryRows<{ h: number | string }>(
    ch,
    sql`SELECT DISTINCT toUnixTimestamp(hour) AS h FROM events_changed_hours
        WHERE changed_at >= (SELECT max(watermark) FROM events_hourly_state) AND hour >= ${from ?? new Date(0)}`,
  );
  return rows.map((r) => Number(r.h));
}

/** `hour NOT IN (hours)` (`1` when the list is empty). */
export function notInHoursSql(hours: readonly number[], col = 'hour'): Sql {
  if (hours.length === 0) return sql`1`;
  return sql`${new Sql(col)} NOT IN (${joinSql(
    hours.map((h) => sql`${new Date(h * 1000)}`),
    ', ',
  )})`;
}

const hourOf = (d: Date) => Math.floor(d.getTime() / 1000 / HOUR_S) * HOUR_S;

/**
 * Which hours of [from, toExclusive) the rollup may answer: `exact` lists the hours to count from
 * `events` (not rolled up yet, or only partly inside the range), `rolled` the `events_hourly` conditions
 * for the rest.
 */
async function splitByRollup(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
): Promise<{ exact: number[]; rolled: Sql[] }> {
  const { from, toExclusive } = range;
  const edges: number[] = [];
  if (from && from.getTime() / 1000 !== hourOf(from)) edges.push(hourOf(from));
  if (toExclusive && toExclusive.getTime() / 1000 !== hourOf(toExclusive)) edges.push(hourOf(toExclusive));
  const exact = [...new Set([...(await pendingHours(ch, from)), ...edges])];
  const rolled: Sql[] = [notInHoursSql(exact), where];
  if (from) rolled.push(sql`hour >= ${from}`);
  if (toExclusive) rolled.push(sql`hour <= ${new Date(toExclusive.getTime() - HOUR_S * 1000)}`);
  return { exact, rolled };
}

/**
 * Exact matching events per hour within [from, toExclusive) (either open). `where` must only use the
 * columns both tables have (type, severity, hostname); `occurred_at` bounds are added here.
 */
export async function countsByHour(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
): Promise<Map<number, number>> {
  const { exact, rolled } = await splitByRollup(ch, range, where);
  const [a, b] = await Promise.all([
    queryRows<{ h: number | string; n: number | string }>(
      ch,
      sql`SELECT toUnixTimestamp(hour) AS h, sum(events) AS n FROM events_hourly FINAL WHERE ${joinSql(rolled, ' AND ')} GROUP BY h`,
    ),
    exact.length === 0
      ? Promise.resolve([])
      : queryRows<{ h: number | string; n: number | string }>(
          ch,
          sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS h, uniqExact(event_id) AS n FROM events
              PREWHERE ${occurredHoursSql(exact)} AND ${occurredRangeSql(range)} WHERE ${where} GROUP BY h`,
        ),
  ]);
  const out = new Map<number, number>();
  for (const r of [...a, ...b]) if (Number(r.n) > 0) out.set(Number(r.h), (out.get(Number(r.h)) ?? 0) + Number(r.n));
  return out;
}

/**
 * Exact matching events per UTC hour within [from, toExclusive) straight from `events`: for filters
 * the rollup cannot answer (free text, user, source address). `where` may use any `events` column.
 */
export async function exactCountsByHour(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
): Promise<Map<number, number>> {
  const rows = await queryRows<{ h: number | string; n: number | string }>(
    ch,
    sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS h, uniqExact(event_id) AS n FROM events
        WHERE ${occurredRangeSql(range)} AND ${where} GROUP BY h`,
  );
  return new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [Number(r.h), Number(r.n)]));
}

/**
 * Exact matching events per host and per type within [from, toExclusive) (one read of the rollup for
 * both), most first, ties by value, `limit` values each: whole rolled-up hours from `events_hourly`,
 * pending and partial hours from `events` (as countsByHour). `where` must only use the columns both
 * tables have (type, severity, hostname). `lastHour`: the newest hour (unix seconds) a value was seen in.
 */
export async function countsByHostAndType(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
  limit: number,
): Promise<Record<'hostname' | 'type', { value: string; events: number; lastHour: number }[]>> {
  const { exact, rolled } = await splitByRollup(ch, range, where);
  type Row = { hostname: string; type: string; h: number | string; n: number | string };
  const [a, b] = await Promise.all([
    queryRows<Row>(
      ch,
      sql`SELECT hostname, type, toUnixTimestamp(max(hour)) AS h, sum(events) AS n FROM events_hourly FINAL
          WHERE ${joinSql(rolled, ' AND ')} GROUP BY hostname, type`,
    ),
    exact.length === 0
      ? Promise.resolve([] as Row[])
      : queryRows<Row>(
          ch,
          sql`SELECT hostname, type, toUnixTimestamp(max(toStartOfHour(occurred_at, 'UTC'))) AS h, uniqExact(event_id) AS n
              FROM events PREWHERE ${occurredHoursSql(exact)} AND ${occurredRangeSql(range)} WHERE ${where} GROUP BY hostname, type`,
        ),
  ]);
  // An hour is either rolled up or exact, never both, and an event has one host and one type: the sums add up.
  const tally = (key: 'hostname' | 'type') => {
    const out = new Map<string, { value: string; events: number; lastHour: number }>();
    for (const r of [...a, ...b]) {
      const n = Number(r.n);
      if (n <= 0) continue;
      const o = out.get(r[key]) ?? { value: r[key], events: 0, lastHour: 0 };
      o.events += n;
      o.lastHour = Math.max(o.lastHour, Number(r.h));
      out.set(r[key], o);
    }
    return [...out.values()]
      .sort((x, y) => y.events - x.events || (x.value < y.value ? -1 : x.value > y.value ? 1 : 0))
      .slice(0, limit);
  };
  return { hostname: tally('hostname'), type: tally('type') };
}

/**
 * Exact matching events per UTC hour within [from, toExclusive) from `events`, the selective
 * `prewhere` (free text, user, address) read first: the other columns only where it matched.
 */
export async function exactCountsByHourPrewhere(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  prewhere: Sql,
  where: Sql,
): Promise<Map<number, number>> {
  const rows = await queryRows<{ h: number | string; n: number | string }>(
    ch,
    sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS h, uniqExact(event_id) AS n FROM events
        PREWHERE ${prewhere} WHERE ${occurredRangeSql(range)} AND ${where} GROUP BY h`,
  );
  return new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [Number(r.h), Number(r.n)]));
}
