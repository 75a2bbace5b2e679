// The host store: the hosts table as every role reads and writes it (correlate's upsert and inventory
// snapshots, the liveness scan, the actions worker's SSH pinning and version updates, the agent poll,
// the API's action targets). Its one row type and column list, and every statement on the table but
// the API's list/detail reads (reads.ts). A new column goes in the migration, HostRow and COLUMNS.
import { isIP } from 'node:net';
import type { Pool, PoolClient } from '@watchpost/runtime';
import type { HostStatus } from '@watchpost/schemas';
import { hostLastAliveSql, hostStaleSecondsSql, type StaleRule } from './status.ts';
import type { BeatState } from './heartbeats.ts';
import { pgSafeJson } from '../pg-safe.ts';

type Db = Pool | PoolClient;

/** One row of the hosts table (bigint id parsed to a number by runtime's pg setup). */
export interface HostRow {
  id: number;
  hostname: string;
  display_name: string | null;
  os_family: string;
  os_version: string | null;
  fqdn: string | null;
  ipv4: string | null;
  ipv6: string | null;
  timezone: string | null;
  product: string;
  product_version: string;
  /** The bound agent instance: set by the host's first event that carries one, then only by an accepted change. */
  agent_instance_id: string | null;
  /** The bound agent key (api_keys.id), the same way (binding.ts). */
  bound_key_id: number | null;
  bound_at: Date | null;
  first_seen: Date;
  last_seen: Date;
  /** Receive time of the last agent.heartbeat or report.daily.* event. */
  last_heartbeat: Date | null;
  /** Learned heartbeat interval (seconds, [1 min, 48 h], heartbeats.ts); null until the host's heartbeats show one. */
  heartbeat_interval_seconds: number | null;
  /** Receive time of the last agent.heartbeat (not reports: the learned interval is heartbeat to heartbeat). */
  last_beat_at: Date | null;
  /** The latest gaps between consecutive heartbeats (seconds, newest last). */
  beat_gaps: number[];
  /** Stored by the liveness scan and correlate; reads compute it with hostStatusSql. */
  status: HostStatus;
  status_changed_at: Date | null;
  ssh_admin_ok: boolean;
  ssh_admin_checked_at: Date | null;
  /** SHA-256 of the SSH host key, pinned at the first connection. */
  ssh_host_key_sha256: string | null;
  /** The address gateway sessions name as their target (Windows hosts). */
  internal_address: string | null;
  /** Addresses an admin accepted before the current ipv4 (a multi-homed host's other legs: binding.ts). */
  known_ipv4: string[];
  inventory_hardware: unknown;
  inventory_software: unknown;
  inventory_at: Date | null;
  /** SHA-256 (hex) of the WinRM HTTPS certificate an admin accepted (a winrm_certificate change). */
  winrm_cert_sha256: string | null;
  /** When an admin confirmed the host's addresses (accepted its facts); null: no credential goes to it. */
  confirmed_at: Date | null;
  confirmed_by: string | null;
}

const COLUMNS = [
  'id',
  'hostname',
  'display_name',
  'os_family',
  'os_version',
  'fqdn',
  'ipv4',
  'ipv6',
  'timezone',
  'product',
  'product_version',
  'agent_instance_id',
  'bound_key_id',
  'bound_at',
  'first_seen',
  'last_seen',
  'last_heartbeat',
  'heartbeat_interval_seconds',
  'last_beat_at',
  'beat_gaps',
  'status',
  'status_changed_at',
  'ssh_admin_ok',
  'ssh_admin_checked_at',
  'ssh_host_key_sha256',
  'internal_address',
  'known_ipv4',
  'inventory_hardware',
  'inventory_software',
  'inventory_at',
  'winrm_cert_sha256',
  'confirmed_at',
  'confirmed_by',
] as const satisfies readonly (keyof HostRow)[];

export type HostColumn = (typeof COLUMNS)[number];
// The compiler demands a column for every HostRow field.
const everyField: [Exclude<keyof HostRow, HostColumn>] extends [never] ? true : never = true;
void everyField;
const COLUMN_SET: ReadonlySet<string> = new Set(COLUMNS);

/** The select list of these columns (default: all) with an optional table alias. */
export function hostColumns(cols: readonly HostColumn[] = COLUMNS, alias?: string): string {
  const a = alias ? `${alias}.` : '';
  for (const c of cols) if (!COLUMN_SET.has(c)) throw new Error(`not a hosts column: ${c}`);
  return cols.map((c) => `${a}${c}`).join(', ');
}

/** What the remote actions need of a host: its addresses and which agent it runs. */
export const ACTION_HOST_COLUMNS = ['id', 'hostname', 'os_family', 'product', 'fqdn', 'ipv4', 'internal_address'] as const;
export type ActionHost = Pick<HostRow, (typeof ACTION_HOST_COLUMNS)[number]>;

export type HostKey = { id: number } | { hostname: string };

function where(by: HostKey): { text: string; param: unknown } {
  return 'id' in by ? { text: 'id = $1', param: by.id } : { text: 'hostname = $1', param: by.hostname };
}

/** One host's columns, by id or hostname. */
export async function findHost<C extends HostColumn>(db: Db, by: HostKey, cols: readonly C[]): Promise<Pick<HostRow, C> | null> {
  const w = where(by);
  const r = await db.query<Pick<HostRow, C>>(`SELECT ${hostColumns(cols)} FROM hosts WHERE ${w.text}`, [w.param]);
  return r.rows[0] ?? null;
}

/** One host's columns, locked FOR UPDATE (the liveness scan: host row first, then its problems). */
export async function lockHost<C extends HostColumn>(
  c: PoolClient,
  by: HostKey,
  cols: readonly C[],
): Promise<Pick<HostRow, C> | null> {
  const w = where(by);
  const r = await c.query<Pick<HostRow, C>>(`SELECT ${hostColumns(cols)} FROM hosts WHERE ${w.text} FOR UPDATE`, [w.param]);
  return r.rows[0] ?? null;
}

/** The columns of the registered ones among these hostnames, by hostname (`hostname` is always read). */
export async function findHostsByHostname<C extends HostColumn>(
  db: Db,
  hostnames: readonly string[],
  cols: readonly C[],
): Promise<Map<string, Pick<HostRow, C | 'hostname'>>> {
  const out = new Map<string, Pick<HostRow, C | 'hostname'>>();
  if (hostnames.length === 0) return out;
  const all: readonly (C | 'hostname')[] = cols.includes('hostname' as C) ? cols : ['hostname', ...cols];
  const r = await db.query<Pick<HostRow, C | 'hostname'>>(
    `SELECT ${hostColumns(all)} FROM hosts WHERE hostname = ANY($1::text[])`,
    [[...hostnames]],
  );
  for (const row of r.rows) out.set(row.hostname, row);
  return out;
}

/** What a gateway resource maps to: one host, or none and the hostnames that fit equally well (refused: never guess). */
export interface GatewayHostMatch {
  host: ActionHost | null;
  /** two or more when the name is ambiguous; empty otherwise */
  ambiguous: string[];
}

/** NetBIOS computer names are at most 15 characters: Windows cuts a longer DNS label to it. */
const NETBIOS_MAX = 15;

const WINDOWS_HOST = `(product = 'rdp-login-monitor' OR lower(os_family) LIKE 'win%')`;

/**
 * The registered Windows host a gateway session's resource names (the agent's details.internal_ip: an
 * address, a DNS name or a bare name as the client typed it; the Windows agent reports its NetBIOS
 * name, never an FQDN).
 * - An IP address: the host whose internal address is it, else whose IPv4/IPv6 is it (most recently seen).
 * - A name, case-insensitive, best tier first: 0 the host's internal address; 1 its FQDN or hostname;
 *   2 the name's first DNS label = the hostname or the first label of its FQDN (`ws-01.corp.example`
 *   -> WS-01); 3 that label cut to 15 characters = the hostname (NetBIOS). Two hosts in the best tier
 *   that matches -> ambiguous (the caller refuses, naming them).
 */
export async function findGatewayHost(db: Db, address: string): Promise<GatewayHostMatch> {
  const a = address.trim();
  if (isIP(a)) {
    const r = await db.query<ActionHost>(
      `SELECT ${hostColumns(ACTION_HOST_COLUMNS)} FROM hosts
        WHERE (lower(internal_address) = lower($1) OR ipv4 = $1 OR lower(ipv6) = lower($1)) AND ${WINDOWS_HOST}
        ORDER BY (lower(internal_address) = lower($1)) DESC NULLS LAST, last_seen DESC LIMIT 1`,
      [a],
    );
    return { host: r.rows[0] ?? null, ambiguous: [] };
  }
  const name = a.toLowerCase().replace(/\.$/, '');
  const label = name.split('.')[0]!;
  const netbios = label.length > NETBIOS_MAX ? label.slice(0, NETBIOS_MAX) : null;
  const r = await db.query<ActionHost & { tier: number }>(
    `SELECT * FROM (
       SELECT ${hostColumns(ACTION_HOST_COLUMNS)},
              CASE WHEN lower(internal_address) = $1 THEN 0
                   WHEN lower(fqdn) = $1 OR lower(hostname) = $1 THEN 1
                   WHEN lower(hostname) = $2 OR split_part(lower(hostname), '.', 1) = $2
                     OR split_part(lower(fqdn), '.', 1) = $2 THEN 2
                   WHEN lower(hostname) = $3 THEN 3 END AS tier
         FROM hosts WHERE ${WINDOWS_HOST}) m
      WHERE tier IS NOT NULL ORDER BY tier, hostname LIMIT 20`,
    [name, label, netbios],
  );
  const best = r.rows.filter((h) => h.tier === r.rows[0]?.tier);
  if (best.length === 1) {
    const { tier: _t, ...host } = best[0]!;
    return { host, ambiguous: [] };
  }
  return { host: null, ambiguous: best.map((h) => h.hostname) };
}

// --- correlate ------------------------------------------------------------------------------------

/**
 * What a batch of events says about one host (binding.ts's planHosts merges the batch into one per host).
 * For a known host the facts (os_family, product, fqdn, ipv4) are ignored: only an accepted change sets them.
 */
export type HostRefresh = Pick<
  HostRow,
  | 'hostname'
  | 'display_name'
  | 'os_family'
  | 'os_version'
  | 'fqdn'
  | 'ipv4'
  | 'ipv6'
  | 'timezone'
  | 'product'
  | 'product_version'
  | 'agent_instance_id'
  | 'bound_key_id'
  | 'bound_at'
  | 'first_seen'
  | 'last_seen'
  | 'last_heartbeat'
> & {
  /** Receive time of the batch's first liveness event (sets status_changed_at of a stale host). */
  first_live_at: Date | null;
  /**
   * The host's heartbeat state after the batch's heartbeats (heartbeats.ts; absent: none in the batch).
   * `stored`: planned from the row read under its lock; else from nothing (a host new at that moment),
   * which then only moves last_beat_at should another batch have inserted the row meanwhile.
   */
  beat?: BeatState & { stored: boolean };
};

/**
 * One upsert for every host of the batch (the caller sorts them: a fixed lock order). A new host is
 * inserted bound (agent_instance_id, bound_key_id, bound_at) with its facts confirmed and first_seen and
 * status_changed_at from its first event. A known host keeps first_seen, its binding (a part still
 * missing, on a host bound before issue 21, is filled) and its confirmed facts (os_family, product, fqdn,
 * ipv4, internal_address: changed only by accepting a pending change, changes.ts); it takes the latest
 * last_seen and heartbeat, non-null descriptive fields and the product version, and turns online at its
 * first liveness event. Its heartbeat state (last heartbeat, gaps, learned interval) is what the batch
 * planned (heartbeats.ts) from the row read under its lock.
 */
export async function upsertHosts(c: PoolClient, rows: readonly HostRefresh[]): Promise<void> {
  if (rows.length === 0) return;
  const input = rows.map(({ beat, ...r }) => ({
    ...r,
    last_beat_at: beat?.last_beat_at ?? null,
    beat_gaps: beat?.beat_gaps ?? null,
    beat_interval: beat?.heartbeat_interval_seconds ?? null,
    beat_stored: beat?.stored ?? false,
  }));
  await c.query(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json) AS t(hostname text, display_name text, os_family text, os_version text,
         fqdn text, ipv4 text, ipv6 text, timezone text, product text, product_version text, agent_instance_id text,
         bound_key_id bigint, bound_at timestamptz, first_seen timestamptz, last_seen timestamptz, last_heartbeat timestamptz,
         first_live_at timestamptz, last_beat_at timestamptz, beat_gaps integer[], beat_interval integer, beat_stored boolean))
     INSERT INTO hosts (hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
                        agent_instance_id, bound_key_id, bound_at, first_seen, last_seen, last_heartbeat, status,
                        status_changed_at, internal_address, last_beat_at, beat_gaps, heartbeat_interval_seconds)
     SELECT hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
            agent_instance_id, bound_key_id, bound_at, first_seen, last_seen, last_heartbeat, 'online', first_seen, ipv4,
            last_beat_at, COALESCE(beat_gaps, '{}'), beat_interval
       FROM input
     ON CONFLICT (hostname) DO UPDATE SET
       display_name = COALESCE(EXCLUDED.display_name, hosts.display_name),
       os_version = COALESCE(EXCLUDED.os_version, hosts.os_version),
       ipv6 = COALESCE(EXCLUDED.ipv6, hosts.ipv6),
       timezone = COALESCE(EXCLUDED.timezone, hosts.timezone),
       product_version = EXCLUDED.product_version,
       agent_instance_id = COALESCE(hosts.agent_instance_id, EXCLUDED.agent_instance_id),
       bound_key_id = COALESCE(hosts.bound_key_id, EXCLUDED.bound_key_id),
       bound_at = COALESCE(hosts.bound_at, EXCLUDED.bound_at),
       last_seen = GREATEST(hosts.last_seen, EXCLUDED.last_seen),
       last_heartbeat = CASE WHEN EXCLUDED.last_heartbeat IS NULL THEN hosts.last_heartbeat
                             ELSE GREATEST(hosts.last_heartbeat, EXCLUDED.last_heartbeat) END,
       last_beat_at = GREATEST(hosts.last_beat_at, EXCLUDED.last_beat_at),
       beat_gaps = COALESCE((SELECT i.beat_gaps FROM input i WHERE i.hostname = EXCLUDED.hostname AND i.beat_stored),
                            hosts.beat_gaps),
       heartbeat_interval_seconds = CASE WHEN (SELECT i.beat_stored FROM input i WHERE i.hostname = EXCLUDED.hostname)
                                         THEN EXCLUDED.heartbeat_interval_seconds ELSE hosts.heartbeat_interval_seconds END,
       status = CASE WHEN EXCLUDED.last_heartbeat IS NULL THEN hosts.status ELSE 'online' END,
       status_changed_at = CASE WHEN EXCLUDED.last_heartbeat IS NOT NULL AND hosts.status <> 'online'
                                THEN (SELECT i.first_live_at FROM input i WHERE i.hostname = EXCLUDED.hostname)
                                ELSE hosts.status_changed_at END`,
    [JSON.stringify(input)],
  );
}

/** An inventory snapshot of one host (agent.inventory). */
export interface HostInventory {
  hostname: string;
  hardware: unknown;
  software: unknown;
  at: Date | null;
}

/** Writes inventory snapshots in one UPDATE. */
export async function writeHostInventories(c: PoolClient, rows: readonly HostInventory[]): Promise<void> {
  if (rows.length === 0) return;
  await c.query(
    // The snapshots travel as JSON text so that a JSON null is stored as jsonb null, as before.
    `UPDATE hosts h SET inventory_hardware = u.hardware::jsonb, inventory_software = u.software::jsonb, inventory_at = u.at
       FROM json_to_recordset($1::json) AS u(hostname text, hardware text, software text, at timestamptz)
      WHERE h.hostname = u.hostname`,
    [
      JSON.stringify(
        rows.map((s) => ({
          hostname: s.hostname,
          hardware: JSON.stringify(s.hardware),
          software: JSON.stringify(s.software),
          at: s.at,
        })),
      ),
    ],
  );
}

// --- liveness -------------------------------------------------------------------------------------

/**
 * Hosts silent at `now`: their last sign of life (hostLastAliveSql) is older than their stale threshold
 * (status.ts, the same rule as hostStatusSql), sorted, with that threshold in minutes. `hostname`
 * narrows it to one host (the scan's re-check under the row lock).
 */
export async function silentHostnames(
  db: Db,
  now: Date,
  rule: StaleRule,
  hostname?: string,
): Promise<{ hostname: string; stale_minutes: number }[]> {
  const r = await db.query<{ hostname: string; stale_minutes: number }>(
    `SELECT hostname, round(${hostStaleSecondsSql('$2', 'h')} / 60)::int AS stale_minutes FROM hosts h
      WHERE ${hostLastAliveSql('h')} < $1::timestamptz - make_interval(secs => ${hostStaleSecondsSql('$2', 'h')})
        AND ($3::text IS NULL OR h.hostname = $3)
      ORDER BY hostname`,
    [now, rule, hostname ?? null],
  );
  return r.rows;
}

export async function markHostStale(c: PoolClient, hostname: string, at: Date): Promise<void> {
  await c.query(`UPDATE hosts SET status = 'stale', status_changed_at = $2 WHERE hostname = $1`, [hostname, at]);
}

// --- remote actions -------------------------------------------------------------------------------

/** The pinned SSH host key (SHA-256) of a host, null when none is pinned yet (or no such host). */
export async function pinnedSshHostKey(db: Db, hostId: number): Promise<string | null> {
  const r = await db.query<{ ssh_host_key_sha256: string | null }>('SELECT ssh_host_key_sha256 FROM hosts WHERE id = $1', [
    hostId,
  ]);
  return r.rows[0]?.ssh_host_key_sha256 ?? null;
}

/** Pins the SSH host key seen at the first connection; a key pinned meanwhile is kept. */
export async function pinSshHostKey(db: Db, hostId: number, sha256: string): Promise<void> {
  await db.query('UPDATE hosts SET ssh_host_key_sha256 = $2 WHERE id = $1 AND ssh_host_key_sha256 IS NULL', [hostId, sha256]);
}

/**
 * Forgets the pinned SSH host key (an admin's act, after a host was reinstalled): the next SSH action
 * pins the key it then sees. Returns the key that was pinned (null: none), or null when no such host.
 */
export async function resetSshHostKey(db: Db, hostId: number): Promise<{ hostname: string; previous: string | null } | null> {
  const r = await db.query<{ hostname: string; previous: string | null }>(
    `WITH old AS (SELECT id, ssh_host_key_sha256 FROM hosts WHERE id = $1 FOR UPDATE)
     UPDATE hosts h SET ssh_host_key_sha256 = NULL FROM old WHERE h.id = old.id
     RETURNING h.hostname, old.ssh_host_key_sha256 AS previous`,
    [hostId],
  );
  return r.rows[0] ?? null;
}

/** Records the outcome of an SSH administration check (checked now). */
export async function setSshAdminOk(db: Db, hostId: number, ok: boolean): Promise<void> {
  await db.query('UPDATE hosts SET ssh_admin_ok = $2, ssh_admin_checked_at = now() WHERE id = $1', [hostId, ok]);
}

/** The agent version a remote update read back from the host. */
export async function setHostProductVersion(db: Db, hostId: number, version: string): Promise<void> {
  await db.query('UPDATE hosts SET product_version = $2 WHERE id = $1', [hostId, version]);
}

// --- the API --------------------------------------------------------------------------------------

/** Deletes a host row (the API's host deletion, in its transaction); its hostname, or null when none. */
export async function deleteHostRow(c: PoolClient, id: number): Promise<string | null> {
  const r = await c.query<{ hostname: string }>('DELETE FROM hosts WHERE id = $1 RETURNING hostname', [id]);
  return r.rows[0]?.hostname ?? null;
}

// --- the agent poll (issue 21 item 3) --------------------------------------------------------------

/** What the agent poll reads of a host: its binding (agent key and instance) and the confirmed agent facts. */
export interface HostBinding {
  id: number;
  hostname: string;
  product: string;
  os_family: string;
  /** As stored from the host's events (or read back by a remote update), never what a poll claims. */
  product_version: string;
  /** The bound agent instance (null: the host's agent sent none). */
  agent_instance_id: string | null;
  /** The bound agent key (null: not bound yet, e.g. a host from before the binding). */
  bound_key_id: number | null;
}

/** A host's binding by hostname, null when no such host. */
export async function findHostBinding(db: Db, hostname: string): Promise<HostBinding | null> {
  const r = await db.query<HostBinding>(
    `SELECT id, hostname, product, os_family, product_version, agent_instance_id, bound_key_id FROM hosts WHERE hostname = $1`,
    [hostname],
  );
  return r.rows[0] ?? null;
}

/**
 * Whether an admin confirmed the host's addresses (issue 33): the actions worker sends credentials only to
 * a confirmed host. False for no such host.
 */
export async function isHostConfirmed(db: Db, hostId: number): Promise<boolean> {
  const r = await db.query<{ confirmed: boolean }>('SELECT confirmed_at IS NOT NULL AS confirmed FROM hosts WHERE id = $1', [
    hostId,
  ]);
  return r.rows[0]?.confirmed ?? false;
}

// --- WinRM certificate pinning (issue 21, remote actions) -----------------------------------------
// The SHA-256 of a host's WinRM HTTPS certificate, pinned only when an admin accepts it (issue 33: never
// as a side effect of an action). A certificate that differs, or the first one, leaves a pending
// `winrm_certificate` change showing its fingerprint, subject, issuer and validity; accepting applies
// proposed.cert_sha256.

/** The pinned WinRM certificate (hex SHA-256) of a host, null when none is pinned yet (or no such host). */
export async function pinnedWinrmCertificate(db: Db, hostId: number): Promise<string | null> {
  const r = await db.query<{ winrm_cert_sha256: string | null }>('SELECT winrm_cert_sha256 FROM hosts WHERE id = $1', [hostId]);
  return r.rows[0]?.winrm_cert_sha256 ?? null;
}

/**
 * Pins the certificate when none is pinned yet; true when it is pinned now. A pending change that
 * proposed this very certificate is settled (accepted by `by`).
 */
export async function pinWinrmCertificate(db: Db, hostId: number, sha256: string, by: string): Promise<boolean> {
  const r = await db.query('UPDATE hosts SET winrm_cert_sha256 = $2 WHERE id = $1 AND winrm_cert_sha256 IS NULL', [
    hostId,
    sha256,
  ]);
  if (r.rowCount !== 1) return false;
  await db.query(
    `UPDATE host_changes SET status = 'accepted', decided_by = $3, decided_at = now()
      WHERE host_id = $1 AND kind = 'winrm_certificate' AND status = 'pending' AND proposed->>'cert_sha256' = $2`,
    [hostId, sha256, by],
  );
  return true;
}

/** What an admin checks before accepting a certificate, besides its fingerprint (from the TLS handshake). */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  valid_from: string;
  valid_to: string;
}

/** Records (or refreshes) the pending `winrm_certificate` change of a host: the certificate it presented. */
export async function proposeWinrmCertificate(
  db: Db,
  hostId: number,
  sha256: string,
  pinned: string | null,
  facts?: CertificateFacts,
): Promise<void> {
  const proposed: Record<string, string> = { cert_sha256: sha256 };
  if (facts) {
    proposed.cert_subject = facts.subject.slice(0, 1024);
    proposed.cert_issuer = facts.issuer.slice(0, 1024);
    proposed.cert_valid_from = facts.valid_from.slice(0, 64);
    proposed.cert_valid_to = facts.valid_to.slice(0, 64);
  }
  await db.query(
    `INSERT INTO host_changes (host_id, kind, proposed, current)
     VALUES ($1, 'winrm_certificate', $2::jsonb, jsonb_build_object('cert_sha256', $3::text))
     ON CONFLICT (host_id, kind) WHERE status = 'pending' DO UPDATE
       SET proposed = EXCLUDED.proposed, current = EXCLUDED.current, last_seen = now(),
           seen_count = host_changes.seen_count + 1`,
    [hostId, JSON.stringify(pgSafeJson(proposed)), pinned],
  );
}

// --- the Windows agent's command poll (issue 22) --------------------------------------------------

/**
 * The hosts bound to this agent instance under this key (or bound to the instance with no key yet):
 * the Windows agent polls with its instance id only, no hostname. Usually one; machines cloned with
 * the agent's folder share an instance id, so the caller serves nothing when there are several.
 */
export async function findHostsByAgent(db: Db, keyId: number, agentInstanceId: string): Promise<HostBinding[]> {
  const r = await db.query<HostBinding>(
    `SELECT id, hostname, product, os_family, product_version, agent_instance_id, bound_key_id FROM hosts
      WHERE agent_instance_id = $1 AND (bound_key_id = $2 OR bound_key_id IS NULL) ORDER BY id LIMIT 2`,
    [agentInstanceId, keyId],
  );
  return r.rows;
}
