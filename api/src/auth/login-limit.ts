// Login rate limit in Redis. Failed logins are counted per username and per client address in a
// fixed window (auth.loginWindowSeconds, default 15 min) that starts at the first failure. The
// maxLoginFailures-th failure (3) locks that username and/or address for auth.lockoutSeconds (default
// 15 min): every login for it then gets 429 with Retry-After, even with the right password, until the
// lock expires. A successful login clears the username's counter (not the address's).
import type { Redis } from '@watchpost/runtime';
import { createHash } from 'node:crypto';

export interface LimitSettings {
  loginWindowSeconds: number;
  lockoutSeconds: number;
  maxLoginFailures: number;
}

export interface LimitSubject {
  username: string;
  address: string;
}

// Hashing keeps arbitrary user input (any length, any bytes) out of the key names.
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

function keys(prefix: string, s: LimitSubject) {
  return {
    failUser: `${prefix}login:fail:u:${h(s.username)}`,
    failAddr: `${prefix}login:fail:a:${h(s.address)}`,
    lockUser: `${prefix}login:lock:u:${h(s.username)}`,
    lockAddr: `${prefix}login:lock:a:${h(s.address)}`,
  };
}

/** Seconds until the login may be tried again, or 0 when not locked. */
export async function lockedFor(redis: Redis, prefix: string, s: LimitSubject): Promise<number> {
  const k = keys(prefix, s);
  const [u, a] = await Promise.all([redis.pttl(k.lockUser), redis.pttl(k.lockAddr)]);
  const ms = Math.max(u, a, 0);
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

export interface FailureOutcome {
  /** Which subjects this failure newly locked (empty when no limit was hit now). */
  locked: ('username' | 'address')[];
}

export async function recordFailure(redis: Redis, prefix: string, s: LimitSubject, cfg: LimitSettings): Promise<FailureOutcome> {
  const k = keys(prefix, s);
  const res = await redis
    .multi()
    .incr(k.failUser)
    .expire(k.failUser, cfg.loginWindowSeconds, 'NX')
    .incr(k.failAddr)
    .expire(k.failAddr, cfg.loginWindowSeconds, 'NX')
    .exec();
  if (!res) throw new Error('login limit transaction aborted');
  const userCount = Number(res[0]![1]);
  const addrCount = Number(res[2]![1]);
  const locked: FailureOutcome['locked'] = [];
  const lockMs = cfg.lockoutSeconds * 1000;
  if (userCount >= cfg.maxLoginFailures) {
    // NX: only the failure that creates the lock reports it (one alert per lockout).
    if ((await redis.set(k.lockUser, '1', 'PX', lockMs, 'NX')) === 'OK') locked.push('username');
    await redis.del(k.failUser);
  }
  if (addrCount >= cfg.maxLoginFailures) {
    if ((await redis.set(k.lockAddr, '1', 'PX', lockMs, 'NX')) === 'OK') locked.push('address');
    await redis.del(k.failAddr);
  }
  return { locked };
}

export async function recordSuccess(redis: Redis, prefix: string, s: LimitSubject): Promise<void> {
  await redis.del(keys(prefix, s).failUser);
}

/** BullMQ job id of the chat alert: the same lockout always maps to the same id (no duplicate alerts). */
export function rateLimitJobId(s: LimitSubject, lockedAtMs: number, lockoutSeconds: number): string {
  const period = Math.floor(lockedAtMs / (lockoutSeconds * 1000));
  return `login_rate_limited-${h(`${s.username}\n${s.address}`)}-${period}`;
}
