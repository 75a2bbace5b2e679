// Hosts (Postgres, table from the correlate migration) and host deletion across both stores.
import type { Pool } from '@watchpost/runtime';
import { withTransaction } from '@watchpost/runtime';
import type { ClickHouseClient } from '@watchpost/runtime';
import { execSql } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { hostStatusSql } from '@watchpost/core';
import type { TypeSettings } from './type-settings.ts';

export interface HostRow {
  id: number;
  hostname: string;
  display_name: string | null;
  status: 'online' | 'stale';
  os_family: string;
  os_version: string | null;
  fqdn: string | null;
  ipv4: string | null;
  product: string;
  agent_version: string;
  first_seen: string;
  last_seen: string;
  last_heartbeat: string | null;
  ssh_admin_ok: boolean;
  /** open + acknowledged problems of visible types */
  live_problems: number;
}

export interface HostDetail extends HostRow {
  ipv6: string | null;
  timezone: string | null;
  agent_instance_id: string | null;
  internal_address: string | null;
  status_changed_at: string | null;
  inventory: { hardware: unknown; software: unknown; at: string | null };
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

// $1 = stale minutes, $2 = hidden types
const HOST_SELECT = `SELECT h.id, h.hostname, h.display_name, ${hostStatusSql('$1')} AS status, h.os_family, h.os_version, h.fqdn, h.ipv4, h.ipv6,
    h.timezone, h.product, h.product_version AS agent_version, h.agent_instance_id, h.internal_address, h.first_seen, h.last_seen,
    h.last_heartbeat, h.status_changed_at, h.ssh_admin_ok, h.inventory_hardware, h.inventory_software, h.inventory_at,
    (SELECT count(*)::int FROM problems p WHERE p.host = h.hostname AND p.status IN ('open', 'acknowledged')
        AND NOT (p.type = ANY($2::text[]))) AS live_problems
  FROM hosts h`;

type DbHost = Omit<HostDetail, 'first_seen' | 'last_seen' | 'last_heartbeat' | 'status_changed_at' | 'inventory'> & {
  first_seen: Date;
  last_seen: Date;
  last_heartbeat: Date | null;
  status_changed_at: Date | null;
  inventory_hardware: unknown;
  inventory_software: unknown;
  inventory_at: Date | null;
};

function toRow(r: DbHost): HostRow {
  return {
    id: Number(r.id),
    hostname: r.hostname,
    display_name: r.display_name,
    status: r.status,
    os_family: r.os_family,
    os_version: r.os_version,
    fqdn: r.fqdn,
    ipv4: r.ipv4,
    product: r.product,
    agent_version: r.agent_version,
    first_seen: iso(r.first_seen)!,
    last_seen: iso(r.last_seen)!,
    last_heartbeat: iso(r.last_heartbeat),
    ssh_admin_ok: r.ssh_admin_ok,
    live_problems: r.live_problems,
  };
}

function toDetail(r: DbHost): HostDetail {
  return {
    ...toRow(r),
    ipv6: r.ipv6,
    timezone: r.timezone,
    agent_instance_id: r.agent_instance_id,
    internal_address: r.internal_address,
    status_changed_at: iso(r.status_changed_at),
    inventory: { hardware: r.inventory_hardware ?? null, software: r.inventory_software ?? null, at: iso(r.inventory_at) },
  };
}

/** Escapes LIKE wildcards so the search text matches literally. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface HostFilters {
  /** case-insensitive substring of hostname or display name */
  search?: string;
  status?: 'online' | 'stale';
}

export async function listHosts(
  pg: Pool,
  ts: TypeSettings,
  staleMinutes: number,
  f: HostFilters,
  page: number,
  pageSize: number,
): Promise<{ total: number; page: number; page_size: number; items: HostRow[] }> {
  const params: unknown[] = [staleMinutes, [...ts.hidden]];
  const where: string[] = [];
  if (f.search !== undefined && f.search.trim() !== '') {
    params.push(likeContains(f.search.trim()));
    where.push(`(h.hostname ILIKE $${params.length} OR h.display_name ILIKE $${params.length})`);
  }
  if (f.status) {
    params.push(f.status);
    where.push(`${hostStatusSql('$1')} = $${params.length}`);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const countParams = [...params];
  params.push(pageSize, (page - 1) * pageSize);
  const [rows, total] = await Promise.all([
    pg.query<DbHost>(`${HOST_SELECT} ${w} ORDER BY h.hostname LIMIT $${params.length - 1} OFFSET $${params.length}`, params),
    // The count shares the parameter numbering; Postgres wants every parameter typed, hence the IS NOT NULLs.
    pg.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM hosts h ${w ? `${w} AND` : 'WHERE'} $1::int IS NOT NULL AND $2::text[] IS NOT NULL`,
      countParams,
    ),
  ]);
  return { total: total.rows[0]!.total, page, page_size: pageSize, items: rows.rows.map(toRow) };
}

export async function getHost(pg: Pool, ts: TypeSettings, staleMinutes: number, id: number): Promise<HostDetail | null> {
  const { rows } = await pg.query<DbHost>(`${HOST_SELECT} WHERE h.id = $3`, [staleMinutes, [...ts.hidden], id]);
  return rows[0] ? toDetail(rows[0]) : null;
}

/**
 * Deletes the host, its problems (timelines and flap pairs cascade) and pending gateway sessions in one
 * Postgres transaction, then its events in ClickHouse with an asynchronous mutation (ClickHouse applies
 * ALTER ... DELETE in the background; the rows disappear within seconds). The host record comes back
 * with the next event its agent sends (the correlate processor upserts it).
 */
export async function deleteHost(
  pg: Pool,
  ch: ClickHouseClient,
  id: number,
): Promise<{ hostname: string; problems: number } | null> {
  const deleted = await withTransaction(pg, async (c) => {
    const { rows } = await c.query<{ hostname: string }>('DELETE FROM hosts WHERE id = $1 RETURNING hostname', [id]);
    if (!rows[0]) return null;
    const hostname = rows[0].hostname;
    const p = await c.query('DELETE FROM problems WHERE host = $1', [hostname]);
    await c.query('DELETE FROM rdg_sessions WHERE host = $1', [hostname]);
    return { hostname, problems: p.rowCount ?? 0 };
  });
  if (!deleted) return null;
  await execSql(ch, sql`ALTER TABLE events DELETE WHERE hostname = ${deleted.hostname}`);
  await execSql(ch, sql`ALTER TABLE events_hourly DELETE WHERE hostname = ${deleted.hostname}`);
  await execSql(ch, sql`ALTER TABLE events_by_id DELETE WHERE hostname = ${deleted.hostname}`);
  return deleted;
}
