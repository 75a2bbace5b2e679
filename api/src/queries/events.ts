// Events reads from ClickHouse. Every query is built with the `sql` helper (ClickHouse 18.16 has no
// server-side parameters). Exact despite duplicates: a redelivered event may sit in `events` twice
// until a merge collapses it, so totals use uniqExact(event_id) and pages LIMIT 1 BY event_id.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import { joinSql, sql, Sql } from '@watchpost/runtime';
import { occurredHoursSql, occurredRangeSql } from '@watchpost/runtime';
import {
  countsByHostAndType,
  countsByHour,
  exactCountsByHourPrewhere,
  pendingHours,
  topValuesByField,
  valueCountsByPeriod,
  valuesExist,
  VALUE_FIELDS,
  type ValueField,
} from './hourly.ts';
import type { Severity } from '@watchpost/schemas';
import { effectiveSeverity, effectiveSeveritySql, isHidden, visibleTypeSql, type TypeSettings } from './type-settings.ts';

export interface EventFilters {
  hostname?: string;
  /** matched against the severity after the override */
  severities?: Severity[];
  /** occurred_at >= from */
  from?: Date;
  /** occurred_at < toExclusive */
  toExclusive?: Date;
  /** `rdg.connection` matches the type itself and every `rdg.connection.*` */
  typePrefix?: string;
  /** any of these exact hostnames (what resolveHostFilter found for a hostname/display-name prefix) */
  hostnames?: string[];
  /** free text, one phrase (searchTermSql) */
  text?: string;
  /**
   * The fields besides title and summary that hold a value starting with `text` in the range
   * (textPrefixFields): the others are not read. Undefined: all are checked.
   */
  textFields?: readonly TextPrefixField[];
  /** actor_user, case-insensitive: exact, or a prefix when it ends with `*` */
  user?: string;
  /** source_ip: exact, or a prefix when it ends with `*` */
  sourceIp?: string;
}

export interface EventRow {
  event_id: string;
  occurred_at: string;
  received_at: string;
  /** The agent's own time; occurred_at is the window time (core's windowTime). */
  agent_occurred_at: string;
  clock_skew: boolean;
  hostname: string;
  display_name: string;
  os_family: string;
  product: string;
  agent_version: string;
  category: string;
  type: string;
  severity: string;
  stored_severity: string;
  title: string;
  summary: string;
  tags: string[];
  actor_user: string;
  source_ip: string;
  flap: boolean;
}

interface RawRow {
  event_id: string;
  occurred_ts: number | string;
  received_ts: number | string;
  agent_ts: number | string;
  clock_skewed: number | string;
  hostname: string;
  display_name: string;
  os_family: string;
  product: string;
  product_version: string;
  category: string;
  type: string;
  severity: string;
  effective_severity: string;
  title: string;
  summary: string;
  tags: string[];
  actor_user: string;
  source_ip: string;
}

/** Normalises a type filter: trailing dots dropped ("rdg.connection." = "rdg.connection"). */
export function normaliseTypePrefix(p: string): string {
  return p.trim().replace(/\.+$/, '');
}

/** WHERE conditions of the events list (also used for the recent events of the dashboard). */
export function eventConditions(f: EventFilters, ts: TypeSettings): Sql[] {
  const c = [...filterConditions(f, ts), ...searchConditions(f)];
  if (f.from || f.toExclusive) c.push(occurredRangeSql({ from: f.from, toExclusive: f.toExclusive }));
  return c;
}

/** The filters but the time range: only type, severity and hostname (also valid on `events_hourly`). */
function filterConditions(f: EventFilters, ts: TypeSettings): Sql[] {
  const c: Sql[] = [visibleTypeSql(ts)];
  if (f.hostname !== undefined) c.push(sql`hostname = ${f.hostname}`);
  if (f.hostnames !== undefined)
    c.push(
      f.hostnames.length === 0
        ? sql`0`
        : sql`hostname IN (${joinSql(
            f.hostnames.map((h) => sql`${h}`),
            ', ',
          )})`,
    );
  if (f.typePrefix !== undefined) {
    const p = normaliseTypePrefix(f.typePrefix);
    c.push(sql`(type = ${p} OR startsWith(type, ${p + '.'}))`);
  }
  if (f.severities && f.severities.length > 0)
    c.push(
      sql`${effectiveSeveritySql(ts)} IN (${joinSql(
        f.severities.map((s) => sql`${s}`),
        ', ',
      )})`,
    );
  return c;
}

/** Whether the filters only use columns `events_hourly` has too (then counts come from the rollup). */
export function rollupCompatible(f: EventFilters): boolean {
  return !f.text?.trim() && f.user === undefined && f.sourceIp === undefined;
}

/** The free-text phrase, or none. One phrase, not words: "Beta DC" must find the display name as shown. */
function searchPhrase(text: string | undefined): string[] {
  const t = (text ?? '').trim();
  return t ? [t] : [];
}

// "Starts with, ignoring case". Not positionCaseInsensitiveUTF8(...) = 1: that searches the whole value
// for any occurrence first (about 3x slower on 10 M rows of 18.16).
const prefixCi = (col: string, v: string) => sql`startsWith(lowerUTF8(${new Sql(col)}), lowerUTF8(${v}))`;

/**
 * The free text's condition on a user or an address, on column `col`: the events column, or `value` of
 * the values rollup (textPrefixFields must ask the rollup exactly what the search asks the events).
 */
const TEXT_VALUE_PREFIX: Record<ValueField, (col: string, t: string) => Sql> = {
  actor_user: (col, t) => prefixCi(col, t),
  source_ip: (col, t) => sql`startsWith(${new Sql(col)}, ${t})`,
};

/** The fields whose start the free text is matched against; `host`: the hostname or the display name. */
export const TEXT_PREFIX_FIELDS = ['actor_user', 'source_ip', 'host'] as const;
export type TextPrefixField = (typeof TEXT_PREFIX_FIELDS)[number];

/**
 * The free-text condition: a case-insensitive substring of title or summary, or a prefix (case-insensitive)
 * of the user, the hostname or the display name, or a prefix of the source address; of `fields` only
 * (textPrefixFields: the others hold no such value in the range). Title and summary are searched in
 * `search_text` (both lower-cased at insert, migration 0600) with a plain `position`.
 */
export function searchTermSql(t: string, fields: readonly TextPrefixField[] = TEXT_PREFIX_FIELDS): Sql {
  const c: Sql[] = [sql`position(search_text, lowerUTF8(${t})) > 0`];
  for (const field of VALUE_FIELDS) if (fields.includes(field)) c.push(TEXT_VALUE_PREFIX[field](field, t));
  if (fields.includes('host')) c.push(prefixCi('hostname', t), prefixCi('display_name', t));
  return sql`(${joinSql(c, ' OR ')})`;
}

/**
 * Which of the user, the source address and the host (hostname or display name) start with the free
 * text `t` in some event of the range, from the rollups (a few small queries): the search reads only
 * those columns besides its text. On 18.16 over 7 days of 10 M events the list takes ~600 ms instead
 * of ~900 when none does, the lookup ~60-90 ms; within two days the lookup costs about what it saves,
 * so shorter ranges read all of them.
 */
export async function textPrefixFields(
  ch: ClickHouseClient,
  t: string,
  range: { from?: Date; toExclusive?: Date },
): Promise<TextPrefixField[]> {
  const span = (range.toExclusive?.getTime() ?? Date.now()) - (range.from?.getTime() ?? 0);
  if (span <= 2 * 86_400_000) return [...TEXT_PREFIX_FIELDS];
  const [values, hosts] = await Promise.all([
    valuesExist(
      ch,
      range,
      VALUE_FIELDS.map((field) => ({
        field,
        match: TEXT_VALUE_PREFIX[field]('value', t),
        eventsMatch: TEXT_VALUE_PREFIX[field](field, t),
      })),
    ),
    findHosts(ch, t, true, range),
  ]);
  return TEXT_PREFIX_FIELDS.filter((k) => (k === 'host' ? hosts.length > 0 : values.has(k)));
}

/** The user filter's condition on column `col` (actor_user, or `value` of the values rollup). */
function userSql(u: string, col = 'actor_user'): Sql {
  return u.endsWith('*') ? prefixCi(col, u.slice(0, -1)) : sql`lowerUTF8(${new Sql(col)}) = lowerUTF8(${u})`;
}

/** The source address filter's condition on column `col`. */
function sourceIpSql(a: string, col = 'source_ip'): Sql {
  return a.endsWith('*') ? sql`startsWith(${new Sql(col)}, ${a.slice(0, -1)})` : sql`${new Sql(col)} = ${a}`;
}

/** The conditions only `events` can answer (free text, user, source address). */
function searchConditions(f: EventFilters): Sql[] {
  const c: Sql[] = searchPhrase(f.text).map((t) => searchTermSql(t, f.textFields));
  if (f.user !== undefined) c.push(userSql(f.user.trim()));
  if (f.sourceIp !== undefined) c.push(sourceIpSql(f.sourceIp.trim()));
  return c;
}

/** Every spelling of an ASCII `s` differing in case (at most 64; else undefined): an index lookup. */
function caseVariants(s: string): string[] | undefined {
  if (!/^[\x20-\x7e]*$/.test(s) || (s.match(/[a-z]/gi)?.length ?? 0) > 6) return undefined;
  let out = [''];
  for (const ch of s) {
    const l = ch.toLowerCase();
    const u = ch.toUpperCase();
    out = out.flatMap((p) => (l === u ? [p + ch] : [p + l, p + u]));
  }
  return out;
}

/**
 * A user or source address filter alone over more than two days (no free text, no host filter, a
 * non-empty value: the values rollup has neither hostname nor empty values): its field and its
 * condition on the rollup's `value`.
 */
function valueRollupFilter(f: EventFilters): { field: ValueField; match: Sql } | undefined {
  if (f.text?.trim() || f.hostname !== undefined || f.hostnames !== undefined) return undefined;
  // Within two days the scan of one column is as fast as the rollup's extra round trips (measured on 18.16).
  const span = (f.toExclusive?.getTime() ?? Date.now()) - (f.from?.getTime() ?? 0);
  if (span <= 2 * 86_400_000) return undefined;
  if ((f.user === undefined) === (f.sourceIp === undefined)) return undefined;
  const v = (f.user ?? f.sourceIp)!.trim();
  if (v === '' || v === '*') return undefined;
  if (f.sourceIp !== undefined) return { field: 'source_ip', match: sourceIpSql(v, 'value') };
  const variants = v.endsWith('*') ? undefined : caseVariants(v);
  const match = userSql(v, 'value');
  return {
    field: 'actor_user',
    // The spellings first: `value` is in the rollup's sorting key, so only their granules are read.
    match: variants
      ? sql`value IN (${joinSql(
          variants.map((x) => sql`${x}`),
          ', ',
        )}) AND ${match}`
      : match,
  };
}

/**
 * The exact hostnames a hostname filter means: hosts whose hostname or display name equals `value`
 * (case-insensitive; what the table shows finds the host), or starts with it when it ends in `*` (as the
 * user and address filters). Exact by default so a drill-down link to `host-5` never takes `host-50`.
 * Resolved once among the events of the range, so the counts can still come from the hourly rollup
 * (`hostname IN (...)`), and the page read uses the sorting key.
 */
export async function resolveHostFilter(
  ch: ClickHouseClient,
  value: string,
  range: { from?: Date; toExclusive?: Date },
): Promise<string[]> {
  const v = value.trim();
  const prefix = v.endsWith('*');
  const p = prefix ? v.slice(0, -1) : v;
  return [...new Set([p, ...(await findHosts(ch, p, prefix, range))])].sort();
}

/** The hostnames of the range's events whose hostname or display name is `p` or, with `prefix`, starts with it (ignoring case). */
async function findHosts(
  ch: ClickHouseClient,
  p: string,
  prefix: boolean,
  range: { from?: Date; toExclusive?: Date },
): Promise<string[]> {
  const matches = (col: string) => (prefix ? prefixCi(col, p) : sql`lowerUTF8(${new Sql(col)}) = lowerUTF8(${p})`);
  // Hostnames from the rollup (thousands of rows) plus the hours it does not hold yet; display names
  // from `events_host_names` (migration 0700) for the whole hours of the range, from `events` for the
  // partial hours at its edges (a display name changed within one must not add the host). A rolled-up
  // hour at the edge of the range may add a host without events in the range: harmless, the list only
  // narrows `hostname IN`.
  const pending = await pendingHours(ch, range.from);
  const HOUR_MS = 3_600_000;
  const edges: number[] = [];
  const whole: Sql[] = [matches('display_name')];
  if (range.from) {
    const h = Math.ceil(range.from.getTime() / HOUR_MS) * HOUR_MS;
    if (h !== range.from.getTime()) edges.push(h / 1000 - 3600);
    whole.push(sql`hour >= ${new Date(h)}`);
  }
  if (range.toExclusive) {
    const h = Math.floor(range.toExclusive.getTime() / HOUR_MS) * HOUR_MS;
    if (h !== range.toExclusive.getTime()) edges.push(h / 1000);
    whole.push(sql`hour < ${new Date(h)}`);
  }
  const hourly: Sql[] = [matches('hostname')];
  if (range.from) hourly.push(sql`hour >= toStartOfHour(${range.from}, 'UTC')`);
  if (range.toExclusive) hourly.push(sql`hour < ${range.toExclusive}`);
  const found = await Promise.all([
    queryRows<{ hostname: string }>(ch, sql`SELECT DISTINCT hostname FROM events_hourly WHERE ${joinSql(hourly, ' AND ')}`),
    pending.length === 0
      ? Promise.resolve([])
      : queryRows<{ hostname: string }>(
          ch,
          sql`SELECT DISTINCT hostname FROM events PREWHERE ${occurredHoursSql(pending)} AND ${matches('hostname')}
              WHERE ${occurredRangeSql(range)}`,
        ),
    queryRows<{ hostname: string }>(
      ch,
      sql`SELECT DISTINCT hostname FROM events_host_names WHERE ${joinSql(whole, ' AND ')} LIMIT 1000`,
    ),
    edges.length === 0
      ? Promise.resolve([])
      : queryRows<{ hostname: string }>(
          ch,
          sql`SELECT DISTINCT hostname FROM events PREWHERE ${occurredHoursSql([...new Set(edges)])} AND ${matches('display_name')}
              WHERE ${occurredRangeSql(range)} LIMIT 1000`,
        ),
  ]);
  return [...new Set(found.flat().map((r) => r.hostname))];
}

/** Exact matching events per UTC hour: from the rollup when the filters allow it, else from `events`. */
function hourCounts(ch: ClickHouseClient, f: EventFilters, ts: TypeSettings): Promise<Map<number, number>> {
  const range = { from: f.from, toExclusive: f.toExclusive };
  if (rollupCompatible(f)) return countsByHour(ch, range, joinSql(filterConditions(f, ts), ' AND '));
  return exactCountsByHourPrewhere(ch, range, joinSql(searchConditions(f), ' AND '), joinSql(filterConditions(f, ts), ' AND '));
}

const iso = (unixSeconds: number | string) => new Date(Number(unixSeconds) * 1000).toISOString();

function rowColumns(ts: TypeSettings): Sql {
  return sql`event_id, toUnixTimestamp(occurred_at) AS occurred_ts, toUnixTimestamp(received_at) AS received_ts,
    toUnixTimestamp(agent_occurred_at) AS agent_ts, clock_skewed, hostname,
    display_name, os_family, product, product_version, category, type, severity, ${effectiveSeveritySql(ts)} AS effective_severity,
    title, summary, tags, actor_user, source_ip`;
}

function toEventRow(r: RawRow, flaps: ReadonlySet<string>): EventRow {
  return {
    event_id: r.event_id,
    occurred_at: iso(r.occurred_ts),
    received_at: iso(r.received_ts),
    agent_occurred_at: iso(r.agent_ts),
    clock_skew: Number(r.clock_skewed) === 1,
    hostname: r.hostname,
    display_name: r.display_name,
    os_family: r.os_family,
    product: r.product,
    agent_version: r.product_version,
    category: r.category,
    type: r.type,
    severity: r.effective_severity,
    stored_severity: r.severity,
    title: r.title,
    summary: r.summary,
    tags: r.tags,
    actor_user: r.actor_user,
    source_ip: r.source_ip,
    flap: flaps.has(r.event_id.toLowerCase()),
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The flap badge, resolved at read time: the correlate processor records both events of every
 * RD Gateway flap pair (302 connect, 303 disconnect) in rdg_flap_events.
 */
export async function flapEventIds(pg: Pool, eventIds: string[]): Promise<Set<string>> {
  const ids = eventIds.filter((id) => UUID_RE.test(id));
  if (ids.length === 0) return new Set();
  const { rows } = await pg.query<{ event_id: string }>(
    'SELECT event_id::text FROM rdg_flap_events WHERE event_id = ANY($1::uuid[])',
    [ids],
  );
  return new Set(rows.map((r) => r.event_id.toLowerCase()));
}

async function withFlaps(pg: Pool, rows: RawRow[]): Promise<EventRow[]> {
  const flaps = await flapEventIds(
    pg,
    rows.map((r) => r.event_id),
  );
  return rows.map((r) => toEventRow(r, flaps));
}

/**
 * Full rows for a list of keys found by a cheap first pass, in the order of the keys. Reading the
 * wide columns only for the page keeps a page of a 10-million-row day fast.
 */
async function fetchRows(
  ch: ClickHouseClient,
  ts: TypeSettings,
  keys: { event_id: string; hostname: string; occurred_ts: number | string }[],
): Promise<RawRow[]> {
  if (keys.length === 0) return [];
  const hosts = [...new Set(keys.map((k) => k.hostname))];
  const times = keys.map((k) => Number(k.occurred_ts));
  const lo = new Date(Math.min(...times) * 1000);
  const hi = new Date(Math.max(...times) * 1000);
  // PREWHERE on the ids: the wide columns are read only where a key matched.
  const rows = await queryRows<RawRow>(
    ch,
    sql`SELECT ${rowColumns(ts)} FROM events
        PREWHERE event_id IN (${joinSql(
          keys.map((k) => sql`${k.event_id}`),
          ', ',
        )})
        WHERE hostname IN (${joinSql(
          hosts.map((h) => sql`${h}`),
          ', ',
        )}) AND ${occurredRangeSql({ from: lo, toInclusive: hi })}
        LIMIT 1 BY event_id`,
  );
  const byId = new Map(rows.map((r) => [r.event_id, r]));
  return keys.map((k) => byId.get(k.event_id)).filter((r): r is RawRow => r !== undefined);
}

export interface EventPage {
  total: number;
  page: number;
  page_size: number;
  items: EventRow[];
}

/** Start of the newest hours that together hold at least `n` events (undefined when all hours do not). */
export function pageBound(byHour: ReadonlyMap<number, number>, n: number): Date | undefined {
  let acc = 0;
  for (const h of [...byHour.keys()].sort((a, b) => b - a)) {
    acc += byHour.get(h)!;
    if (acc >= n) return new Date(h * 1000);
  }
  return undefined;
}

/**
 * One page of events, newest first (occurred_at, then event_id), with the exact total. The total and
 * the exact counts per hour come from the hourly rollup where it is current (queries/hourly.ts); the
 * page then reads only the newest hours that hold it, not the whole range.
 */
export async function listEvents(
  ch: ClickHouseClient,
  pg: Pool,
  ts: TypeSettings,
  f: EventFilters,
  page: number,
  pageSize: number,
): Promise<EventPage> {
  const offset = (page - 1) * pageSize;
  // Free text, user and address (selective, narrow columns) as PREWHERE: the rest is read where they match.
  const search = searchConditions(f);
  const prewhere = search.length > 0 ? sql`PREWHERE ${joinSql(search, ' AND ')} ` : sql``;
  type Key = { event_id: string; hostname: string; occurred_ts: number | string };
  let byHour: Map<number, number>;
  // Hours whose every matching row the count pass also returned (few matches): no second scan for them.
  const held = new Map<number, Key[]>();
  const byValue = valueRollupFilter(f);
  if (search.length === 0) byHour = await hourCounts(ch, f, ts);
  else if (byValue)
    // Counts of past hours (days) from the values rollup: the page then reads only the newest of them.
    byHour = await valueCountsByPeriod(
      ch,
      { from: f.from, toExclusive: f.toExclusive },
      byValue.field,
      byValue.match,
      joinSql(search, ' AND '),
      joinSql(filterConditions(f, ts), ' AND '),
    );
  else {
    const n = offset + pageSize;
    const rows = await queryRows<{
      h: number | string;
      n: number | string;
      c: number | string;
      keys: [number | string, string, string][];
    }>(
      ch,
      sql`SELECT toUnixTimestamp(toStartOfHour(occurred_at, 'UTC')) AS h, uniqExact(event_id) AS n, count() AS c,
            groupArray(${n})((toUnixTimestamp(occurred_at), event_id, hostname)) AS keys
          FROM events ${prewhere}WHERE ${joinSql([...filterConditions(f, ts), occurredRangeSql(f)], ' AND ')} GROUP BY h`,
    );
    byHour = new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [Number(r.h), Number(r.n)]));
    for (const r of rows)
      if (Number(r.c) <= n)
        held.set(
          Number(r.h),
          r.keys.map(([t, event_id, hostname]) => ({ event_id, hostname, occurred_ts: t })),
        );
  }
  let total = 0;
  for (const n of byHour.values()) total += n;
  if (offset >= total) return { total, page, page_size: pageSize, items: [] };
  // `since` (keysCut, only without search conditions) as PREWHERE: the ids are read only after it.
  const keysFrom = async (from: Date | undefined, since?: Date) => {
    const where = joinSql([...filterConditions(f, ts), occurredRangeSql({ from, toExclusive: f.toExclusive })], ' AND ');
    const pre = since ? sql`PREWHERE occurred_at >= ${since} ` : prewhere;
    return queryRows<Key>(
      ch,
      sql`SELECT event_id, hostname, toUnixTimestamp(occurred_at) AS occurred_ts FROM events ${pre}WHERE ${where}
          ORDER BY occurred_at DESC, event_id DESC LIMIT 1 BY event_id LIMIT ${offset}, ${pageSize}`,
    );
  };
  /**
   * Without search conditions: the occurred_at of the (offset + pageSize)-th newest row first (one narrow
   * column sorted), then the keys at or after it (as recentEvents): sorting the ids of a whole hour costs
   * 4x more. The same page whenever the rows at or after the cut hold enough distinct ids (duplicates
   * not yet merged can push the cut too late: then the plain read).
   */
  const keysCut = async (from: Date | undefined) => {
    const where = joinSql([...filterConditions(f, ts), occurredRangeSql({ from, toExclusive: f.toExclusive })], ' AND ');
    const cut = await queryRows<{ ts: number | string }>(
      ch,
      sql`SELECT toUnixTimestamp(occurred_at) AS ts FROM events WHERE ${where} ORDER BY occurred_at DESC LIMIT ${offset + pageSize - 1}, 1`,
    );
    if (!cut[0]) return keysFrom(from);
    const keys = await keysFrom(from, new Date(Number(cut[0].ts) * 1000));
    return keys.length < Math.min(pageSize, total - offset) ? keysFrom(from) : keys;
  };
  const bound = pageBound(byHour, offset + pageSize);
  const from = bound && (!f.from || bound > f.from) ? bound : f.from;
  const hours = [...byHour.keys()].filter((h) => !bound || h * 1000 >= bound.getTime());
  if (search.length > 0 && hours.every((h) => held.has(h))) {
    // The page from the held rows, ordered as keysFrom orders (newest first, then id; one row per id).
    const seen = new Set<string>();
    const all = hours
      .flatMap((h) => held.get(h)!)
      .sort(
        (a, b) =>
          Number(b.occurred_ts) - Number(a.occurred_ts) || (a.event_id < b.event_id ? 1 : a.event_id > b.event_id ? -1 : 0),
      )
      .filter((k) => !seen.has(k.event_id) && seen.add(k.event_id));
    const keys = all.slice(offset, offset + pageSize);
    return { total, page, page_size: pageSize, items: await withFlaps(pg, await fetchRows(ch, ts, keys)) };
  }
  const read = search.length > 0 ? keysFrom : keysCut;
  let keys = await read(from);
  // The counts say the page lies within; read the whole range should a concurrent insert disagree.
  if (keys.length < Math.min(pageSize, total - offset) && from !== f.from) keys = await read(f.from);
  const items = await withFlaps(pg, await fetchRows(ch, ts, keys));
  return { total, page, page_size: pageSize, items };
}

/**
 * The newest `limit` visible events at or after `from` (dashboard). Two cheap passes instead of one
 * sort of every row since `from`: the occurred_at of the limit-th newest row (PREWHERE reads only the
 * time and type columns), then the keys at or after it.
 */
export async function recentEvents(
  ch: ClickHouseClient,
  pg: Pool,
  ts: TypeSettings,
  from: Date,
  limit: number,
): Promise<EventRow[]> {
  const where = joinSql(eventConditions({}, ts), ' AND ');
  const cut = await queryRows<{ ts: number | string }>(
    ch,
    sql`SELECT toUnixTimestamp(occurred_at) AS ts FROM events PREWHERE ${occurredRangeSql({ from })} WHERE ${where}
        ORDER BY occurred_at DESC LIMIT ${limit - 1}, 1`,
  );
  const keysSince = (since: Date) =>
    queryRows<{ event_id: string; hostname: string; occurred_ts: number | string }>(
      ch,
      sql`SELECT event_id, hostname, toUnixTimestamp(occurred_at) AS occurred_ts FROM events PREWHERE ${occurredRangeSql({ from: since })} WHERE ${where}
          ORDER BY occurred_at DESC, event_id DESC LIMIT 1 BY event_id LIMIT ${limit}`,
    );
  let keys = await keysSince(cut[0] ? new Date(Number(cut[0].ts) * 1000) : from);
  // Duplicates not yet merged away can push the cut too late: then read from `from`.
  if (keys.length < limit && cut[0]) keys = await keysSince(from);
  return withFlaps(pg, await fetchRows(ch, ts, keys));
}

export interface EventDetail extends EventRow {
  hidden: boolean;
  /** the event as the agent sent it (schema v1) */
  event: Record<string, unknown>;
  /** the verified agent key ingest recorded for it (null: unknown, stored before provenance was kept) */
  agent_key_id: number | null;
}

/**
 * One event by id, with its full JSON; null when unknown. Hidden types are still returned (hidden:
 * true). Its hour and host come from `events_by_id` (sorted by id, migration 0500), then the row from
 * `events` by its primary key: no scan of every id.
 */
export async function getEvent(ch: ClickHouseClient, pg: Pool, ts: TypeSettings, eventId: string): Promise<EventDetail | null> {
  const ids = sql`${eventId}, ${eventId.toLowerCase()}, ${eventId.toUpperCase()}`;
  const loc = await queryRows<{ event_id: string; occurred_ts: number | string; hostname: string }>(
    ch,
    sql`SELECT event_id, toUnixTimestamp(occurred_at) AS occurred_ts, hostname FROM events_by_id WHERE event_id IN (${ids}) LIMIT 1`,
  );
  if (!loc[0]) return null;
  const at = new Date(Number(loc[0].occurred_ts) * 1000);
  const rows = await queryRows<RawRow & { event_json: string; agent_key_id: number | string }>(
    ch,
    sql`SELECT ${rowColumns(ts)}, event_json, agent_key_id FROM events
        PREWHERE event_id = ${loc[0].event_id}
        WHERE hostname = ${loc[0].hostname} AND ${occurredRangeSql({ from: at, toInclusive: at })} LIMIT 1`,
  );
  const r = rows[0];
  if (!r) return null;
  const [row] = await withFlaps(pg, [r]);
  let event: Record<string, unknown> = {};
  try {
    event = JSON.parse(r.event_json) as Record<string, unknown>;
  } catch {
    // A row written without its JSON still shows its columns.
  }
  const keyId = Number(r.agent_key_id);
  return {
    ...row!,
    severity: effectiveSeverity(ts, r.type, r.severity),
    hidden: isHidden(ts, r.type),
    event,
    agent_key_id: keyId > 0 ? keyId : null,
  };
}

// ---- histogram and top values (the events page's investigation aids) ----

/** Bucket sizes a histogram may use (seconds); the smallest giving at most MAX_BUCKETS buckets wins. */
export const BUCKET_SIZES = [60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400, 30 * 86_400];
export const MAX_BUCKETS = 40;

/** 15 min -> 1 min, 1 h -> 5 min, 24 h -> 1 h, 7 d -> 6 h. */
export function bucketSeconds(from: Date, toExclusive: Date): number {
  const span = Math.max(1, (toExclusive.getTime() - from.getTime()) / 1000);
  return BUCKET_SIZES.find((b) => span / b <= MAX_BUCKETS) ?? BUCKET_SIZES[BUCKET_SIZES.length - 1]!;
}

export interface Histogram {
  from: string;
  to: string;
  bucket_seconds: number;
  /** every bucket of the range, empty ones as 0; `start` aligned to a multiple of the size since the epoch (UTC) */
  buckets: { start: string; events: number }[];
}

/**
 * Exact matching events per bucket over [from, toExclusive). Buckets of whole hours come from the
 * hourly counts (rollup where the filters allow); smaller ones from `events`.
 */
export async function eventHistogram(
  ch: ClickHouseClient,
  ts: TypeSettings,
  f: EventFilters & { from: Date; toExclusive: Date },
): Promise<Histogram> {
  const size = bucketSeconds(f.from, f.toExclusive);
  const counts = new Map<number, number>();
  const add = (t: number, n: number) => {
    const b = Math.floor(t / size) * size;
    counts.set(b, (counts.get(b) ?? 0) + n);
  };
  if (size % 3600 === 0) {
    for (const [h, n] of await hourCounts(ch, f, ts)) add(h, n);
  } else {
    const where = joinSql(eventConditions(f, ts), ' AND ');
    const rows = await queryRows<{ b: number | string; n: number | string }>(
      ch,
      sql`SELECT intDiv(toUnixTimestamp(occurred_at), ${size}) * ${size} AS b, uniqExact(event_id) AS n FROM events
          WHERE ${where} GROUP BY b`,
    );
    for (const r of rows) add(Number(r.b), Number(r.n));
  }
  const first = Math.floor(f.from.getTime() / 1000 / size) * size;
  const buckets: Histogram['buckets'] = [];
  for (let b = first; b * 1000 < f.toExclusive.getTime(); b += size)
    buckets.push({ start: new Date(b * 1000).toISOString(), events: counts.get(b) ?? 0 });
  return { from: f.from.toISOString(), to: f.toExclusive.toISOString(), bucket_seconds: size, buckets };
}

export const FACET_FIELDS = ['hostname', 'type', 'actor_user', 'source_ip'] as const;
export type FacetField = (typeof FACET_FIELDS)[number];
export interface FacetValue {
  value: string;
  /** the display name for a hostname */
  label?: string;
  events: number;
}

/**
 * The `limit` most frequent values of host, type, user and source address among the matching events
 * (empty user/address left out), most first. Exact distinct events from the hourly rollups when the
 * filters allow: host and type with filters on type, severity, host and range; user and address with
 * type, severity and range only (their rollup has no host). Otherwise counted as rows (count()): cheap
 * on millions of rows; an event delivered twice and not yet merged may count twice.
 */
export async function eventFacets(
  ch: ClickHouseClient,
  ts: TypeSettings,
  f: EventFilters,
  limit: number,
): Promise<Record<FacetField, FacetValue[]>> {
  // Host and type from the hourly rollup when the filters allow (as the totals): thousands of rows, not
  // millions (exact: distinct events). Users and addresses too, but their rollup has no hostname.
  const fromRollup = rollupCompatible(f);
  const valuesFromRollup = fromRollup && f.hostname === undefined && f.hostnames === undefined;
  const scanned: FacetField[] = valuesFromRollup ? [] : fromRollup ? ['actor_user', 'source_ip'] : [...FACET_FIELDS];
  const where = joinSql(eventConditions(f, ts), ' AND ');
  type Row = { k: FacetField; value: string; label: string; n: number | string };
  // With free text, ONE scan for all fields (the costly condition evaluated once; each matching row fans
  // out to (field number, value) pairs). Without, one GROUP BY per field: the fan-out of millions of rows
  // costs more than reading a column twice. The fan-out keys are numbers, and empty values and the
  // hosts' labels are dealt with after the GROUP BY: 20 % less time on 18.16 (q=failed, 24 h of 10 M).
  const scan = async (fields: FacetField[]): Promise<Row[]> => {
    const rows = await queryRows<{ k: number | string; value: string; n: number | string }>(
      ch,
      sql`SELECT kv.1 AS k, kv.2 AS value, count() AS n
          FROM (SELECT ${joinSql(
            fields.map((c) => new Sql(c)),
            ', ',
          )} FROM events WHERE ${where})
          ARRAY JOIN [${joinSql(
            fields.map((c, i) => sql`(${i}, ${new Sql(c)})`),
            ', ',
          )}] AS kv
          GROUP BY k, value ORDER BY k, n DESC, value LIMIT ${limit + 1} BY k`,
    );
    const out = rows
      .map((r) => ({ k: fields[Number(r.k)]!, value: r.value, n: r.n, label: '' }))
      .filter((r) => r.value !== '' || r.k === 'hostname' || r.k === 'type');
    const top = FACET_FIELDS.flatMap((field) => out.filter((r) => r.k === field).slice(0, limit));
    const hosts = top.filter((r) => r.k === 'hostname').map((r) => r.value);
    const labels = await hostLabels(ch, hosts, f);
    return top.map((r) => (r.k === 'hostname' ? { ...r, label: labels.get(r.value) ?? '' } : r));
  };
  const one = async (field: FacetField): Promise<Row[]> => {
    const col = new Sql(field);
    const label = field === 'hostname' ? sql`any(display_name)` : sql`''`;
    // Empty users/addresses dropped here, not in SQL: one more row is cheaper than comparing every row.
    const rows = await queryRows<Row>(
      ch,
      sql`SELECT ${field} AS k, ${col} AS value, count() AS n, ${label} AS label FROM events WHERE ${where}
          GROUP BY value ORDER BY n DESC, value LIMIT ${limit + 1}`,
    );
    return rows.filter((r) => r.value !== '' || field === 'hostname' || field === 'type').slice(0, limit);
  };
  const [rows, rolled, values] = await Promise.all([
    f.text?.trim() ? scan(scanned) : Promise.all(scanned.map(one)).then((r) => r.flat()),
    fromRollup ? rolledUpTop(ch, ts, f, limit) : null,
    valuesFromRollup
      ? topValuesByField(ch, { from: f.from, toExclusive: f.toExclusive }, joinSql(filterConditions(f, ts), ' AND '), limit)
      : null,
  ]);
  const of = (field: FacetField): FacetValue[] =>
    rows
      .filter((r) => r.k === field)
      .map((r) => ({ value: r.value, ...(field === 'hostname' ? { label: r.label || r.value } : {}), events: Number(r.n) }));
  const hostname = rolled?.hostname ?? of('hostname');
  const type = rolled?.type ?? of('type');
  const actor_user = values?.actor_user ?? of('actor_user');
  const source_ip = values?.source_ip ?? of('source_ip');
  return { hostname: hostname!, type: type!, actor_user: actor_user!, source_ip: source_ip! };
}

/** Each host's display name in its newest hour of the range (`events_host_names`, migration 0700). */
async function hostLabels(
  ch: ClickHouseClient,
  hosts: string[],
  range: { from?: Date; toExclusive?: Date },
): Promise<Map<string, string>> {
  if (hosts.length === 0) return new Map();
  const c: Sql[] = [
    sql`hostname IN (${joinSql(
      hosts.map((h) => sql`${h}`),
      ', ',
    )})`,
  ];
  if (range.from) c.push(sql`hour >= toStartOfHour(${range.from}, 'UTC')`);
  if (range.toExclusive) c.push(sql`hour < ${range.toExclusive}`);
  const rows = await queryRows<{ hostname: string; label: string }>(
    ch,
    sql`SELECT hostname, argMax(display_name, hour) AS label FROM events_host_names WHERE ${joinSql(c, ' AND ')} GROUP BY hostname`,
  );
  return new Map(rows.map((r) => [r.hostname, r.label]));
}

/** Top hosts and types from the hourly rollup; a host's label is its display name in its newest hour of the range. */
async function rolledUpTop(
  ch: ClickHouseClient,
  ts: TypeSettings,
  f: EventFilters,
  limit: number,
): Promise<{ hostname: FacetValue[]; type: FacetValue[] }> {
  const range = { from: f.from, toExclusive: f.toExclusive };
  const top = await countsByHostAndType(ch, range, joinSql(filterConditions(f, ts), ' AND '), limit);
  const type = top.type.map((t) => ({ value: t.value, events: t.events }));
  if (top.hostname.length === 0) return { hostname: [], type };
  const byHost = await hostLabels(
    ch,
    top.hostname.map((t) => t.value),
    range,
  );
  return {
    hostname: top.hostname.map((t) => ({ value: t.value, label: byHost.get(t.value) || t.value, events: t.events })),
    type,
  };
}
