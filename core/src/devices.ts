// Mobile devices (api/MOBILE.md): enrollment codes, the device record and its lifecycle (enroll,
// re-enroll reusing the record of the same device UUID, revoke, delete), Web Push subscriptions and
// the VAPID keys. A device's session is a refresh-token family whose rows carry device_id: the API's
// per-request session check then covers devices too.
import { createHash, createPublicKey, randomInt } from 'node:crypto';
import webpush from 'web-push';
import type { Pool, PoolClient } from '@watchpost/runtime';
import { decryptSecret, encryptSecret } from './actions/secrets.ts';

/** Crockford base32 without I, L, O, U: nothing to confuse when typed from a screen (also the recovery codes'). */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 10 symbols = 50 bits, shown as XXXXX-XXXXX. */
export const ENROLLMENT_CODE_PATTERN = '^[0-9A-Za-z]{5}-?[0-9A-Za-z]{5}$';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Upper case, no dash, the look-alikes O->0, I/L->1: what a person typed becomes the code. */
export function normalizeEnrollmentCode(input: string): string {
  return input.toUpperCase().replace(/-/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export function newEnrollmentCode(): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += CROCKFORD_ALPHABET[randomInt(CROCKFORD_ALPHABET.length)];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

export async function issueEnrollmentCode(
  pg: Pool,
  input: { userId: number; createdBy: string; ttlMinutes: number },
): Promise<{ id: number; code: string; expires_at: Date }> {
  const code = newEnrollmentCode();
  const r = await pg.query<{ id: string; expires_at: Date }>(
    `INSERT INTO enrollment_codes (code_hash, user_id, created_by, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(mins => $4)) RETURNING id, expires_at`,
    [sha256Hex(normalizeEnrollmentCode(code)), input.userId, input.createdBy, input.ttlMinutes],
  );
  return { id: Number(r.rows[0]!.id), code, expires_at: r.rows[0]!.expires_at };
}

export interface DeviceRow {
  id: number;
  device_uuid: string;
  name: string;
  platform: string;
  user_id: number;
  username: string;
  role: string;
  created_at: Date;
  enrolled_at: Date;
  enroll_count: number;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
  push_subscriptions: number;
  /** false: signed out (family revoked, session expired, user inactive or password changed); enroll again */
  session_live: boolean;
}

/** The device (d) of an active user (u) holds a refresh token it can still use. */
const LIVE_SESSION = `u.active AND EXISTS (
    SELECT 1 FROM refresh_tokens t WHERE t.device_id = d.id AND t.revoked_at IS NULL AND t.used_at IS NULL
       AND t.expires_at > now() AND t.token_version = u.token_version)`;

const DEVICE_SELECT = `SELECT d.id::int, d.device_uuid, d.name, d.platform, d.user_id::int, u.username, u.role, d.created_at, d.enrolled_at,
         d.enroll_count, d.last_used_at, d.revoked_at, d.revoked_by,
         (SELECT count(*)::int FROM push_subscriptions s WHERE s.device_id = d.id) AS push_subscriptions,
         ${LIVE_SESSION} AS session_live
    FROM devices d JOIN users u ON u.id = d.user_id`;

export type EnrollOutcome =
  | { ok: true; device: { id: number; userId: number; reused: boolean } }
  | { ok: false; reason: 'invalid_code' | 'user_inactive' | 'another_admin' | 'device_of_another_user' };

/**
 * Spends the code (once: concurrent uses of one code find it used) and creates the device, or reuses
 * the record of the same device UUID: its old sessions are revoked, it is un-revoked, and it is bound
 * to the code's user. A device UUID enrolled for another user is refused (a code cannot take over
 * someone else's device record), and so is a code whose user is now an admin other than its issuer
 * (a monitor promoted after the code was issued): a device acts as its issuer or as a monitor.
 */
export async function enrollDevice(
  c: PoolClient,
  input: { code: string; deviceUuid: string; name: string; platform: string },
): Promise<EnrollOutcome> {
  const code = await c.query<{ id: string; user_id: string; created_by: string }>(
    `UPDATE enrollment_codes SET used_at = now()
      WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING id, user_id, created_by`,
    [sha256Hex(normalizeEnrollmentCode(input.code))],
  );
  const row = code.rows[0];
  if (!row) return { ok: false, reason: 'invalid_code' };
  const userId = Number(row.user_id);
  const user = await c.query<{ active: boolean; role: string; username: string }>(
    'SELECT active, role, username FROM users WHERE id = $1',
    [userId],
  );
  if (!user.rows[0]?.active) return { ok: false, reason: 'user_inactive' };
  // created_by is the issuer's username (usernames are never changed).
  if (user.rows[0].role === 'admin' && user.rows[0].username !== row.created_by) return { ok: false, reason: 'another_admin' };
  // A new UUID is inserted; when a concurrent first enrollment of the same UUID wins the unique key
  // (the insert waits for it and gets nothing), this one goes on as a re-enrollment of that record.
  const inserted = await c.query<{ id: string }>(
    `INSERT INTO devices (device_uuid, name, platform, user_id, last_used_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (device_uuid) DO NOTHING RETURNING id`,
    [input.deviceUuid, input.name, input.platform, userId],
  );
  let id: number;
  let reused = false;
  if (inserted.rows[0]) {
    id = Number(inserted.rows[0].id);
  } else {
    const existing = await c.query<{ id: string; user_id: string }>(
      'SELECT id, user_id FROM devices WHERE device_uuid = $1 FOR UPDATE',
      [input.deviceUuid],
    );
    const found = existing.rows[0];
    // deleted meanwhile: the caller tries again
    if (!found) throw new Error('the device record changed during enrollment; try again');
    if (Number(found.user_id) !== userId) return { ok: false, reason: 'device_of_another_user' };
    id = Number(found.id);
    reused = true;
    await c.query(
      `UPDATE devices SET name = $2, platform = $3, enrolled_at = now(), enroll_count = enroll_count + 1,
              revoked_at = NULL, revoked_by = NULL, last_used_at = now() WHERE id = $1`,
      [id, input.name, input.platform],
    );
    await c.query('UPDATE refresh_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL', [id]);
    // A re-enrolled device is a new install: it registers its push subscriptions again.
    await c.query('DELETE FROM push_subscriptions WHERE device_id = $1', [id]);
  }
  await c.query('UPDATE enrollment_codes SET device_id = $2 WHERE id = $1', [row.id, id]);
  return { ok: true, device: { id, userId, reused } };
}

export async function listDevices(pg: Pool): Promise<DeviceRow[]> {
  return (await pg.query<DeviceRow>(`${DEVICE_SELECT} ORDER BY d.revoked_at IS NOT NULL, d.last_used_at DESC NULLS LAST, d.id`))
    .rows;
}

export async function getDevice(pg: Pool, id: number): Promise<DeviceRow | null> {
  return (await pg.query<DeviceRow>(`${DEVICE_SELECT} WHERE d.id = $1`, [id])).rows[0] ?? null;
}

/** Every token of the device refused at once (its families revoked); the record stays, shown revoked. */
export async function revokeDevice(c: PoolClient, id: number, by: string): Promise<boolean> {
  const r = await c.query(
    'UPDATE devices SET revoked_at = COALESCE(revoked_at, now()), revoked_by = COALESCE(revoked_by, $2) WHERE id = $1',
    [id, by],
  );
  await c.query('UPDATE refresh_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL', [id]);
  await c.query('DELETE FROM push_subscriptions WHERE device_id = $1', [id]);
  return (r.rowCount ?? 0) > 0;
}

/** The record, its tokens and subscriptions gone (ON DELETE CASCADE). */
export async function deleteDevice(pg: Pool, id: number): Promise<boolean> {
  return ((await pg.query('DELETE FROM devices WHERE id = $1', [id])).rowCount ?? 0) > 0;
}

/** Marks the device used, at most once a minute (called on authenticated device requests). */
export async function touchDevice(pg: Pool, id: number): Promise<void> {
  await pg.query(
    `UPDATE devices SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * Why the subscription's keys cannot encrypt a push (RFC 8291: p256dh an uncompressed P-256 point,
 * auth 16 bytes), or null. Checked at registration: a bad key would fail every later delivery.
 */
export function pushKeysProblem(keys: PushSubscriptionInput['keys']): string | null {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 0x04) return 'keys.p256dh must be an uncompressed P-256 public key (65 bytes)';
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: p256dh.subarray(1, 33).toString('base64url'),
        y: p256dh.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  } catch {
    return 'keys.p256dh is not a point on the P-256 curve';
  }
  if (Buffer.from(keys.auth, 'base64url').length !== 16) return 'keys.auth must be 16 bytes';
  return null;
}

/**
 * One subscription per endpoint: registering it again from the same device refreshes its keys.
 * Another device's endpoint is not taken over (null).
 */
export async function savePushSubscription(pg: Pool, deviceId: number, s: PushSubscriptionInput): Promise<number | null> {
  const r = await pg.query<{ id: string }>(
    `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4)
     ON CONFLICT (endpoint) DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
       WHERE push_subscriptions.device_id = EXCLUDED.device_id
     RETURNING id`,
    [deviceId, s.endpoint, s.keys.p256dh, s.keys.auth],
  );
  return r.rows[0] ? Number(r.rows[0].id) : null;
}

export async function deletePushSubscription(pg: Pool, deviceId: number, endpoint: string): Promise<boolean> {
  return (
    ((await pg.query('DELETE FROM push_subscriptions WHERE device_id = $1 AND endpoint = $2', [deviceId, endpoint])).rowCount ??
      0) > 0
  );
}

export interface PushTarget {
  id: number;
  device_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * A device that may be pushed to: not revoked, its user active, and a session it can still refresh
 * (a family revoked for a reused refresh token, a password change or an expired session ends the
 * pushes too: they carry event details).
 */
const PUSHABLE = `d.revoked_at IS NULL AND ${LIVE_SESSION}`;

/** Subscriptions of the devices that may be pushed to. */
export async function pushTargets(pg: Pool): Promise<PushTarget[]> {
  return (
    await pg.query<PushTarget>(
      `SELECT s.id::int, s.device_id::int, s.endpoint, s.p256dh, s.auth
         FROM push_subscriptions s JOIN devices d ON d.id = s.device_id JOIN users u ON u.id = d.user_id
        WHERE ${PUSHABLE} ORDER BY s.id`,
    )
  ).rows;
}

export async function countPushDevices(pg: Pool): Promise<number> {
  const r = await pg.query<{ n: number }>(
    `SELECT count(DISTINCT s.device_id)::int AS n FROM push_subscriptions s JOIN devices d ON d.id = s.device_id JOIN users u ON u.id = d.user_id
      WHERE ${PUSHABLE}`,
  );
  return r.rows[0]?.n ?? 0;
}

export async function removePushSubscription(pg: Pool, id: number): Promise<void> {
  await pg.query('DELETE FROM push_subscriptions WHERE id = $1', [id]);
}

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

const VAPID_KEY = 'push.vapid';

/**
 * The VAPID keys: from the environment (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY), else generated once and
 * kept in `settings` (private key encrypted with the secrets key); the first process to get there wins.
 */
export async function loadVapidKeys(
  pg: Pool,
  secretsKey: Buffer,
  env: { publicKey: string | undefined; privateKey: string | undefined; subject: string },
): Promise<VapidKeys> {
  if (env.publicKey && env.privateKey) return { publicKey: env.publicKey, privateKey: env.privateKey, subject: env.subject };
  const read = async () =>
    (
      await pg.query<{ value: { public_key: string; private_key_enc: string } }>('SELECT value FROM settings WHERE key = $1', [
        VAPID_KEY,
      ])
    ).rows[0]?.value;
  let v = await read();
  if (!v) {
    const k = webpush.generateVAPIDKeys();
    await pg.query(`INSERT INTO settings (key, value, updated_by) VALUES ($1, $2, 'system') ON CONFLICT (key) DO NOTHING`, [
      VAPID_KEY,
      JSON.stringify({ public_key: k.publicKey, private_key_enc: encryptSecret(secretsKey, k.privateKey, VAPID_KEY) }),
    ]);
    v = await read();
  }
  return { publicKey: v!.public_key, privateKey: decryptSecret(secretsKey, v!.private_key_enc, VAPID_KEY), subject: env.subject };
}
