// OWASP's device cookies ("Slow Down Online Guessing Attacks with Device Cookies"): a successful login
// gives the browser a signed cookie naming the user. A later login for that user presenting it is
// judged by that cookie's own failure count, not by the per-username lockout, so strangers guessing the
// password elsewhere cannot lock the owner out of a browser they used (api/README.md, Login lockout).
// The cookie is HttpOnly, SameSite=Strict, Secure over https, sent only to the login route; one per
// user (its name is keyed by the user), so a shared browser keeps each user's. Its value is
// `<expiry s>.<nonce>.<HMAC-SHA256(key, user, token version, expiry, nonce)>`: forging or extending one
// needs the key. The user's token version is signed in so that whatever ends all of a user's sessions (a
// password change or reset, a deactivation) ends the trust of their browsers too: a cookie that may have
// been copied along with the old password no longer exempts anyone from the lockout. (Cookies set before
// the version was signed in are refused once: those browsers count as unknown until their next login.)
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const DEVICE_COOKIE_PREFIX = 'watchpost_device_';
/** Only the login needs it. */
export const DEVICE_COOKIE_PATH = '/api/v1/auth/login';

const VALUE = /^(\d{1,12})\.([\w-]{22})\.([\w-]{43})$/;

/** The signing key: derived from the JWT key, so it needs no setting and never signs a token. */
export function deviceCookieKey(jwtSecret: Uint8Array): Buffer {
  return createHmac('sha256', jwtSecret).update('watchpost device cookie v1').digest();
}

/** The cookie's name for `username` (keyed: the names in a browser do not tell which users logged in there). */
export function deviceCookieName(key: Buffer, username: string): string {
  return DEVICE_COOKIE_PREFIX + createHmac('sha256', key).update(`name\n${username}`).digest('hex').slice(0, 16);
}

/** Whose cookie: the username, and the user's token version when it was set. */
export interface CookieOwner {
  username: string;
  tokenVersion: number;
}

function signature(key: Buffer, owner: CookieOwner, expires: string, nonce: string): Buffer {
  return createHmac('sha256', key).update(`device v2\n${owner.username}\n${owner.tokenVersion}\n${expires}\n${nonce}`).digest();
}

/** A new cookie value for `owner`, valid `lifetimeSeconds` from `nowMs`. */
export function deviceCookieValue(key: Buffer, owner: CookieOwner, lifetimeSeconds: number, nowMs = Date.now()): string {
  const expires = String(Math.floor(nowMs / 1000) + lifetimeSeconds);
  const nonce = randomBytes(16).toString('base64url');
  return `${expires}.${nonce}.${signature(key, owner, expires, nonce).toString('base64url')}`;
}

/** The value of cookie `name` in the request's Cookie header, if any. */
function cookieValue(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The id (nonce) of the request's device cookie for `owner` when it is genuine, unexpired and set since
 * the user's last password change; undefined otherwise (none, forged, expired, another user's, or from
 * before the change): the attempt is then an unknown browser's.
 */
export function validDeviceCookie(req: FastifyRequest, key: Buffer, owner: CookieOwner, nowMs = Date.now()): string | undefined {
  const m = VALUE.exec(cookieValue(req, deviceCookieName(key, owner.username)) ?? '');
  if (!m) return undefined;
  const [, expires, nonce, sig] = m as unknown as [string, string, string, string];
  if (Number(expires) * 1000 <= nowMs) return undefined;
  const given = Buffer.from(sig, 'base64url');
  const expected = signature(key, owner, expires, nonce);
  return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : undefined;
}

/** Sets a fresh device cookie for `owner` (a new nonce after every successful login, as OWASP advises). */
export function setDeviceCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  key: Buffer,
  owner: CookieOwner,
  lifetimeSeconds: number,
): void {
  // Secure whenever the client came over https (also behind a trusted proxy), as the refresh cookie.
  const secure = req.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${deviceCookieName(key, owner.username)}=${deviceCookieValue(key, owner, lifetimeSeconds)}; Path=${DEVICE_COOKIE_PATH}; ` +
      `Max-Age=${lifetimeSeconds}; HttpOnly; SameSite=Strict${secure}`,
  );
}
