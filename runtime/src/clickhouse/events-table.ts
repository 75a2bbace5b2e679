// Conditions on `events.occurred_at` that the primary index can use. The table is sorted by
// (toStartOfHour(occurred_at, 'UTC'), hostname, occurred_at, event_id): ClickHouse 18.16 only prunes
// on the hour when the query names that exact expression, so every occurred_at bound also bounds it
// (redundant for the result: the hour is monotonic in occurred_at).
import { joinSql, sql, type Sql } from './sql.ts';

/** `from <= occurred_at` and `occurred_at < toExclusive` (or `<= toInclusive`), with their hour bounds. */
export function occurredRangeSql(r: { from?: Date; toExclusive?: Date; toInclusive?: Date }): Sql {
  const c: Sql[] = [];
  if (r.from) c.push(sql`toStartOfHour(occurred_at, 'UTC') >= toStartOfHour(${r.from}, 'UTC')`, sql`occurred_at >= ${r.from}`);
  if (r.toExclusive)
    c.push(sql`toStartOfHour(occurred_at, 'UTC') <= toStartOfHour(${r.toExclusive}, 'UTC')`, sql`occurred_at < ${r.toExclusive}`);
  if (r.toInclusive)
    c.push(
      sql`toStartOfHour(occurred_at, 'UTC') <= toStartOfHour(${r.toInclusive}, 'UTC')`,
      sql`occurred_at <= ${r.toInclusive}`,
    );
  return c.length === 0 ? sql`1` : joinSql(c, ' AND ');
}

/** Rows whose UTC hour of occurred_at is one of `hours` (unix seconds, whole hours). */
export function occurredHoursSql(hours: readonly number[]): Sql {
  if (hours.length === 0) return sql`0`;
  const list = joinSql(
    hours.map((h) => sql`${new Date(h * 1000)}`),
    ', ',
  );
  return sql`toStartOfHour(occurred_at, 'UTC') IN (${list})`;
}
