// Access tokens: HS256 JWTs with sub (user id), role, tv (the user's token version), sid (the session,
// i.e. refresh-token family), dev (only in a mobile device's token: its device id, which limits the
// token to the mobile surface), iat, exp, iss, aud.
// Verification pins the algorithm, issuer and audience; the claims are then re-checked against the
// users table on every request (access.ts), so a disabled user or a changed role/password is refused at once.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { USER_ROLES, type UserRole } from '../types.ts';

export const JWT_ISSUER = 'watchpost';
export const JWT_AUDIENCE = 'watchpost-api';
export const JWT_ALG = 'HS256';

export interface AccessClaims {
  userId: number;
  role: UserRole;
  tokenVersion: number;
  /** The session (refresh-token family) the token belongs to: logout ends it. */
  sessionId: string;
  /** The mobile device whose session this is: the token is limited to the device scope (access.ts). */
  deviceId?: number | null;
  /** Set when read from a token (its `exp`). */
  expiresAt?: Date;
}

export async function signAccessToken(
  secret: Uint8Array,
  claims: AccessClaims,
  ttlSeconds: number,
  now = new Date(),
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  const device = claims.deviceId == null ? {} : { dev: claims.deviceId };
  return new SignJWT({ role: claims.role, tv: claims.tokenVersion, sid: claims.sessionId, ...device })
    .setProtectedHeader({ alg: JWT_ALG, typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(secret);
}

/** The token's claims, or null for anything not a valid, unexpired token of ours (never throws for bad input). */
export async function verifyAccessToken(secret: Uint8Array, token: string): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: [JWT_ALG],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    const { sub, role, tv, sid, dev, exp } = payload;
    if (typeof sub !== 'string' || !/^[1-9]\d{0,15}$/.test(sub)) return null;
    if (typeof role !== 'string' || !(USER_ROLES as readonly string[]).includes(role)) return null;
    if (typeof tv !== 'number' || !Number.isInteger(tv)) return null;
    if (typeof sid !== 'string' || !/^[0-9a-f-]{36}$/.test(sid)) return null;
    if (dev !== undefined && !(typeof dev === 'number' && Number.isSafeInteger(dev) && dev > 0)) return null;
    return {
      userId: Number(sub),
      role: role as UserRole,
      tokenVersion: tv,
      sessionId: sid,
      deviceId: dev ?? null,
      expiresAt: new Date((exp ?? 0) * 1000),
    };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
    throw err;
  }
}
