// Login rate limit in Redis. Every login attempt is RESERVED atomically (one Lua script) before its
// password is verified, so however many requests arrive at once, at most `maxLoginFailures` (3, the
// spec) guesses per (username, client address) are ever evaluated in a counting window
// (auth.loginWindowSeconds, default 15 min, from the first attempt). Wider limits stop spraying without
// letting one person's typos lock out others behind the same address: per username across all
// addresses (auth.maxFailuresPerUser, default 10) and per address across all usernames
// (auth.maxFailuresPerAddress, default 30). When a scope reaches its limit it is locked for
// auth.lockoutSeconds (default 15 min): every attempt in it gets 429 with Retry-After, even with the
// right password. A successful login releases its own reservation and clears the (username, address)
// count.
//
// Strangers must not lock the owner out (OWASP device cookies, ./device-cookie.ts): an attempt that
// presents a valid device cookie for its username is judged by that cookie's own count alone
// (maxFailuresPerDevice, then only that cookie is locked); an attempt from an address where the user
// logged in successfully recently (the last few, in Redis) is not subject to the per-username lock.
// Every other attempt (an unknown browser at an unknown address) is limited as above.
//
// "Address" is the client address as counted (address-key.ts): IPv4 (also IPv4-mapped) by the address,
// IPv6 by its /64, since one subscriber may use any of its 2^64 addresses per request. The counters,
// locks, known addresses and alert ids use that key; the audit log and the alert show the real address.
import type { Queue } from 'bullmq';
import type { Redis } from '@watchpost/runtime';
import { LOGIN_RATE_LIMITED_JOB, type LoginRateLimitedJob } from '@watchpost/schemas';
import { ApiError } from '../errors.ts';
import { createHash } from 'node:crypto';
import { addressKey } from './address-key.ts';

export interface LimitSettings {
  loginWindowSeconds: number;
  lockoutSeconds: number;
  /** Per (username, address): the spec's 3. */
  maxLoginFailures: number;
  maxFailuresPerUser: number;
  maxFailuresPerAddress: number;
  /** Per device cookie (default: maxLoginFailures). */
  maxFailuresPerDevice?: number;
}

export interface LimitSubject {
  username: string;
  address: string;
  /** The id of a valid device cookie for this username: the attempt is judged by that cookie alone. */
  device?: string;
  /** The username logged in successfully from this address recently: the per-username lock does not apply. */
  knownAddress?: boolean;
}

export const LIMIT_SCOPES = ['pair', 'username', 'address', 'device'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

// Hashing keeps arbitrary user input (any length, any bytes) out of the key names.
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** The scopes an attempt is counted and judged in. */
export function scopesOf(s: LimitSubject): LimitScope[] {
  if (s.device !== undefined) return ['device'];
  if (s.knownAddress) return ['pair', 'address'];
  return ['pair', 'username', 'address'];
}

const SCOPE_KEY: Record<LimitScope, (s: LimitSubject) => [tag: string, id: string]> = {
  pair: (s) => ['p', h(`${s.username}\n${addressKey(s.address)}`)],
  username: (s) => ['u', h(s.username)],
  address: (s) => ['a', h(addressKey(s.address))],
  device: (s) => ['d', h(`${s.username}\n${s.device ?? ''}`)],
};

/** KEYS: the scopes' counters, then their locks, in the same order. */
function keys(prefix: string, s: LimitSubject, scopes: LimitScope[]): string[] {
  const ids = scopes.map((scope) => SCOPE_KEY[scope](s));
  return [
    ...ids.map(([tag, id]) => `${prefix}login:try:${tag}:${id}`),
    ...ids.map(([tag, id]) => `${prefix}login:lock:${tag}:${id}`),
  ];
}

function limits(cfg: LimitSettings, scopes: LimitScope[]): number[] {
  const of: Record<LimitScope, number> = {
    pair: cfg.maxLoginFailures,
    username: cfg.maxFailuresPerUser,
    address: cfg.maxFailuresPerAddress,
    device: cfg.maxFailuresPerDevice ?? cfg.maxLoginFailures,
  };
  return scopes.map((s) => of[s]);
}

// A lock wins; then a scope whose counted attempts (failed or still being verified) reached its limit
// refuses without a lock yet (concurrent attempts); otherwise every counter takes this attempt.
const RESERVE = `
local n = #KEYS / 2
for i = 1, n do
  local t = redis.call('PTTL', KEYS[n + i])
  if t > 0 then return {0, t, i} end
end
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c >= tonumber(ARGV[i + 1]) then
    local t = redis.call('PTTL', KEYS[i])
    if t <= 0 then t = tonumber(ARGV[1]) end
    return {0, t, i}
  end
end
for i = 1, n do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return {1, 0, 0}`;

// After a failed verification: each scope that reached its limit is locked (NX: the failure that
// creates the lock is the one that reports it, so one alert per lock) and its counter starts over.
const FAILED = `
local n = #KEYS / 2
local locked = {}
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c >= tonumber(ARGV[i + 1]) then
    if redis.call('SET', KEYS[n + i], '1', 'PX', ARGV[1], 'NX') then table.insert(locked, i) end
    redis.call('DEL', KEYS[i])
  end
end
return locked`;

// A success or an attempt that was not evaluated gives its reservation back; ARGV[i] = '1' clears
// counter i (on success: the pair's and the device cookie's, the user knows the password).
const RELEASE = `
local n = #KEYS / 2
for i = 1, n do
  if ARGV[i] == '1' then redis.call('DEL', KEYS[i])
  elseif tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 1`;

export type Reservation = { ok: true } | { ok: false; retryAfterSeconds: number; scope: LimitScope };

/** Reserves one attempt, or says for how long this login is refused and by which scope. */
export async function reserveAttempt(redis: Redis, prefix: string, s: LimitSubject, cfg: LimitSettings): Promise<Reservation> {
  const scopes = scopesOf(s);
  const k = keys(prefix, s, scopes);
  const r = (await redis.eval(RESERVE, k.length, ...k, cfg.loginWindowSeconds * 1000, ...limits(cfg, scopes))) as number[];
  if (r[0] === 1) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Number(r[1]) / 1000)), scope: scopes[Number(r[2]) - 1]! };
}

/** Records that the reserved attempt failed; returns the scopes this failure newly locked. */
export async function recordFailure(redis: Redis, prefix: string, s: LimitSubject, cfg: LimitSettings): Promise<LimitScope[]> {
  const scopes = scopesOf(s);
  const k = keys(prefix, s, scopes);
  const r = (await redis.eval(FAILED, k.length, ...k, cfg.lockoutSeconds * 1000, ...limits(cfg, scopes))) as number[];
  return r.map((i) => scopes[i - 1]!);
}

/**
 * Gives a reserved attempt back: `succeeded` also clears the (username, address) and device cookie counts.
 * When Redis fails to answer now (a failover, a restart), the release is retried in the background for a
 * minute and the error still thrown: a reservation never given back counts like a failed guess, and three
 * of them lock the right password out for the lockout time (seen in the Sentinel failover test). A retry
 * after a release that did run but whose answer was lost gives back one attempt more (the count never goes
 * below 0): one extra guess, against a locked-out owner.
 */
export async function releaseAttempt(redis: Redis, prefix: string, s: LimitSubject, succeeded: boolean): Promise<void> {
  const scopes = scopesOf(s);
  const k = keys(prefix, s, scopes);
  const clear = scopes.map((scope) => (succeeded && (scope === 'pair' || scope === 'device') ? '1' : '0'));
  const release = () => redis.eval(RELEASE, k.length, ...k, ...clear);
  try {
    await release();
  } catch (err) {
    retryInBackground(release, Date.now() + RELEASE_RETRY_FOR_MS);
    throw err;
  }
}

const RELEASE_RETRY_EVERY_MS = 500;
const RELEASE_RETRY_FOR_MS = 60_000;

function retryInBackground(run: () => Promise<unknown>, until: number): void {
  setTimeout(() => {
    run().catch(() => {
      if (Date.now() < until) retryInBackground(run, until);
    });
  }, RELEASE_RETRY_EVERY_MS).unref();
}

export interface KnownAddressSettings {
  /** How many of a user's latest successful addresses are remembered (0: none). */
  knownAddresses: number;
  /** For how long. */
  knownAddressSeconds: number;
}

const knownKey = (prefix: string, username: string) => `${prefix}login:known:${h(username)}`;

/** True when `s.username` logged in successfully from `s.address` within the remembered ones. */
export async function isKnownAddress(redis: Redis, prefix: string, s: LimitSubject, cfg: KnownAddressSettings): Promise<boolean> {
  if (cfg.knownAddresses <= 0) return false;
  const at = await redis.zscore(knownKey(prefix, s.username), h(addressKey(s.address)));
  return at !== null && Number(at) > Date.now() - cfg.knownAddressSeconds * 1000;
}

/** Remembers a successful login's address: the newest `knownAddresses` within the period are kept. */
export async function rememberAddress(redis: Redis, prefix: string, s: LimitSubject, cfg: KnownAddressSettings): Promise<void> {
  if (cfg.knownAddresses <= 0) return;
  const key = knownKey(prefix, s.username);
  const now = Date.now();
  await redis
    .multi()
    .zadd(key, now, h(addressKey(s.address)))
    .zremrangebyscore(key, '-inf', now - cfg.knownAddressSeconds * 1000)
    .zremrangebyrank(key, 0, -(cfg.knownAddresses + 1))
    .pexpire(key, cfg.knownAddressSeconds * 1000)
    .exec();
}

/** BullMQ job id of the chat alert: the same lockout always maps to the same id (no duplicate alerts). */
export function rateLimitJobId(s: LimitSubject, lockedAtMs: number, lockoutSeconds: number): string {
  const period = Math.floor(lockedAtMs / (lockoutSeconds * 1000));
  return `login_rate_limited-${h(`${s.username}\n${addressKey(s.address)}`)}-${period}`;
}

/** The 429 answer of a refused reservation (login or device enrollment). */
export function rateLimitedError(r: { retryAfterSeconds: number; scope: string }, message: string): ApiError {
  return new ApiError(
    429,
    'RATE_LIMITED',
    message,
    { retry_after: r.retryAfterSeconds, scope: r.scope },
    { 'retry-after': String(r.retryAfterSeconds) },
  );
}

/**
 * The chat alert of a lockout (authentication rule 5), once per lockout: logins and enrollment-code
 * guesses alike. The notify role decides it with the policy, caps how many reach chat
 * (NOTIFY_LOCKOUT_ALERTS_MAX per window) and queues its deliveries (processors/src/notify/lockout.ts).
 * Never fails the request: a queue that is down is logged.
 */
export async function alertRateLimited(
  queue: Queue<LoginRateLimitedJob>,
  s: LimitSubject,
  lockoutSeconds: number,
  onError: (err: unknown) => void,
): Promise<void> {
  const at = new Date();
  await queue
    .add(
      LOGIN_RATE_LIMITED_JOB,
      { kind: 'login_rate_limited', channel: 'chat', username: s.username, address: s.address, at: at.toISOString() },
      {
        jobId: rateLimitJobId(s, at.getTime(), lockoutSeconds),
        // The notify role records it in Postgres: a brief outage there must not drop it.
        attempts: 8,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: 1000,
        removeOnFail: 5000,
      },
    )
    .catch(onError);
}
