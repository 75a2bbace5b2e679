// Idempotency claims in Redis, one key per event_id (under a prefix derived from the events topic).
// A claim is provisional (value = the claimer's token, short TTL) until Kafka acknowledged the event,
// then committed (value "c", TTL = retention). A process that dies between claim and ack leaves a
// provisional claim that expires by itself, so the agent's retry is accepted afterwards.
// Redis runs with AOF, so claims survive a Redis restart; they live in Redis, so they survive ingest's.
import type { Redis } from 'ioredis';

/** claimed: this token owns it now; stored: committed earlier; pending: another token's provisional claim. */
export type ClaimState = 'claimed' | 'stored' | 'pending';

const COMMITTED = 'c';

// Claims and commits in one call: the commits of the sends acknowledged meanwhile ride along with the
// next claim call, so a micro-batch costs one script call instead of two (each call has a fixed cost in
// ioredis and in Redis, besides its keys).
// KEYS = claim keys, then commit keys; ARGV = [claim token, provisional ttl ms, number of claim keys,
// committed ttl ms, then per commit group: its token, its number of keys]. Returns per claim key
// 1 claimed, 2 stored, 3 pending; then per commit key 1 committed by us, 0 held by someone else.
const CLAIM_COMMIT_LUA = `
local out = {}
local nclaim = tonumber(ARGV[3])
for i = 1, nclaim do
  local k = KEYS[i]
  if redis.call('SET', k, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 1
  elseif redis.call('GET', k) == '${COMMITTED}' then
    out[i] = 2
  else
    out[i] = 3
  end
end
local ki = nclaim
local a = 5
while a < #ARGV do
  local token = ARGV[a]
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  for _ = 1, n do
    ki = ki + 1
    local k = KEYS[ki]
    local v = redis.call('GET', k)
    if v == token or v == false then
      redis.call('SET', k, '${COMMITTED}', 'PX', ARGV[4])
      out[ki] = 1
    else
      out[ki] = 0
    end
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
  watchpostIngestRelease(n: number, ...args: (string | number)[]): Promise<number>;
  watchpostIngestClaimCommit(n: number, ...args: (string | number)[]): Promise<number[]>;
};

/** Claims of one token to commit (the ids a send carried from one claim call). */
export interface CommitGroup {
  token: string;
  eventIds: string[];
}

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
    if (!('watchpostIngestClaimCommit' in redis)) {
      redis.defineCommand('watchpostIngestRelease', { lua: RELEASE_LUA });
      redis.defineCommand('watchpostIngestClaimCommit', { lua: CLAIM_COMMIT_LUA });
    }
    this.redis = redis as Scripted;
    this.opts = opts;
  }

  key(eventId: string): string {
    return this.opts.prefix + eventId.toLowerCase();
  }

  async claim(eventIds: string[], token: string): Promise<ClaimState[]> {
    return (await this.claimAndCommit(eventIds, token, [])).states;
  }

  /** Makes claims permanent (TTL = retention); false for a key someone else holds by now. */
  async commit(eventIds: string[], token: string): Promise<boolean[]> {
    return (await this.claimAndCommit([], '', [{ token, eventIds }])).committed[0] ?? [];
  }

  /**
   * Claims `eventIds` for `token` (claimed: this token owns it now; stored: committed earlier; pending:
   * another token's provisional claim) and commits each group, in one call. Returns the claim states and,
   * per group, whether each claim was committed by us (false: someone else holds it now).
   */
  async claimAndCommit(
    eventIds: string[],
    token: string,
    groups: CommitGroup[],
  ): Promise<{ states: ClaimState[]; committed: boolean[][] }> {
    const keys = eventIds.map((id) => this.key(id));
    const args: (string | number)[] = [token, this.opts.provisionalMs, eventIds.length, this.opts.committedMs];
    for (const g of groups) {
      for (const id of g.eventIds) keys.push(this.key(id));
      args.push(g.token, g.eventIds.length);
    }
    if (keys.length === 0) return { states: [], committed: [] };
    const r = await this.redis.watchpostIngestClaimCommit(keys.length, ...keys, ...args);
    const states = r.slice(0, eventIds.length).map((x) => (x === 1 ? 'claimed' : x === 2 ? 'stored' : 'pending')) as ClaimState[];
    let at = eventIds.length;
    const committed = groups.map((g) => r.slice(at, (at += g.eventIds.length)).map((x) => x === 1));
    return { states, committed };
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
