// Idempotency claims in Redis, one key per event_id (under a prefix derived from the events topic).
// A claim is provisional (value = the claimer's token, short TTL) until Kafka acknowledged the event,
// then committed (value "c", TTL = retention). A process that dies between claim and ack leaves a
// provisional claim that expires by itself, so the agent's retry is accepted afterwards.
// Redis runs with AOF, so claims survive a Redis restart; they live in Redis, so they survive ingest's.
import type { Redis } from 'ioredis';

/** claimed: this token owns it now; stored: committed earlier; pending: another token's provisional claim. */
export type ClaimState = 'claimed' | 'stored' | 'pending';

const COMMITTED = 'c';

// KEYS = claim keys; ARGV = [token, provisional ttl ms]. Returns 1 claimed, 2 stored, 3 pending per key.
const CLAIM_LUA = `
local out = {}
for i, k in ipairs(KEYS) do
  if redis.call('SET', k, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 1
  elseif redis.call('GET', k) == '${COMMITTED}' then
    out[i] = 2
  else
    out[i] = 3
  end
end
return out`;

// KEYS = claim keys; ARGV = [token, committed ttl ms]. Commits a key still ours (or expired and free);
// returns 1 committed by us, 0 when someone else holds it now.
const COMMIT_LUA = `
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if v == ARGV[1] or v == false then
    redis.call('SET', k, '${COMMITTED}', 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`;

// KEYS = claim keys; ARGV = [token]. Deletes only claims this token still holds.
const RELEASE_LUA = `
local n = 0
for _, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then
    redis.call('DEL', k)
    n = n + 1
  end
end
return n`;

type Scripted = Redis & {
  watchpostIngestClaim(n: number, ...args: (string | number)[]): Promise<number[]>;
  watchpostIngestCommit(n: number, ...args: (string | number)[]): Promise<number[]>;
  watchpostIngestRelease(n: number, ...args: (string | number)[]): Promise<number>;
};

export interface ClaimStoreOptions {
  /** Key prefix, e.g. `events.v1:claim:`. */
  prefix: string;
  provisionalMs: number;
  committedMs: number;
}

export class ClaimStore {
  private readonly redis: Scripted;
  readonly opts: ClaimStoreOptions;

  constructor(redis: Redis, opts: ClaimStoreOptions) {
    // defineCommand loads each script once (EVALSHA, falling back to EVAL after a Redis restart).
    if (!('watchpostIngestClaim' in redis)) {
      redis.defineCommand('watchpostIngestClaim', { lua: CLAIM_LUA });
      redis.defineCommand('watchpostIngestCommit', { lua: COMMIT_LUA });
      redis.defineCommand('watchpostIngestRelease', { lua: RELEASE_LUA });
    }
    this.redis = redis as Scripted;
    this.opts = opts;
  }

  key(eventId: string): string {
    return this.opts.prefix + eventId.toLowerCase();
  }

  async claim(eventIds: string[], token: string): Promise<ClaimState[]> {
    if (eventIds.length === 0) return [];
    const r = await this.redis.watchpostIngestClaim(
      eventIds.length,
      ...eventIds.map((id) => this.key(id)),
      token,
      this.opts.provisionalMs,
    );
    return r.map((x) => (x === 1 ? 'claimed' : x === 2 ? 'stored' : 'pending'));
  }

  /** Makes claims permanent (TTL = retention); false for a key someone else holds by now. */
  async commit(eventIds: string[], token: string): Promise<boolean[]> {
    if (eventIds.length === 0) return [];
    const r = await this.redis.watchpostIngestCommit(
      eventIds.length,
      ...eventIds.map((id) => this.key(id)),
      token,
      this.opts.committedMs,
    );
    return r.map((x) => x === 1);
  }

  async release(eventIds: string[], token: string): Promise<number> {
    if (eventIds.length === 0) return 0;
    return this.redis.watchpostIngestRelease(eventIds.length, ...eventIds.map((id) => this.key(id)), token);
  }

  /** What the store holds for one event_id (tests, diagnostics). */
  async state(eventId: string): Promise<{ state: 'free' | 'pending' | 'stored'; ttlMs: number }> {
    const [v, ttl] = await Promise.all([this.redis.get(this.key(eventId)), this.redis.pttl(this.key(eventId))]);
    return { state: v === null ? 'free' : v === COMMITTED ? 'stored' : 'pending', ttlMs: ttl };
  }
}
