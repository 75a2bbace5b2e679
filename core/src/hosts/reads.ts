// The API's reads of hosts: the filtered list and the detail (status computed now, with the count of
// live problems of visible types and the host's pending changes), the dashboard's counts, and the join
// that gives a problem its host.
import type { Pool } from '@watchpost/runtime';
import type { HostStatus } from '@watchpost/schemas';
import { hostStatusSql, type StaleRule } from './status.ts';
import type { HostRow } from './store.ts';

/**
 * A host as the API shows it: status computed now, live_problems = open + acknowledged of visible types,
 * its binding (issue 21) and its pending changes (host_changes, changes.ts): how many and of which kinds.
 */
export type HostView = Omit<HostRow, 'ssh_admin_checked_at' | 'ssh_host_key_sha256'> & {
  live_problems: number;
  bound_key_id: number | null;
  bound_key_name: string | null;
  bound_at: Date | null;
  winrm_cert_sha256: string | null;
  pending_changes: number;
  /** Kinds of the pending changes, sorted (at most one pending change per kind). */
  pending_change_kinds: string[];
};

export interface HostViewOptions {
  /** config.heartbeat (status.ts), or a flat number of minutes. */
  staleMinutes: StaleRule;
  /** Problem types left out of live_problems. */
  hiddenTypes: readonly string[];
}

export interface HostViewFilters {
  /** case-insensitive substring of hostname or display name */
  search?: string;
  status?: HostStatus;
  /** true: only hosts with a pending change; false: only hosts without. */
  pending?: boolean;
}

// $1 = stale rule, $2 = hidden types
const VIEW_SELECT = `SELECT h.id, h.hostname, h.display_name, ${hostStatusSql('$1')} AS status, h.os_family, h.os_version, h.fqdn, h.ipv4, h.ipv6,
    h.timezone, h.product, h.product_version, h.agent_instance_id, h.internal_address, h.known_ipv4, h.first_seen, h.last_seen,
    h.last_heartbeat, h.status_changed_at, h.ssh_admin_ok, h.inventory_hardware, h.inventory_software, h.inventory_at,
    (SELECT count(*)::int FROM problems p WHERE p.host = h.hostname AND p.status IN ('open', 'acknowledged')
        AND NOT (p.type = ANY($2::text[]))) AS live_problems,
    h.bound_key_id, (SELECT k.name FROM api_keys k WHERE k.id = h.bound_key_id) AS bound_key_name, h.bound_at,
    h.winrm_cert_sha256, h.confirmed_at, h.confirmed_by,
    (SELECT count(*)::int FROM host_changes c WHERE c.host_id = h.id AND c.status = 'pending') AS pending_changes,
    ARRAY(SELECT c.kind FROM host_changes c WHERE c.host_id = h.id AND c.status = 'pending' ORDER BY c.kind) AS pending_change_kinds
  FROM hosts h`;

/** Escapes LIKE wildcards so the search text matches literally. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** One page of hosts by hostname, and the total under the filters. */
export async function listHostViews(
  pg: Pool,
  o: HostViewOptions,
  f: HostViewFilters,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: HostView[] }> {
  const params: unknown[] = [o.staleMinutes, [...o.hiddenTypes]];
  const where: string[] = [];
  if (f.search !== undefined && f.search.trim() !== '') {
    params.push(likeContains(f.search.trim()));
    where.push(`(h.hostname ILIKE $${params.length} OR h.display_name ILIKE $${params.length})`);
  }
  if (f.status) {
    params.push(f.status);
    where.push(`${hostStatusSql('$1')} = $${params.length}`);
  }
  if (f.pending !== undefined)
    where.push(`${f.pending ? '' : 'NOT '}EXISTS (SELECT 1 FROM host_changes c WHERE c.host_id = h.id AND c.status = 'pending')`);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const countParams = [...params];
  params.push(limit, offset);
  const [rows, total] = await Promise.all([
    pg.query<HostView>(`${VIEW_SELECT} ${w} ORDER BY h.hostname LIMIT $${params.length - 1} OFFSET $${params.length}`, params),
    // The count shares the parameter numbering; Postgres wants every parameter typed, hence the IS NOT NULLs.
    pg.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM hosts h ${w ? `${w} AND` : 'WHERE'} $1::jsonb IS NOT NULL AND $2::text[] IS NOT NULL`,
      countParams,
    ),
  ]);
  return { total: total.rows[0]!.total, rows: rows.rows };
}

export async function getHostView(pg: Pool, o: HostViewOptions, id: number): Promise<HostView | null> {
  const { rows } = await pg.query<HostView>(`${VIEW_SELECT} WHERE h.id = $3`, [o.staleMinutes, [...o.hiddenTypes], id]);
  return rows[0] ?? null;
}

/** The dashboard's host figures: how many, how many online now, the latest heartbeat. */
export async function hostCounts(
  pg: Pool,
  staleMinutes: StaleRule,
): Promise<{ total: number; online: number; last_heartbeat_at: Date | null }> {
  const r = await pg.query<{ total: number; online: number; last_heartbeat_at: Date | null }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE ${hostStatusSql('$1')} = 'online')::int AS online,
            max(h.last_heartbeat) AS last_heartbeat_at
       FROM hosts h`,
    [staleMinutes],
  );
  return r.rows[0]!;
}

/**
 * The host of problems aliased `problem`: `columns` (host_id, display_name; null for a host not
 * registered) for the select list and `join` after the FROM.
 */
export function problemHostJoin(problem = 'p'): { columns: string; join: string } {
  return { columns: 'h.id AS host_id, h.display_name', join: `LEFT JOIN hosts h ON h.hostname = ${problem}.host` };
}
