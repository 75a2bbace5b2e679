// Users in Postgres. Usernames are stored lower-case; `token_version` is bumped whenever a user's
// password is reset or changed, so every token issued before is refused (and every login device cookie:
// api/src/auth/device-cookie.ts signs it with the version).
import { withTransaction, type Pool, type PoolClient } from '@watchpost/runtime';
import { hashPassword } from './passwords.ts';

type Db = Pool | PoolClient;

export const USER_ROLES = ['admin', 'monitor'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A user as requests see it (the API's request.user). */
export interface ApiUser {
  id: number;
  username: string;
  role: UserRole;
}

export interface UserRecord extends ApiUser {
  active: boolean;
  tokenVersion: number;
  /** A second factor (TOTP) is active: login asks for a code (core/src/users/mfa.ts). */
  totpEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._@-]{0,63}$';
const usernameRe = new RegExp(USERNAME_PATTERN);

export function normalizeUsername(name: string): string {
  return name.trim().toLowerCase();
}

export function isValidUsername(name: string): boolean {
  return usernameRe.test(name);
}

const columns = 'id, username, role, active, token_version, totp_enabled_at IS NOT NULL AS totp_enabled, created_at, updated_at';
interface Row {
  id: number;
  username: string;
  role: UserRole;
  active: boolean;
  token_version: number;
  totp_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}
const toRecord = (r: Row): UserRecord => ({
  id: r.id,
  username: r.username,
  role: r.role,
  active: r.active,
  tokenVersion: r.token_version,
  totpEnabled: r.totp_enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function getUserById(db: Db, id: number): Promise<UserRecord | null> {
  const r = await db.query<Row>(`SELECT ${columns} FROM users WHERE id = $1`, [id]);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

export async function getUserByName(db: Db, username: string): Promise<(UserRecord & { passwordHash: string }) | null> {
  const r = await db.query<Row & { password_hash: string }>(`SELECT ${columns}, password_hash FROM users WHERE username = $1`, [
    normalizeUsername(username),
  ]);
  const row = r.rows[0];
  return row ? { ...toRecord(row), passwordHash: row.password_hash } : null;
}

export async function listUsers(db: Db): Promise<UserRecord[]> {
  const r = await db.query<Row>(`SELECT ${columns} FROM users ORDER BY username`);
  return r.rows.map(toRecord);
}

export class UserExistsError extends Error {}
export class InvalidUsernameError extends Error {}

export async function createUser(db: Db, input: { username: string; password: string; role: UserRole }): Promise<UserRecord> {
  const username = normalizeUsername(input.username);
  if (!isValidUsername(username)) throw new InvalidUsernameError(`invalid username "${input.username}"`);
  const hash = await hashPassword(input.password);
  try {
    const r = await db.query<Row>(`INSERT INTO users (username, role, password_hash) VALUES ($1, $2, $3) RETURNING ${columns}`, [
      username,
      input.role,
      hash,
    ]);
    return toRecord(r.rows[0]!);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new UserExistsError(`user "${username}" already exists`);
    throw err;
  }
}

/** Changes role and/or active flag; returns null when the user does not exist. */
/**
 * Changes role and/or active flag. Deactivation ends every session of the user: the token version is
 * bumped and the refresh tokens revoked, so a later reactivation does not bring old tokens back.
 */
export async function updateUser(db: Db, id: number, patch: { role?: UserRole; active?: boolean }): Promise<UserRecord | null> {
  const r = await db.query<Row>(
    `UPDATE users SET role = COALESCE($2, role), active = COALESCE($3, active),
            token_version = token_version + CASE WHEN $3 IS FALSE AND active THEN 1 ELSE 0 END, updated_at = now()
      WHERE id = $1 RETURNING ${columns}`,
    [id, patch.role ?? null, patch.active ?? null],
  );
  if (r.rows[0] && patch.active === false) await revokeSessions(db, id);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** Revokes every refresh token (so every session, browsers' and mobile devices') of a user. */
export async function revokeSessions(db: Db, userId: number): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
}

export interface PasswordChange {
  user: UserRecord;
  /** Other sessions ended: browser sessions (refresh-token families) and mobile devices' sessions. */
  sessions: number;
  devices: number;
}

/**
 * The user's own password change: a new hash and a new token version, so every other session, every
 * mobile device's session and every login device cookie stop working, as after an admin's reset. The
 * session making the change (`keepSessionId`, its refresh-token family) moves to the new version and
 * goes on: its refresh token stays valid and the caller signs it a new access token. Null: no such user.
 */
export async function changeOwnPassword(
  pool: Pool,
  userId: number,
  password: string,
  keepSessionId: string,
): Promise<PasswordChange | null> {
  // Hashed before the transaction: scrypt takes ~0.3 s and must not hold the row lock.
  const hash = await hashPassword(password);
  return withTransaction(pool, async (c) => {
    const r = await c.query<Row>(
      `UPDATE users SET password_hash = $2, token_version = token_version + 1, updated_at = now() WHERE id = $1 RETURNING ${columns}`,
      [userId, hash],
    );
    if (!r.rows[0]) return null;
    const user = toRecord(r.rows[0]);
    const ended = await c.query<{ sessions: number; devices: number }>(
      `WITH ended AS (
         UPDATE refresh_tokens SET revoked_at = now()
          WHERE user_id = $1 AND revoked_at IS NULL AND family_id <> $2::uuid
          RETURNING family_id, device_id, expires_at)
       SELECT count(DISTINCT family_id) FILTER (WHERE device_id IS NULL AND expires_at > now())::int AS sessions,
              count(DISTINCT device_id) FILTER (WHERE expires_at > now())::int AS devices FROM ended`,
      [userId, keepSessionId],
    );
    await c.query(
      'UPDATE refresh_tokens SET token_version = $3 WHERE user_id = $1 AND family_id = $2::uuid AND revoked_at IS NULL',
      [userId, keepSessionId, user.tokenVersion],
    );
    return { user, sessions: ended.rows[0]!.sessions, devices: ended.rows[0]!.devices };
  });
}

/** New password and a new token version: every access and refresh token issued before stops working. */
export async function resetPassword(db: Db, id: number, password: string): Promise<UserRecord | null> {
  const hash = await hashPassword(password);
  const r = await db.query<Row>(
    `UPDATE users SET password_hash = $2, token_version = token_version + 1, updated_at = now() WHERE id = $1 RETURNING ${columns}`,
    [id, hash],
  );
  if (r.rows[0]) await revokeSessions(db, id);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

export async function countUsers(db: Db): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return r.rows[0]!.n;
}

export class LastAdminError extends Error {
  constructor() {
    super('the change would leave no active admin');
    this.name = 'LastAdminError';
  }
}

/**
 * Changes a user's role or active flag, refusing (LastAdminError) a change that leaves no active
 * admin. Null when the user does not exist. The API and the CLI both go through here.
 */
export async function updateUserKeepingAnAdmin(
  pool: Pool,
  id: number,
  patch: { role?: UserRole; active?: boolean },
): Promise<UserRecord | null> {
  return withTransaction(pool, async (c) => {
    // Serialises admin changes so two concurrent demotions cannot both pass the last-admin check.
    await c.query("SELECT pg_advisory_xact_lock(hashtext('watchpost.users.admins'))");
    const u = await updateUser(c, id, patch);
    if (!u) return null;
    const admins = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND active");
    if (admins.rows[0]!.n === 0) throw new LastAdminError();
    return u;
  });
}

export interface RemovedUser {
  user: UserRecord;
  /** Refresh-token families (browser and device sessions) that were still live. */
  sessions: number;
  /** Mobile devices enrolled for the user (deleted with their sessions and push subscriptions). */
  devices: number;
}

/**
 * Removes a user for good, refusing (LastAdminError) to remove the last active admin; null when the
 * user does not exist. Sessions, devices and enrollment codes go with the row (ON DELETE CASCADE), so
 * every token of the user is refused at once; history keeps the name: audit entries, acknowledged_by,
 * revoked_by and the like are text, not references. The API and the CLI both go through here.
 */
export async function removeUserKeepingAnAdmin(pool: Pool, id: number): Promise<RemovedUser | null> {
  return withTransaction(pool, async (c) => {
    // The same lock as role and active changes: a removal and a demotion cannot both pass the check.
    await c.query("SELECT pg_advisory_xact_lock(hashtext('watchpost.users.admins'))");
    const r = await c.query<Row>(`SELECT ${columns} FROM users WHERE id = $1 FOR UPDATE`, [id]);
    if (!r.rows[0]) return null;
    const user = toRecord(r.rows[0]);
    if (user.role === 'admin' && user.active) {
      const others = await c.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND active AND id <> $1",
        [id],
      );
      if (others.rows[0]!.n === 0) throw new LastAdminError();
    }
    const counts = await c.query<{ sessions: number; devices: number }>(
      `SELECT (SELECT count(DISTINCT family_id)::int FROM refresh_tokens
                WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()) AS sessions,
              (SELECT count(*)::int FROM devices WHERE user_id = $1) AS devices`,
      [id],
    );
    await c.query('DELETE FROM users WHERE id = $1', [id]);
    return { user, sessions: counts.rows[0]!.sessions, devices: counts.rows[0]!.devices };
  });
}
