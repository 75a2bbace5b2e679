// Issuing and rotating tokens. Access: short-lived JWT (auth.accessTtlSeconds, default 15 min).
// Refresh: opaque 256-bit random string, stored as sha256 hex, valid auth.refreshTtlSeconds
// (default 30 days), rotated on every use; presenting a spent one again revokes its whole family
// (the legitimate holder and the thief are both logged out).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { withTransaction } from '@watchpost/runtime';
import type { Pool, PoolClient } from '@watchpost/runtime';
import type { ApiUser, AuthSettings, UserRole } from '../types.ts';
import { signAccessToken } from './jwt.ts';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  /** Seconds until the access token expires. */
  expires_in: number;
  refresh_expires_in: number;
}

export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

async function insertRefreshToken(
  db: PoolClient | Pool,
  userId: number,
  tokenVersion: number,
  session: Session,
  auth: AuthSettings,
) {
  const token = randomBytes(32).toString('base64url');
  // A refresh token never outlives its session's absolute lifetime.
  await db.query(
    `INSERT INTO refresh_tokens (token_hash, user_id, family_id, token_version, session_started_at, expires_at, device_id)
     VALUES ($1, $2, $3, $4, $5, LEAST(now() + make_interval(secs => $6), $5::timestamptz + make_interval(secs => $7)), $8)`,
    [
      sha256Hex(token),
      userId,
      session.familyId,
      tokenVersion,
      session.startedAt,
      auth.refreshTtlSeconds,
      auth.sessionMaxSeconds,
      session.deviceId ?? null,
    ],
  );
  return token;
}

/** A refresh-token family; a mobile device's session carries its device id. */
interface Session {
  familyId: string;
  startedAt: Date;
  deviceId?: number | null;
}

async function pair(
  db: PoolClient | Pool,
  auth: AuthSettings,
  user: { id: number; role: UserRole; tokenVersion: number },
  session: Session,
) {
  const refresh = await insertRefreshToken(db, user.id, user.tokenVersion, session, auth);
  const access = await signAccessToken(
    auth.jwtSecret,
    // A device's token names its device: the device scope travels in the token as well as in the session row.
    {
      userId: user.id,
      role: user.role,
      tokenVersion: user.tokenVersion,
      sessionId: session.familyId,
      deviceId: session.deviceId ?? null,
    },
    auth.accessTtlSeconds,
  );
  return {
    access_token: access,
    refresh_token: refresh,
    token_type: 'Bearer' as const,
    expires_in: auth.accessTtlSeconds,
    refresh_expires_in: auth.refreshTtlSeconds,
  };
}

/**
 * A new access token for a browser session that goes on under a new token version (the user's own
 * password change moved its refresh token to that version: core's changeOwnPassword).
 */
export async function sessionAccessToken(
  auth: AuthSettings,
  user: { id: number; role: UserRole; tokenVersion: number },
  sessionId: string,
): Promise<Pick<TokenPair, 'access_token' | 'token_type' | 'expires_in'>> {
  const access = await signAccessToken(
    auth.jwtSecret,
    { userId: user.id, role: user.role, tokenVersion: user.tokenVersion, sessionId, deviceId: null },
    auth.accessTtlSeconds,
  );
  return { access_token: access, token_type: 'Bearer', expires_in: auth.accessTtlSeconds };
}

/** A new session (a new refresh-token family) for a user who just logged in, or for an enrolled device. */
export function issueSession(
  db: Pool | PoolClient,
  auth: AuthSettings,
  user: { id: number; role: UserRole; tokenVersion: number },
  deviceId?: number,
): Promise<TokenPair> {
  return pair(db, auth, user, { familyId: randomUUID(), startedAt: new Date(), deviceId: deviceId ?? null });
}

export type RefreshOutcome =
  | { ok: true; tokens: TokenPair; user: ApiUser }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'user_invalid'; userId?: number };

/**
 * Rotates a refresh token. Row lock on the token: two concurrent uses count as a reuse. A device's
 * token locks the device row first, in the order revoke and re-enroll take them (device, then
 * tokens): a revoke running meanwhile waits and then sees the successor, or this sees the revoke.
 */
export function rotateRefreshToken(pool: Pool, auth: AuthSettings, token: string): Promise<RefreshOutcome> {
  return withTransaction(pool, async (c) => {
    const owner = await c.query<{ device_id: string | null; user_id: number }>(
      'SELECT device_id, user_id FROM refresh_tokens WHERE token_hash = $1',
      [sha256Hex(token)],
    );
    const deviceId = owner.rows[0]?.device_id;
    if (deviceId != null) {
      const d = await c.query('SELECT 1 FROM devices WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [deviceId]);
      if (d.rowCount === 0) return { ok: false, reason: 'revoked', userId: owner.rows[0]!.user_id };
    }
    const r = await c.query<{
      id: number;
      user_id: number;
      family_id: string;
      token_version: number;
      session_started_at: Date;
      device_id: string | null;
      expired: boolean;
      used_at: Date | null;
      revoked_at: Date | null;
    }>(
      `SELECT id, user_id, family_id, token_version, session_started_at, device_id, expires_at <= now() AS expired, used_at, revoked_at
         FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
      [sha256Hex(token)],
    );
    const row = r.rows[0];
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked_at) return { ok: false, reason: 'revoked', userId: row.user_id };
    if (row.used_at) {
      await c.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [row.family_id]);
      return { ok: false, reason: 'reused', userId: row.user_id };
    }
    if (row.expired) return { ok: false, reason: 'expired', userId: row.user_id };
    const u = await c.query<{ id: number; username: string; role: UserRole; active: boolean; token_version: number }>(
      'SELECT id, username, role, active, token_version FROM users WHERE id = $1',
      [row.user_id],
    );
    const user = u.rows[0];
    if (!user || !user.active || user.token_version !== row.token_version) {
      await c.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [row.family_id]);
      return { ok: false, reason: 'user_invalid', userId: row.user_id };
    }
    await c.query('UPDATE refresh_tokens SET used_at = now() WHERE id = $1', [row.id]);
    // The new access token carries the user's current role (a role change takes effect at refresh).
    const tokens = await pair(
      c,
      auth,
      { id: user.id, role: user.role, tokenVersion: user.token_version },
      {
        familyId: row.family_id,
        startedAt: row.session_started_at,
        deviceId: row.device_id === null ? null : Number(row.device_id),
      },
    );
    return { ok: true, tokens, user: { id: user.id, username: user.username, role: user.role } };
  });
}

/** Logout: revokes the family of the given refresh token. Unknown tokens are ignored. */
export async function revokeFamilyOf(pool: Pool, token: string): Promise<number | null> {
  const r = await pool.query<{ user_id: number }>(
    `UPDATE refresh_tokens SET revoked_at = now()
      WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $1) AND revoked_at IS NULL
      RETURNING user_id`,
    [sha256Hex(token)],
  );
  return r.rows[0]?.user_id ?? null;
}
