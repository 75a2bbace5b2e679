// Exact event counts per UTC hour of occurred_at, cheap on any range: hours the rollup job has
// recomputed since they last changed come from `events_hourly` (migration 0400, thousands of rows),
// the rest from `events` with uniqExact (normally the current hour or two, plus the partial hours at
// the edges of a range that does not start or end on a whole hour). Used by the dashboard summary
// and the events list (its total, and how far back a page has to read).
import type { ClickHouseClient } from '@watchpost/runtime';
import { execSql, queryRows } from '@watchpost/runtime';
import { alterTarget, joinSql, sql, Sql } from '@watchpost/runtime';
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
  const hours: Sql[] = [notInHoursSql(exact)];
  if (from) hours.push(sql`hour >= ${from}`);
  if (toExclusive) hours.push(sql`hour <= ${new Date(toExclusive.getTime() - HOUR_S * 1000)}`);
  return { exact, rolled: [currentHourlySql(joinSql(hours, ' AND ')), ...hours, where] };
}

/**
 * The current rows of `events_hourly` among `hours` (a condition on `hour`): each hour's rows of its
 * newest version. The same rows FINAL keeps (a recompute writes every row of its hours with one
 * version, and an hour's events never go but with its host, deleted from both tables), without
 * FINAL's merge of every row of the range (240 ms for 7 days of 500 hosts on 18.16, this: 25 ms).
 * Safe while a recompute is being written: its hours are pending (logged after the watermark), read
 * from `events`, until the run that wrote them completes.
 */
function currentHourlySql(hours: Sql): Sql {
  return sql`(hour, version) IN (SELECT hour, max(version) FROM events_hourly WHERE ${hours} GROUP BY hour)`;
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
      sql`SELECT toUnixTimestamp(hour) AS h, sum(events) AS n FROM events_hourly WHERE ${joinSql(rolled, ' AND ')} GROUP BY h`,
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
 * tables have (type, severity, hostname).
 */
export async function countsByHostAndType(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
  limit: number,
): Promise<Record<'hostname' | 'type', { value: string; events: number }[]>> {
  const { exact, rolled } = await splitByRollup(ch, range, where);
  type Row = { hostname: string; type: string; n: number | string };
  const [a, b] = await Promise.all([
    queryRows<Row>(
      ch,
      sql`SELECT hostname, type, sum(events) AS n FROM events_hourly
          WHERE ${joinSql(rolled, ' AND ')} GROUP BY hostname, type`,
    ),
    exact.length === 0
      ? Promise.resolve([] as Row[])
      : queryRows<Row>(
          ch,
          sql`SELECT hostname, type, uniqExact(event_id) AS n
              FROM events PREWHERE ${occurredHoursSql(exact)} AND ${occurredRangeSql(range)} WHERE ${where} GROUP BY hostname, type`,
        ),
  ]);
  // An hour is either rolled up or exact, never both, and an event has one host and one type: the sums add up.
  const tally = (key: 'hostname' | 'type') => {
    const out = new Map<string, { value: string; events: number }>();
    for (const r of [...a, ...b]) {
      const n = Number(r.n);
      if (n <= 0) continue;
      const o = out.get(r[key]) ?? { value: r[key], events: 0 };
      o.events += n;
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

export const VALUE_FIELDS = ['actor_user', 'source_ip'] as const;
export type ValueField = (typeof VALUE_FIELDS)[number];

const DAY_S = 86_400;

/**
 * How `events_hourly_values` answers [from, toExclusive): whole UTC days from its day rows where the
 * day is current (its marker at least as new as each of its hours' and none of them pending), other
 * whole rolled-up hours from its hour rows (each hour's rows of its marker's version), and `exact`:
 * pending, partial and not yet marked hours, to read from `events` (as countsByHour).
 */
async function planValueRollup(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
): Promise<{ days: [number, bigint][]; hourly: [number, bigint][]; exact: number[] }> {
  const hours: Sql[] = [sql`1`];
  if (range.from) hours.push(sql`hour >= toStartOfDay(${range.from}, 'UTC')`);
  if (range.toExclusive) hours.push(sql`hour < ${range.toExclusive}`);
  const inRange = joinSql(hours, ' AND ');
  const [split, markers, unmarked] = await Promise.all([
    splitByRollup(ch, range, where),
    queryRows<{ field: string; h: number | string; v: number | string }>(
      ch,
      sql`SELECT field, toUnixTimestamp(hour) AS h, toString(max(version)) AS v FROM events_hourly_values
          WHERE field IN ('', 'day:') AND ${inRange} GROUP BY field, h`,
    ),
    // Hours rolled up before this rollup existed and not filled by the job yet: from `events` too.
    queryRows<{ h: number | string }>(
      ch,
      sql`SELECT DISTINCT toUnixTimestamp(hour) AS h FROM events_hourly
          WHERE ${inRange} AND hour NOT IN (SELECT hour FROM events_hourly_values WHERE field = '' AND ${inRange})`,
    ),
  ]);
  const exact = new Set([...split.exact, ...unmarked.map((r) => Number(r.h))]);
  const hourVersion = new Map<number, bigint>();
  const dayVersion = new Map<number, bigint>();
  for (const m of markers) (m.field === '' ? hourVersion : dayVersion).set(Number(m.h), BigInt(m.v));
  const from = range.from ? range.from.getTime() / 1000 : -Infinity;
  const to = range.toExclusive ? range.toExclusive.getTime() / 1000 : Infinity;
  const days: [number, bigint][] = [];
  for (const [d, v] of dayVersion) {
    if (d < from || d + DAY_S > to) continue;
    let current = true;
    for (let h = d; h < d + DAY_S && current; h += HOUR_S) current = !exact.has(h) && (hourVersion.get(h) ?? 0n) <= v;
    if (current) days.push([d, v]);
  }
  const rolledHours = [...hourVersion].filter(([h]) => !exact.has(h) && h >= from && h + HOUR_S <= to);
  const hourly = days.length > 0 ? rolledHours.filter(([h]) => !days.some(([d]) => h >= d && h < d + DAY_S)) : rolledHours;
  return { days, hourly, exact: [...exact] };
}

const versionPairs = (xs: [number, bigint][]) =>
  joinSql(
    xs.map(([t, v]) => sql`(toDateTime(${t}), toUInt64(${new Sql(v.toString())}))`),
    ', ',
  );

/**
 * Exact matching distinct events per user and per source address within [from, toExclusive), the
 * `limit` most first (ties by value) for each, empty values left out, summed in one query from
 * `events_hourly_values` (migration 0610) as planValueRollup says. `where` must only use the columns
 * all have (type, severity).
 */
export async function topValuesByField(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  where: Sql,
  limit: number,
): Promise<Record<ValueField, { value: string; events: number }[]>> {
  const { days, hourly, exact } = await planValueRollup(ch, range, where);
  const parts: Sql[] = [];
  if (days.length > 0)
    parts.push(
      // A subquery: the alias `field` would otherwise stand for the column in WHERE.
      sql`SELECT substring(field, 5) AS field, value, events FROM (SELECT field, value, events FROM events_hourly_values
          WHERE field IN ('day:actor_user', 'day:source_ip') AND (hour, version) IN (${versionPairs(days)}) AND ${where})`,
    );
  if (hourly.length > 0)
    parts.push(
      sql`SELECT field, value, events FROM events_hourly_values
          WHERE field IN ('actor_user', 'source_ip') AND (hour, version) IN (${versionPairs(hourly)}) AND ${where}`,
    );
  if (exact.length > 0)
    parts.push(
      sql`SELECT kv.1 AS field, kv.2 AS value, uniqExact(event_id) AS events FROM events
          ARRAY JOIN [${joinSql(
            VALUE_FIELDS.map((f) => sql`(${f}, ${new Sql(f)})`),
            ', ',
          )}] AS kv
          PREWHERE ${occurredHoursSql(exact)} AND ${occurredRangeSql(range)}
          WHERE value != '' AND ${where} GROUP BY field, value`,
    );
  const out = { actor_user: [], source_ip: [] } as Record<ValueField, { value: string; events: number }[]>;
  if (parts.length === 0) return out;
  const rows = await queryRows<{ field: ValueField; value: string; n: number | string }>(
    ch,
    sql`SELECT field, value, sum(events) AS n FROM (${joinSql(parts, ' UNION ALL ')})
        GROUP BY field, value ORDER BY field, n DESC, value LIMIT ${limit} BY field`,
  );
  for (const r of rows) if (Number(r.n) > 0) out[r.field].push({ value: r.value, events: Number(r.n) });
  return out;
}

/**
 * One SELECT per source planValueRollup names (day rows, hour rows, `events` for the exact hours) of the
 * rows whose `field` matches: `match` on the rollup's `value`, `eventsMatch` (the same condition) on the
 * events column. `cols` are the columns each source gives, `tail` what ends each SELECT.
 */
function matchingValueRows(
  plan: { days: [number, bigint][]; hourly: [number, bigint][]; exact: number[] },
  range: { from?: Date; toExclusive?: Date },
  field: ValueField,
  match: Sql,
  eventsMatch: Sql,
  where: Sql,
  out: { rollup: Sql; events: Sql; rollupTail?: Sql; eventsTail?: Sql },
): Sql[] {
  const parts: Sql[] = [];
  const rollup = (name: string, periods: [number, bigint][]) =>
    sql`SELECT ${out.rollup} FROM events_hourly_values
        WHERE field = ${name} AND ${match} AND (hour, version) IN (${versionPairs(periods)}) AND ${where} ${out.rollupTail ?? sql``}`;
  if (plan.days.length > 0) parts.push(rollup('day:' + field, plan.days));
  if (plan.hourly.length > 0) parts.push(rollup(field, plan.hourly));
  if (plan.exact.length > 0)
    parts.push(
      sql`SELECT ${out.events} FROM events PREWHERE ${occurredHoursSql(plan.exact)} AND ${eventsMatch}
          WHERE ${occurredRangeSql(range)} AND ${where} ${out.eventsTail ?? sql``}`,
    );
  return parts;
}

/**
 * Exact distinct events within [from, toExclusive) whose `field` (user or source address) matches
 * `match` (a condition on the column `value`, never true for ''), per UTC hour, or per UTC day for
 * whole days the rollup holds (keyed by midnight: fewer rows to read than 24 hours'), from
 * `events_hourly_values` as planValueRollup says, the rest from `events` with `eventsMatch` (the same
 * condition on the events column). `where` must only use the columns all have (type, severity). The
 * events list's total and how far back its page reads (pageBound) for a user or address filter.
 */
export async function valueCountsByPeriod(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  field: ValueField,
  match: Sql,
  eventsMatch: Sql,
  where: Sql,
): Promise<Map<number, number>> {
  const parts = matchingValueRows(await planValueRollup(ch, range, where), range, field, match, eventsMatch, where, {
    rollup: sql`toUnixTimestamp(hour) AS h, events`,
    events: sql`toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS h, uniqExact(event_id) AS events`,
    eventsTail: sql`GROUP BY h`,
  });
  if (parts.length === 0) return new Map();
  const rows = await queryRows<{ h: number | string; n: number | string }>(
    ch,
    sql`SELECT h, sum(events) AS n FROM (${joinSql(parts, ' UNION ALL ')}) GROUP BY h`,
  );
  return new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [Number(r.h), Number(r.n)]));
}

/**
 * Which of the value fields hold, in some event within [from, toExclusive), a value matching its
 * condition (as valueCountsByPeriod reads them): the free text leaves out the user or address condition
 * no event can meet (reading those columns of every row costs ~35 % of a 7-day search on 18.16).
 */
export async function valuesExist(
  ch: ClickHouseClient,
  range: { from?: Date; toExclusive?: Date },
  conditions: { field: ValueField; match: Sql; eventsMatch: Sql }[],
): Promise<Set<ValueField>> {
  if (conditions.length === 0) return new Set();
  const plan = await planValueRollup(ch, range, sql`1`);
  const parts = conditions.flatMap(({ field, match, eventsMatch }) =>
    matchingValueRows(plan, range, field, match, eventsMatch, sql`1`, {
      rollup: sql`${field} AS f`,
      events: sql`${field} AS f`,
      rollupTail: sql`LIMIT 1`,
      eventsTail: sql`LIMIT 1`,
    }),
  );
  if (parts.length === 0) return new Set();
  const rows = await queryRows<{ f: ValueField }>(ch, sql`SELECT DISTINCT f FROM (${joinSql(parts, ' UNION ALL ')})`);
  return new Set(rows.map((r) => r.f));
}

/**
 * Before a host's events are deleted: the hours (and days) it had events in lose their marker in
 * `events_hourly_values` (which has no hostname), so readers count them from `events` until the
 * rollup job has recomputed them (it waits for the deletion's mutation on `events` to finish).
 */
export async function forgetHostValues(
  ch: ClickHouseClient,
  hostname: string,
  store: { database: string; cluster: string },
): Promise<void> {
  const rows = await queryRows<{ h: number | string }>(
    ch,
    sql`SELECT DISTINCT toUnixTimestamp(hour) AS h FROM events_hourly WHERE hostname = ${hostname}`,
  );
  if (rows.length === 0) return;
  const list = (ts: number[]) =>
    joinSql(
      [...new Set(ts)].map((t) => sql`toDateTime(${t})`),
      ', ',
    );
  const hours = rows.map((r) => Number(r.h));
  // Their days' markers too: a day row counts the host's events even in an hour that now has none.
  await execSql(
    ch,
    sql`ALTER TABLE ${alterTarget(store.database, 'events_hourly_values', store.cluster)} DELETE
        WHERE (field = '' AND hour IN (${list(hours)})) OR (field = 'day:' AND hour IN (${list(hours.map((h) => Math.floor(h / DAY_S) * DAY_S))}))`,
  );
}
