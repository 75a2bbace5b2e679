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
import type { Queue } from 'bullmq';
import type { Redis } from '@watchpost/runtime';
import { LOGIN_RATE_LIMITED_JOB, type LoginRateLimitedJob } from '@watchpost/schemas';
import { ApiError } from '../errors.ts';
import { createHash } from 'node:crypto';

export interface LimitSettings {
  loginWindowSeconds: number;
  lockoutSeconds: number;
  /** Per (username, address): the spec's 3. */
  maxLoginFailures: number;
  maxFailuresPerUser: number;
  maxFailuresPerAddress: number;
}

export interface LimitSubject {
  username: string;
  address: string;
}

export const LIMIT_SCOPES = ['pair', 'username', 'address'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

// Hashing keeps arbitrary user input (any length, any bytes) out of the key names.
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** KEYS: three counters then three locks, in LIMIT_SCOPES order. */
function keys(prefix: string, s: LimitSubject): string[] {
  const ids = [h(`${s.username}\n${s.address}`), h(s.username), h(s.address)];
  const tags = ['p', 'u', 'a'];
  return [
    ...ids.map((id, i) => `${prefix}login:try:${tags[i]}:${id}`),
    ...ids.map((id, i) => `${prefix}login:lock:${tags[i]}:${id}`),
  ];
}

const limits = (cfg: LimitSettings) => [cfg.maxLoginFailures, cfg.maxFailuresPerUser, cfg.maxFailuresPerAddress];

// A lock wins; then a scope whose counted attempts (failed or still being verified) reached its limit
// refuses without a lock yet (concurrent attempts); otherwise every counter takes this attempt.
const RESERVE = `
for i = 4, 6 do
  local t = redis.call('PTTL', KEYS[i])
  if t > 0 then return {0, t, i - 3} end
end
for i = 1, 3 do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c >= tonumber(ARGV[i + 1]) then
    local t = redis.call('PTTL', KEYS[i])
    if t <= 0 then t = tonumber(ARGV[1]) end
    return {0, t, i}
  end
end
for i = 1, 3 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return {1, 0, 0}`;

// After a failed verification: each scope that reached its limit is locked (NX: the failure that
// creates the lock is the one that reports it, so one alert per lock) and its counter starts over.
const FAILED = `
local locked = {}
for i = 1, 3 do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c >= tonumber(ARGV[i + 1]) then
    if redis.call('SET', KEYS[i + 3], '1', 'PX', ARGV[1], 'NX') then table.insert(locked, i) end
    redis.call('DEL', KEYS[i])
  end
end
return locked`;

// A success or an attempt that was not evaluated gives its reservation back (the pair's count is
// cleared on success: the user knows the password).
const RELEASE = `
if ARGV[1] == '1' then redis.call('DEL', KEYS[1]) elseif tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
for i = 2, 3 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 1`;

export type Reservation = { ok: true } | { ok: false; retryAfterSeconds: number; scope: LimitScope };

/** Reserves one attempt, or says for how long this login is refused and by which scope. */
export async function reserveAttempt(redis: Redis, prefix: string, s: LimitSubject, cfg: LimitSettings): Promise<Reservation> {
  const r = (await redis.eval(RESERVE, 6, ...keys(prefix, s), cfg.loginWindowSeconds * 1000, ...limits(cfg))) as number[];
  if (r[0] === 1) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Number(r[1]) / 1000)), scope: LIMIT_SCOPES[Number(r[2]) - 1]! };
}

/** Records that the reserved attempt failed; returns the scopes this failure newly locked. */
export async function recordFailure(redis: Redis, prefix: string, s: LimitSubject, cfg: LimitSettings): Promise<LimitScope[]> {
  const r = (await redis.eval(FAILED, 6, ...keys(prefix, s), cfg.lockoutSeconds * 1000, ...limits(cfg))) as number[];
  return r.map((i) => LIMIT_SCOPES[i - 1]!);
}

/** Gives a reserved attempt back: `succeeded` also clears the (username, address) count. */
export async function releaseAttempt(redis: Redis, prefix: string, s: LimitSubject, succeeded: boolean): Promise<void> {
  await redis.eval(RELEASE, 6, ...keys(prefix, s), succeeded ? '1' : '0');
}

/** BullMQ job id of the chat alert: the same lockout always maps to the same id (no duplicate alerts). */
export function rateLimitJobId(s: LimitSubject, lockedAtMs: number, lockoutSeconds: number): string {
  const period = Math.floor(lockedAtMs / (lockoutSeconds * 1000));
  return `login_rate_limited-${h(`${s.username}\n${s.address}`)}-${period}`;
}

/** The 429 answer of a refused reservation (login or device enrollment). */
export function rateLimitedError(r: { retryAfterSeconds: number; scope: LimitScope }, message: string): ApiError {
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
 * guesses alike. The notify role decides it with the policy and queues its deliveries
 * (processors/src/notify/lockout.ts). Never fails the request: a queue that is down is logged.
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
