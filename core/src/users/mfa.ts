// A user's second factor in Postgres (migration 1000000004300): the TOTP secret encrypted with the
// secrets key, the last time step a code was accepted for (replay protection), and single-use
// recovery codes stored as SHA-256. Enrolment is two steps (start shows the secret once, confirm with
// a current code activates it) so nobody ends up with a factor their app does not produce.
import { withTransaction, type Pool, type PoolClient } from '@watchpost/runtime';
import { decryptSecret, encryptSecret } from '../actions/secrets.ts';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStepOf, totpUri } from './totp.ts';

type Db = Pool | PoolClient;

/** Binds a stored secret to its user: a ciphertext copied onto another user's row does not decrypt. */
const secretAad = (userId: number) => `users.totp_secret:${userId}`;

export interface TotpState {
  enabled: boolean;
  enabledAt: Date | null;
  /** An enrolment was started and not confirmed. */
  pending: boolean;
  recoveryCodesLeft: number;
}

export async function totpState(db: Db, userId: number): Promise<TotpState | null> {
  const r = await db.query<{ enabled_at: Date | null; pending: boolean; codes_left: number }>(
    `SELECT totp_enabled_at AS enabled_at, totp_secret_enc IS NOT NULL AND totp_enabled_at IS NULL AS pending,
            (SELECT count(*)::int FROM user_recovery_codes c WHERE c.user_id = u.id AND c.used_at IS NULL) AS codes_left
       FROM users u WHERE id = $1`,
    [userId],
  );
  const row = r.rows[0];
  if (!row) return null;
  return { enabled: row.enabled_at !== null, enabledAt: row.enabled_at, pending: row.pending, recoveryCodesLeft: row.codes_left };
}

export type StartOutcome = { ok: true; secret: string; uri: string } | { ok: false; reason: 'already_enabled' | 'no_user' };

/**
 * Starts (or starts over) an enrolment: a new secret, stored encrypted, not active yet. Refused while
 * a factor is active: replacing it takes a disable first (password and code).
 */
export async function startTotpEnrolment(db: Db, key: Buffer, user: { id: number; username: string }): Promise<StartOutcome> {
  const secret = newTotpSecret();
  const r = await db.query<{ enabled: boolean }>(
    `UPDATE users SET totp_secret_enc = CASE WHEN totp_enabled_at IS NULL THEN $2 ELSE totp_secret_enc END,
            totp_last_step = CASE WHEN totp_enabled_at IS NULL THEN NULL ELSE totp_last_step END
      WHERE id = $1 RETURNING totp_enabled_at IS NOT NULL AS enabled`,
    [user.id, encryptSecret(key, secret, secretAad(user.id))],
  );
  if (!r.rows[0]) return { ok: false, reason: 'no_user' };
  if (r.rows[0].enabled) return { ok: false, reason: 'already_enabled' };
  return { ok: true, secret, uri: totpUri(secret, user.username) };
}

export type ConfirmOutcome =
  { ok: true; recoveryCodes: string[] } | { ok: false; reason: 'already_enabled' | 'not_started' | 'invalid_code' };

/** Activates the pending secret when `code` is right now; answers the recovery codes (shown once). */
export function confirmTotpEnrolment(
  pool: Pool,
  key: Buffer,
  userId: number,
  code: string,
  nowMs = Date.now(),
): Promise<ConfirmOutcome> {
  return withTransaction(pool, async (c) => {
    const r = await c.query<{ secret: string | null; enabled: boolean }>(
      'SELECT totp_secret_enc AS secret, totp_enabled_at IS NOT NULL AS enabled FROM users WHERE id = $1 FOR UPDATE',
      [userId],
    );
    const row = r.rows[0];
    if (row?.enabled) return { ok: false, reason: 'already_enabled' };
    if (!row?.secret) return { ok: false, reason: 'not_started' };
    const step = totpStepOf(decryptSecret(key, row.secret, secretAad(userId)), code, nowMs);
    if (step === null) return { ok: false, reason: 'invalid_code' };
    // The confirming code counts as used: it cannot log in afterwards.
    await c.query('UPDATE users SET totp_enabled_at = now(), totp_last_step = $2 WHERE id = $1', [userId, step]);
    const codes = newRecoveryCodes();
    await c.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
    await c.query('INSERT INTO user_recovery_codes (user_id, code_hash) SELECT $1::bigint, unnest($2::text[])', [
      userId,
      codes.map(recoveryCodeHash),
    ]);
    return { ok: true, recoveryCodes: codes };
  });
}

export type CodeOutcome = { ok: true } | { ok: false; reason: 'invalid' | 'replayed' | 'not_enabled' };

/**
 * Checks a TOTP code of an active factor and spends its time step in the same statement: of two
 * requests with one code (or a code older than one already used) only the first is accepted.
 */
export async function verifyTotpCode(
  db: Db,
  key: Buffer,
  userId: number,
  code: string,
  nowMs = Date.now(),
): Promise<CodeOutcome> {
  const r = await db.query<{ secret: string }>(
    'SELECT totp_secret_enc AS secret FROM users WHERE id = $1 AND totp_enabled_at IS NOT NULL',
    [userId],
  );
  if (!r.rows[0]) return { ok: false, reason: 'not_enabled' };
  const step = totpStepOf(decryptSecret(key, r.rows[0].secret, secretAad(userId)), code, nowMs);
  if (step === null) return { ok: false, reason: 'invalid' };
  const spent = await db.query(
    `UPDATE users SET totp_last_step = $2
      WHERE id = $1 AND totp_enabled_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $2)`,
    [userId, step],
  );
  return spent.rowCount === 1 ? { ok: true } : { ok: false, reason: 'replayed' };
}

export type RecoveryOutcome = { ok: true; left: number } | { ok: false; reason: 'invalid' | 'not_enabled' };

/** Spends a recovery code of an active factor (once: a second use finds it used). */
export async function useRecoveryCode(db: Db, userId: number, code: string): Promise<RecoveryOutcome> {
  const r = await db.query<{ enabled: boolean; spent: boolean; codes_left: number }>(
    `WITH spent AS (
       UPDATE user_recovery_codes c SET used_at = now()
         FROM users u
        WHERE c.user_id = $1 AND u.id = c.user_id AND u.totp_enabled_at IS NOT NULL AND c.code_hash = $2 AND c.used_at IS NULL
        RETURNING c.id)
     SELECT u.totp_enabled_at IS NOT NULL AS enabled, EXISTS (SELECT 1 FROM spent) AS spent,
            (SELECT count(*)::int FROM user_recovery_codes c WHERE c.user_id = $1 AND c.used_at IS NULL) - (SELECT count(*)::int FROM spent) AS codes_left
       FROM users u WHERE u.id = $1`,
    [userId, recoveryCodeHash(code)],
  );
  const row = r.rows[0];
  if (!row?.enabled) return { ok: false, reason: 'not_enabled' };
  return row.spent ? { ok: true, left: row.codes_left } : { ok: false, reason: 'invalid' };
}

/**
 * Removes every user's factor: a restore without the backup's secrets key (ops/src/backup/restore.ts)
 * cannot decrypt them, and a factor that cannot be checked would lock its user out. Answers the users.
 */
export async function removeEveryTotp(db: Db): Promise<string[]> {
  const r = await db.query<{ username: string }>(
    `WITH codes AS (DELETE FROM user_recovery_codes)
     UPDATE users SET totp_secret_enc = NULL, totp_enabled_at = NULL, totp_last_step = NULL
      WHERE totp_secret_enc IS NOT NULL RETURNING username`,
  );
  return r.rows.map((x) => x.username).sort();
}

/** Removes the factor and its recovery codes (the user's own disable, or an admin's reset). False: none was active or pending. */
export async function removeTotp(db: Db, userId: number): Promise<boolean> {
  // One statement: the codes never outlive the factor.
  const r = await db.query(
    `WITH codes AS (DELETE FROM user_recovery_codes WHERE user_id = $1)
     UPDATE users SET totp_secret_enc = NULL, totp_enabled_at = NULL, totp_last_step = NULL
      WHERE id = $1 AND totp_secret_enc IS NOT NULL`,
    [userId],
  );
  return r.rowCount === 1;
}
