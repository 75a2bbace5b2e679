// Events reads from ClickHouse. Every query is built with the `sql` helper (ClickHouse 18.16 has no
// server-side parameters). Exact despite duplicates: a redelivered event may sit in `events` twice
// until a merge collapses it, so totals use uniqExact(event_id) and pages LIMIT 1 BY event_id.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import type { Pool } from '@watchpost/runtime';
import { joinSql, sql, type Sql } from '@watchpost/runtime';
import { occurredRangeSql } from '@watchpost/runtime';
import { countsByHour } from './hourly.ts';
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
}

export interface EventRow {
  event_id: string;
  occurred_at: string;
  received_at: string;
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
  const c = filterConditions(f, ts);
  if (f.from || f.toExclusive) c.push(occurredRangeSql({ from: f.from, toExclusive: f.toExclusive }));
  return c;
}

/** The filters but the time range: only type, severity and hostname (also valid on `events_hourly`). */
function filterConditions(f: EventFilters, ts: TypeSettings): Sql[] {
  const c: Sql[] = [visibleTypeSql(ts)];
  if (f.hostname !== undefined) c.push(sql`hostname = ${f.hostname}`);
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

const iso = (unixSeconds: number | string) => new Date(Number(unixSeconds) * 1000).toISOString();

function rowColumns(ts: TypeSettings): Sql {
  return sql`event_id, toUnixTimestamp(occurred_at) AS occurred_ts, toUnixTimestamp(received_at) AS received_ts, hostname,
    display_name, os_family, product, product_version, category, type, severity, ${effectiveSeveritySql(ts)} AS effective_severity,
    title, summary, tags, actor_user, source_ip`;
}

function toEventRow(r: RawRow, flaps: ReadonlySet<string>): EventRow {
  return {
    event_id: r.event_id,
    occurred_at: iso(r.occurred_ts),
    received_at: iso(r.received_ts),
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
  const byHour = await countsByHour(ch, { from: f.from, toExclusive: f.toExclusive }, joinSql(filterConditions(f, ts), ' AND '));
  let total = 0;
  for (const n of byHour.values()) total += n;
  if (offset >= total) return { total, page, page_size: pageSize, items: [] };
  const keysFrom = async (from: Date | undefined) => {
    const where = joinSql(eventConditions({ ...f, from }, ts), ' AND ');
    return queryRows<{ event_id: string; hostname: string; occurred_ts: number | string }>(
      ch,
      sql`SELECT event_id, hostname, toUnixTimestamp(occurred_at) AS occurred_ts FROM events WHERE ${where}
          ORDER BY occurred_at DESC, event_id DESC LIMIT 1 BY event_id LIMIT ${offset}, ${pageSize}`,
    );
  };
  const bound = pageBound(byHour, offset + pageSize);
  const from = bound && (!f.from || bound > f.from) ? bound : f.from;
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
