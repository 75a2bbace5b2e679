// Hosts as the API shows them (read through core's host store) and host deletion across both stores.
import type { Pool } from '@watchpost/runtime';
import { withTransaction } from '@watchpost/runtime';
import type { ClickHouseClient } from '@watchpost/runtime';
import { execSql } from '@watchpost/runtime';
import { alterTarget, sql } from '@watchpost/runtime';
import {
  deleteHostRow,
  getHostView,
  listHostViews,
  type HostView,
  type HostViewFilters,
  type StaleRule,
} from '@watchpost/core/hosts';
import type { TypeSettings } from './type-settings.ts';
import { forgetHostValues } from './hourly.ts';

/** A host in the API's list (timestamps as ISO text, the agent's version as agent_version). */
export interface HostItem {
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
  /** pending changes (host_changes) an admin has to accept or reject, and their kinds */
  pending_changes: number;
  pending_change_kinds: string[];
  /** an admin accepted the host's addresses: credentialed actions may run (issue 33) */
  confirmed: boolean;
}

export interface HostDetail extends HostItem {
  confirmed_at: string | null;
  confirmed_by: string | null;
  ipv6: string | null;
  timezone: string | null;
  agent_instance_id: string | null;
  internal_address: string | null;
  known_ipv4: string[];
  bound_key_id: number | null;
  bound_key_name: string | null;
  bound_at: string | null;
  winrm_cert_sha256: string | null;
  status_changed_at: string | null;
  inventory: { hardware: unknown; software: unknown; at: string | null };
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

function toItem(r: HostView): HostItem {
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
    agent_version: r.product_version,
    first_seen: iso(r.first_seen)!,
    last_seen: iso(r.last_seen)!,
    last_heartbeat: iso(r.last_heartbeat),
    ssh_admin_ok: r.ssh_admin_ok,
    live_problems: r.live_problems,
    pending_changes: r.pending_changes,
    pending_change_kinds: r.pending_change_kinds,
    confirmed: r.confirmed_at !== null,
  };
}

function toDetail(r: HostView): HostDetail {
  return {
    ...toItem(r),
    ipv6: r.ipv6,
    timezone: r.timezone,
    agent_instance_id: r.agent_instance_id,
    internal_address: r.internal_address,
    known_ipv4: r.known_ipv4,
    bound_key_id: r.bound_key_id === null ? null : Number(r.bound_key_id),
    bound_key_name: r.bound_key_name,
    bound_at: iso(r.bound_at),
    winrm_cert_sha256: r.winrm_cert_sha256,
    confirmed_at: iso(r.confirmed_at),
    confirmed_by: r.confirmed_by,
    status_changed_at: iso(r.status_changed_at),
    inventory: { hardware: r.inventory_hardware ?? null, software: r.inventory_software ?? null, at: iso(r.inventory_at) },
  };
}

export type HostFilters = HostViewFilters;

export async function listHosts(
  pg: Pool,
  ts: TypeSettings,
  staleMinutes: StaleRule,
  f: HostFilters,
  page: number,
  pageSize: number,
): Promise<{ total: number; page: number; page_size: number; items: HostItem[] }> {
  const r = await listHostViews(pg, { staleMinutes, hiddenTypes: [...ts.hidden] }, f, pageSize, (page - 1) * pageSize);
  return { total: r.total, page, page_size: pageSize, items: r.rows.map(toItem) };
}

export async function getHost(pg: Pool, ts: TypeSettings, staleMinutes: StaleRule, id: number): Promise<HostDetail | null> {
  const r = await getHostView(pg, { staleMinutes, hiddenTypes: [...ts.hidden] }, id);
  return r ? toDetail(r) : null;
}

/**
 * Deletes the host, its problems (timelines and flap pairs cascade) and pending gateway sessions in one
 * Postgres transaction, then its events in ClickHouse with an asynchronous mutation (ClickHouse applies
 * ALTER ... DELETE in the background; the rows disappear within seconds; on a cluster on every shard). The host record comes back
 * with the next event its agent sends (the correlate processor upserts it).
 */
export async function deleteHost(
  pg: Pool,
  ch: ClickHouseClient,
  id: number,
  store: { database: string; cluster: string },
): Promise<{ hostname: string; problems: number } | null> {
  const deleted = await withTransaction(pg, async (c) => {
    const hostname = await deleteHostRow(c, id);
    if (hostname === null) return null;
    const p = await c.query('DELETE FROM problems WHERE host = $1', [hostname]);
    await c.query('DELETE FROM rdg_sessions WHERE host = $1', [hostname]);
    await c.query('DELETE FROM rdg_pending_disconnects WHERE host = $1', [hostname]);
    return { hostname, problems: p.rowCount ?? 0 };
  });
  if (!deleted) return null;
  await forgetHostValues(ch, deleted.hostname, store);
  // On a cluster each shard's <table>_local, ON CLUSTER (runtime's alterTarget)
  for (const table of ['events', 'events_hourly', 'events_by_id', 'events_host_names'])
    await execSql(
      ch,
      sql`ALTER TABLE ${alterTarget(store.database, table, store.cluster)} DELETE WHERE hostname = ${deleted.hostname}`,
    );
  return deleted;
}
