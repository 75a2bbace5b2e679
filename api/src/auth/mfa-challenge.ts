// The login's second step. The right password of a user whose second factor is active gives no tokens
// but a challenge: a random 256-bit token, valid MFA_CHALLENGE_SECONDS, that POST /auth/login/mfa
// completes with a TOTP code or a recovery code. Redis keeps only its SHA-256 (with the TTL) and what
// the password step decided: the user and their token version then (a password change meanwhile voids
// the challenge), the limiter subject its codes are counted against, whether the browser cookie flow
// was asked for. A challenge takes at most MFA_MAX_CODE_FAILURES wrong codes and completes once.
import { randomBytes } from 'node:crypto';
import type { Redis } from '@watchpost/runtime';
import type { LimitSubject } from './login-limit.ts';
import { sha256Hex } from './tokens.ts';

export const MFA_CHALLENGE_SECONDS = 300;
/** Wrong codes per challenge; each is also a failed login for the limiter (./login-limit.ts). */
export const MFA_MAX_CODE_FAILURES = 3;
export const MFA_TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';

export interface MfaChallenge {
  userId: number;
  tokenVersion: number;
  subject: LimitSubject;
  refreshCookie: boolean;
  /** How the password step was judged (audit details.trusted). */
  trusted?: 'device_cookie' | 'known_address';
}

const challengeKey = (prefix: string, token: string) => `${prefix}mfa:${sha256Hex(token)}`;

export async function createChallenge(redis: Redis, prefix: string, c: MfaChallenge): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const key = challengeKey(prefix, token);
  await redis.multi().hset(key, 'data', JSON.stringify(c), 'failures', '0').expire(key, MFA_CHALLENGE_SECONDS).exec();
  return token;
}

/** The live challenge of `token`, or null (unknown, expired, completed, or out of tries). */
export async function readChallenge(redis: Redis, prefix: string, token: string): Promise<MfaChallenge | null> {
  const [data, failures] = await redis.hmget(challengeKey(prefix, token), 'data', 'failures');
  if (!data || Number(failures) >= MFA_MAX_CODE_FAILURES) return null;
  return JSON.parse(data) as MfaChallenge;
}

// Only a live key is counted: HINCRBY alone would re-create an expired one without a TTL.
const COUNT_FAILURE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if n >= tonumber(ARGV[1]) then redis.call('DEL', KEYS[1]) end
return n`;

/** Counts a wrong code; the challenge ends with the last allowed one. */
export async function countChallengeFailure(redis: Redis, prefix: string, token: string): Promise<void> {
  await redis.eval(COUNT_FAILURE, 1, challengeKey(prefix, token), MFA_MAX_CODE_FAILURES);
}

/** Ends the challenge; true for the one caller that ended it (a challenge completes once). */
export async function consumeChallenge(redis: Redis, prefix: string, token: string): Promise<boolean> {
  return (await redis.del(challengeKey(prefix, token))) === 1;
}
