// Retention of the Postgres tables that grew forever. Each sweep deletes in bounded chunks, so one run
// never holds a long lock or a huge transaction; the scheduler role runs it every hour (one run
// cluster-wide). What is kept, and why, is in the README (configuration) and processors/README.md.
import type { Pool } from '@watchpost/runtime';

export interface RetentionSettings {
  /** Correlate's idempotency ledger: must outlive the longest time Kafka can redeliver an event (topic retention 7 days). */
  ledgerHours: number;
  /** Problem outbox rows already sent to problems.v1. */
  outboxSentDays: number;
  /** Audit log entries. */
  auditDays: number;
  /** Refresh tokens past their expiry or revocation (their session is over), and spent or expired enrollment codes. */
  refreshTokenDays: number;
  /** Notification decisions and their deliveries (and the service's daily reports after a year). */
  notificationDays: number;
}

export interface RetentionResult {
  ledger: number;
  outbox: number;
  audit: number;
  refreshTokens: number;
  enrollmentCodes: number;
  notifications: number;
}

const CHUNK = 10_000;

/** Deletes rows of `table` matching `where` (with $1 = the cutoff), CHUNK at a time, by the key `key`. */
async function sweep(pool: Pool, table: string, key: string, where: string, cutoff: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${CHUNK})`,
      [cutoff],
    );
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < CHUNK) return total;
  }
}

export async function pruneByAge(pool: Pool, s: RetentionSettings, now = new Date()): Promise<RetentionResult> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const day = 86_400_000;
  return {
    ledger: await sweep(pool, 'processed_events', 'event_id', 'processed_at < $1', before(s.ledgerHours * 3_600_000)),
    outbox: await sweep(pool, 'problem_outbox', 'id', 'sent_at < $1', before(s.outboxSentDays * day)),
    audit: await sweep(pool, 'audit_log', 'id', 'at < $1', before(s.auditDays * day)),
    refreshTokens: await sweep(
      pool,
      'refresh_tokens',
      'id',
      '(expires_at < $1 OR revoked_at < $1)',
      before(s.refreshTokenDays * day),
    ),
    enrollmentCodes: await sweep(
      pool,
      'enrollment_codes',
      'id',
      '(expires_at < $1 OR used_at < $1)',
      before(s.refreshTokenDays * day),
    ),
    // Deliveries go with their decision (ON DELETE CASCADE).
    notifications: await sweep(
      pool,
      'notification_decisions',
      'subject_key',
      'created_at < $1',
      before(s.notificationDays * day),
    ),
  };
}
