// Events reads from ClickHouse. Every query is built with the `sql` helper (ClickHouse 18.16 has no
// server-side parameters). Exact despite duplicates: a redelivered event may sit in `events` twice
// until a merge collapses it, so totals use uniqExact(event_id) and pages LIMIT 1 BY event_id.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import { joinSql, sql, Sql } from '@watchpost/runtime';
import { occurredHoursSql, occurredRangeSql } from '@watchpost/runtime';
import { countsByHostAndType, countsByHour, exactCountsByHourPrewhere, pendingHours, topValuesByField } from './hourly.ts';
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
 * The free-text condition: a case-insensitive substring of title or summary, or a prefix (case-insensitive)
 * of the user, the hostname or the display name, or a prefix of the source address. Title and summary
 * are searched in `search_text` (both lower-cased at insert, migration 0600) with a plain `position`.
 */
export function searchTermSql(t: string): Sql {
  return sql`(position(search_text, lowerUTF8(${t})) > 0
    OR ${prefixCi('actor_user', t)} OR startsWith(source_ip, ${t}) OR ${prefixCi('hostname', t)} OR ${prefixCi('display_name', t)})`;
}

/** The conditions only `events` can answer (free text, user, source address). */
function searchConditions(f: EventFilters): Sql[] {
  const c: Sql[] = searchPhrase(f.text).map(searchTermSql);
  if (f.user !== undefined) {
    const u = f.user.trim();
    if (u.endsWith('*')) c.push(prefixCi('actor_user', u.slice(0, -1)));
    else c.push(sql`lowerUTF8(actor_user) = lowerUTF8(${u})`);
  }
  if (f.sourceIp !== undefined) {
    const a = f.sourceIp.trim();
    c.push(a.endsWith('*') ? sql`startsWith(source_ip, ${a.slice(0, -1)})` : sql`source_ip = ${a}`);
  }
  return c;
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
  const matches = (col: string) => (prefix ? prefixCi(col, p) : sql`lowerUTF8(${new Sql(col)}) = lowerUTF8(${p})`);
  // Hostnames from the rollup (thousands of rows) plus the hours it does not hold yet; display names
  // (not in the rollup) from `events`, reading that one column first. A rolled-up hour at the edge of
  // the range may add a host without events in the range: harmless, the list only narrows `hostname IN`.
  const pending = await pendingHours(ch, range.from);
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
      sql`SELECT DISTINCT hostname FROM events PREWHERE ${matches('display_name')} WHERE ${occurredRangeSql(range)} LIMIT 1000`,
    ),
  ]);
  const rows = found.flat();
  return [...new Set([p, ...rows.map((r) => r.hostname)])].sort();
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
  if (search.length === 0) byHour = await hourCounts(ch, f, ts);
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
  const keysFrom = async (from: Date | undefined) => {
    const where = joinSql([...filterConditions(f, ts), occurredRangeSql({ from, toExclusive: f.toExclusive })], ' AND ');
    return queryRows<{ event_id: string; hostname: string; occurred_ts: number | string }>(
      ch,
      sql`SELECT event_id, hostname, toUnixTimestamp(occurred_at) AS occurred_ts FROM events ${prewhere}WHERE ${where}
          ORDER BY occurred_at DESC, event_id DESC LIMIT 1 BY event_id LIMIT ${offset}, ${pageSize}`,
    );
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
  let keys = await keysFrom(from);
  // The counts say the page lies within; read the whole range should a concurrent insert disagree.
  if (keys.length < Math.min(pageSize, total - offset) && from !== f.from) keys = await keysFrom(f.from);
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
  const rows = await queryRows<RawRow & { event_json: string }>(
    ch,
    sql`SELECT ${rowColumns(ts)}, event_json FROM events
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
  return { ...row!, severity: effectiveSeverity(ts, r.type, r.severity), hidden: isHidden(ts, r.type), event };
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
  // out to (field, value) pairs). Without, one GROUP BY per field: the fan-out of millions of rows costs
  // more than reading a column twice.
  const scan = async (fields: FacetField[]): Promise<Row[]> =>
    queryRows<Row>(
      ch,
      sql`SELECT kv.1 AS k, kv.2 AS value, count() AS n, any(display_name) AS label
          FROM (SELECT display_name, ${joinSql(
            fields.map((c) => new Sql(c)),
            ', ',
          )} FROM events WHERE ${where})
          ARRAY JOIN [${joinSql(
            fields.map((c) => sql`(${c}, ${new Sql(c)})`),
            ', ',
          )}] AS kv
          WHERE value != '' OR k IN ('hostname', 'type')
          GROUP BY k, value ORDER BY k, n DESC, value LIMIT ${limit} BY k`,
    );
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

/** Top hosts and types from the hourly rollup; a host's label is its display name in its newest hour. */
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
  // One (hour, host) pair per host: the sorting key's prefix, a few granules each.
  const labels = await queryRows<{ value: string; label: string }>(
    ch,
    sql`SELECT hostname AS value, any(display_name) AS label FROM events WHERE ${joinSql(
      top.hostname.map(
        (t) => sql`(toStartOfHour(occurred_at, 'UTC') = ${new Date(t.lastHour * 1000)} AND hostname = ${t.value})`,
      ),
      ' OR ',
    )} GROUP BY value`,
  );
  const byHost = new Map(labels.map((l) => [l.value, l.label]));
  return {
    hostname: top.hostname.map((t) => ({ value: t.value, label: byHost.get(t.value) || t.value, events: t.events })),
    type,
  };
}
