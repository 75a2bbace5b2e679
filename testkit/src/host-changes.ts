// Pending host changes as correlate and the actions worker (issue 21) record them, for the tests of the
// admin's side (accept, reject, bulk): a bound host, a pending row per (host, kind) written through
// core's writers (a newer proposal replaces the pending one), and the host_identity_conflict problem
// opened through core's problem store.
import { randomUUID } from 'node:crypto';
import type { Pool } from '@watchpost/runtime';
import {
  findHost,
  HOST_IDENTITY_CONFLICT_TYPE,
  HOST_IDENTITY_RULE,
  fingerprintOf,
  newProblemRow,
  openProblems,
  outboxEntry,
  problemPayload,
  proposeWinrmCertificate,
  upsertHostChanges,
  type HostChangeUpsert,
} from '@watchpost/core';

export interface TestHost {
  hostname: string;
  display_name?: string | null;
  os_family?: string;
  product?: 'ssh-monitor' | 'rdp-login-monitor';
  ipv4?: string | null;
  fqdn?: string | null;
  agent_instance_id?: string | null;
  bound_key_id?: number | null;
  /** An admin accepted its first addresses (default true; correlate creates hosts unconfirmed). */
  confirmed?: boolean;
}

/** A host bound to its agent instance and key, as correlate binds it from its first events (and, by default, confirmed); returns its id. */
export async function insertBoundHost(pg: Pool, h: TestHost): Promise<number> {
  const r = await pg.query<{ id: number }>(
    `INSERT INTO hosts (hostname, display_name, os_family, product, product_version, first_seen, last_seen, ipv4,
                        internal_address, fqdn, agent_instance_id, bound_key_id, bound_at, confirmed_at, confirmed_by)
     VALUES ($1, $2, $3, $4, '1.0.0', now(), now(), $5, $5, $6, $7, $8, CASE WHEN $8::bigint IS NULL THEN NULL ELSE now() END,
             CASE WHEN $9 THEN now() END, CASE WHEN $9 THEN 'test admin' END)
     RETURNING id`,
    [
      h.hostname,
      h.display_name ?? null,
      h.os_family ?? 'linux',
      h.product ?? 'ssh-monitor',
      h.ipv4 ?? null,
      h.fqdn ?? null,
      h.agent_instance_id ?? null,
      h.bound_key_id ?? null,
      h.confirmed ?? true,
    ],
  );
  return Number(r.rows[0]!.id);
}

export interface TestHostChange {
  hostId: number;
  kind: 'facts' | 'identity' | 'winrm_certificate';
  proposed: Record<string, unknown>;
  current?: Record<string, unknown>;
  agent_instance_id?: string | null;
  key_id?: number | null;
}

/**
 * Records a pending change through core's writers, as correlate (facts, identity) and the actions worker
 * (winrm_certificate) do: a newer proposal of the same host and kind replaces the pending one and counts
 * once more. Returns the change's id.
 */
export async function recordPendingChange(pg: Pool, c: TestHostChange): Promise<number> {
  const pendingOf = async () =>
    (
      await pg.query<{ id: number; seen_count: number; first_seen: Date }>(
        `SELECT id, seen_count, first_seen FROM host_changes WHERE host_id = $1 AND kind = $2 AND status = 'pending'`,
        [c.hostId, c.kind],
      )
    ).rows[0];
  if (c.kind === 'winrm_certificate') {
    const current = c.current?.cert_sha256;
    await proposeWinrmCertificate(pg, c.hostId, String(c.proposed.cert_sha256), typeof current === 'string' ? current : null);
  } else {
    const host = await findHost(pg, { id: c.hostId }, ['hostname']);
    if (!host) throw new Error(`no host ${c.hostId}`);
    const prev = await pendingOf();
    const now = new Date();
    const row: HostChangeUpsert = {
      hostname: host.hostname,
      kind: c.kind,
      proposed: c.proposed as HostChangeUpsert['proposed'],
      current: (c.current ?? {}) as HostChangeUpsert['current'],
      agent_instance_id: c.agent_instance_id ?? null,
      key_id: c.key_id ?? null,
      event_id: randomUUID(),
      first_seen: prev?.first_seen ?? now,
      last_seen: now,
      seen_count: (prev?.seen_count ?? 0) + 1,
    };
    const client = await pg.connect();
    try {
      await upsertHostChanges(client, [row]);
    } finally {
      client.release();
    }
  }
  return Number((await pendingOf())!.id);
}

/** Opens a host_identity_conflict problem for the host through core's problem store (with its outbox message); returns its id. */
export async function openIdentityConflict(pg: Pool, hostname: string, details: Record<string, unknown> = {}): Promise<string> {
  const now = new Date();
  const row = newProblemRow({
    id: randomUUID(),
    type: HOST_IDENTITY_CONFLICT_TYPE,
    fingerprint: fingerprintOf(hostname, HOST_IDENTITY_CONFLICT_TYPE, HOST_IDENTITY_RULE),
    host: hostname,
    rule: HOST_IDENTITY_RULE,
    title: `Another agent speaks for ${hostname}`,
    severity: 'high',
    at: now,
    details,
  });
  const c = await pg.connect();
  try {
    await c.query('BEGIN');
    await openProblems(c, [row], [outboxEntry('problem.opened', problemPayload(row), now)]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  } finally {
    c.release();
  }
  return row.id;
}
