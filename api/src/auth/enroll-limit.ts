// Enrollment-code guesses (POST /mobile/enroll). The device UUID is the caller's choice, so a limit
// keyed by it alone is no limit: a guesser names a new UUID per guess. Guesses are therefore counted
//   - per (device UUID, address) and per device UUID, as before (3 and 10 in the login window);
//   - per client address: SERVICE_ENROLL_MAX_FAILURES_PER_ADDRESS (10) in the login window, then the
//     address is locked for SERVICE_LOGIN_LOCKOUT_SECONDS. An IPv6 client counts by its /64 (what one
//     subscriber gets, address-key.ts), so walking the interface bits does not help;
//   - across all addresses, the code space: SERVICE_ENROLL_MAX_FAILURES_PER_MINUTE (60) in a minute,
//     then every enrollment waits for the minute to end (429, scope code_space).
// The first three reuse the login limit's atomic reservations (login-limit.ts) in their own key space,
// so enrollment guesses and password guesses from one address do not use up each other's budget.
import type { Redis } from '@watchpost/runtime';
import type { ApiError } from '../errors.ts';
import { addressKey } from './address-key.ts';
import {
  rateLimitedError,
  recordFailure,
  releaseAttempt,
  reserveAttempt,
  type LimitScope,
  type LimitSettings,
  type LimitSubject,
} from './login-limit.ts';

export interface EnrollLimitSettings {
  windowSeconds: number;
  lockoutSeconds: number;
  maxPerDeviceAndAddress: number;
  maxPerDevice: number;
  maxPerAddress: number;
  /** Failed guesses a minute across every address. */
  maxPerMinute: number;
}

/** What a 429 names in details.scope. */
export type EnrollLimitScope = 'pair' | 'device' | 'address' | 'code_space';
const SCOPE_NAMES: Partial<Record<LimitScope, EnrollLimitScope>> = { pair: 'pair', username: 'device', address: 'address' };

const MINUTE_MS = 60_000;

// The code space: attempts counted when reserved (in flight or failed), per fixed minute; a success or
// an attempt that was not evaluated gives its reservation back.
const RESERVE_GLOBAL = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[2]) then
  local t = redis.call('PTTL', KEYS[1])
  if t <= 0 then t = tonumber(ARGV[1]) end
  return t
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0`;
const RELEASE_GLOBAL = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1`;

export type EnrollReservation = { ok: true } | { ok: false; retryAfterSeconds: number; scope: EnrollLimitScope };

/** One enrollment attempt's limits: reserve before the code is checked, then failed or released. */
export class EnrollLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly cfg: EnrollLimitSettings;
  private readonly subject: LimitSubject;

  constructor(redis: Redis, prefix: string, cfg: EnrollLimitSettings, deviceUuid: string, ip: string) {
    this.redis = redis;
    // Its own key space: login-limit names its keys `<prefix>login:...`.
    this.prefix = `${prefix}enroll:`;
    this.cfg = cfg;
    this.subject = { username: `device:${deviceUuid}`, address: addressKey(ip) };
  }

  private get limits(): LimitSettings {
    return {
      loginWindowSeconds: this.cfg.windowSeconds,
      lockoutSeconds: this.cfg.lockoutSeconds,
      maxLoginFailures: this.cfg.maxPerDeviceAndAddress,
      maxFailuresPerUser: this.cfg.maxPerDevice,
      maxFailuresPerAddress: this.cfg.maxPerAddress,
    };
  }

  private get globalKey(): string {
    return `${this.prefix}code-space`;
  }

  async reserve(): Promise<EnrollReservation> {
    const wait = Number(await this.redis.eval(RESERVE_GLOBAL, 1, this.globalKey, MINUTE_MS, this.cfg.maxPerMinute));
    if (wait > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), scope: 'code_space' };
    const r = await reserveAttempt(this.redis, this.prefix, this.subject, this.limits).catch(async (err: unknown) => {
      await this.releaseGlobal().catch(() => {});
      throw err;
    });
    if (r.ok) return r;
    await this.releaseGlobal();
    return { ok: false, retryAfterSeconds: r.retryAfterSeconds, scope: SCOPE_NAMES[r.scope] ?? 'address' };
  }

  /** The reserved guess was wrong: returns the scopes it newly locked ('address' alerts on-call). */
  async failed(): Promise<EnrollLimitScope[]> {
    const locked = await recordFailure(this.redis, this.prefix, this.subject, this.limits);
    return locked.map((s) => SCOPE_NAMES[s] ?? 'address');
  }

  /** Gives the reservation back: an enrollment that succeeded, or an attempt that was not evaluated. */
  async release(succeeded: boolean): Promise<void> {
    await releaseAttempt(this.redis, this.prefix, this.subject, succeeded);
    await this.releaseGlobal();
  }

  private async releaseGlobal(): Promise<void> {
    await this.redis.eval(RELEASE_GLOBAL, 1, this.globalKey);
  }
}

/** The 429 of a refused enrollment, naming its scope. */
export function enrollRateLimitedError(r: { retryAfterSeconds: number; scope: EnrollLimitScope }): ApiError {
  return rateLimitedError(
    r,
    r.scope === 'code_space'
      ? 'too many failed enrollment attempts on this server in the last minute; try again shortly'
      : 'too many failed enrollment attempts; try again later',
  );
}
