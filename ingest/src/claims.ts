// Idempotency claims in Redis, one key per event_id (under a prefix derived from the events topic).
// A claim is provisional (value = the claimer's token, short TTL) until Kafka acknowledged the event,
// then committed (value "c", TTL = retention). A process that dies between claim and ack leaves a
// provisional claim that expires by itself, so the agent's retry is accepted afterwards.
// Redis runs with AOF, so claims survive a Redis restart; they live in Redis, so they survive ingest's.
import type { Redis } from 'ioredis';
import { claimKeyOf, RESENT_CLAIM_MARK } from '@watchpost/runtime';

/**
 * claimed: this token owns it now; stored: committed earlier; pending: another token's provisional claim;
 * resent: the same event (resend.ts) was stored under another event_id (`resentOf` names it).
 */
export type ClaimState = 'claimed' | 'stored' | 'pending' | 'resent';

const COMMITTED = 'c';

// Claims and commits in one call: the commits of the sends acknowledged meanwhile ride along with the
// next claim call, so a micro-batch costs one script call instead of two (each call has a fixed cost in
// ioredis and in Redis, besides its keys).
//
// An event may also carry a resend key (its content identity, resend.ts), claimed after its event_id
// claim with the same token: committed, it holds "c" followed by the event_id stored. An event whose
// resend key is committed under another id is answered as that id's re-send: its own claim then holds
// "d" followed by the stored id (TTL as a committed claim), so a retry of it and the explain view say the
// same. Committed values start with c or d, tokens with p.
//
// A commit group made while its provisional claims cannot have expired yet (`held`, decided by the
// pipeline from when it claimed them) is written without reading each key first: the key holds its token
// (no other request can have claimed it meanwhile) or nothing (Redis lost it), and the commit writes "c"
// in both cases. That saves a GET per event (and per resend key): in batches of 1,000, Redis's script
// time per event went from 10.6 to 9.6 µs (INFO commandstats).
//
// KEYS = claim keys, then resend keys, then per commit group its claim keys and its resend keys.
// ARGV = [claim token, provisional ttl ms, number of claim keys, committed ttl ms, number of resend keys,
// resend ttl ms, then per resend key the position (1-based) of its claim key, then per commit group: its
// token, its number of claim keys, its number of resend keys, 1 when held else 0, then per resend key its
// event_id].
// Returns per claim key 1 claimed, 2 stored, 3 pending or the stored event_id (resent); then per commit
// claim key 1 committed by us, 0 held by someone else.
const CLAIM_COMMIT_LUA = `
local function ours(k, token)
  local v = redis.call('GET', k)
  return v == token or v == false
end
local out = {}
local nclaim = tonumber(ARGV[3])
local nresend = tonumber(ARGV[5])
local resendOf = {}
for j = 1, nresend do resendOf[tonumber(ARGV[6 + j])] = KEYS[nclaim + j] end
for i = 1, nclaim do
  local k = KEYS[i]
  if redis.call('SET', k, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 1
    local r = resendOf[i]
    if r and not redis.call('SET', r, ARGV[1], 'NX', 'PX', ARGV[2]) then
      local v = redis.call('GET', r)
      if v and string.sub(v, 1, 1) == '${COMMITTED}' then
        redis.call('SET', k, '${RESENT_CLAIM_MARK}' .. string.sub(v, 2), 'PX', ARGV[4])
        out[i] = string.sub(v, 2)
      else
        redis.call('DEL', k)
        out[i] = 3
      end
    end
  else
    local v = redis.call('GET', k)
    if v == '${COMMITTED}' then
      out[i] = 2
    elseif v and string.sub(v, 1, 1) == '${RESENT_CLAIM_MARK}' then
      out[i] = string.sub(v, 2)
    else
      out[i] = 3
    end
  end
end
local ki = nclaim + nresend
local a = 7 + nresend
local nout = nclaim
while a < #ARGV do
  local token = ARGV[a]
  local n = tonumber(ARGV[a + 1])
  local m = tonumber(ARGV[a + 2])
  local held = ARGV[a + 3] == '1'
  a = a + 4
  for _ = 1, n do
    ki = ki + 1
    nout = nout + 1
    local k = KEYS[ki]
    if held or ours(k, token) then
      redis.call('SET', k, '${COMMITTED}', 'PX', ARGV[4])
      out[nout] = 1
    else
      out[nout] = 0
    end
  end
  for _ = 1, m do
    ki = ki + 1
    local k = KEYS[ki]
    if held or ours(k, token) then redis.call('SET', k, '${COMMITTED}' .. ARGV[a], 'PX', ARGV[6]) end
    a = a + 1
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
  watchpostIngestClaimCommit2(n: number, ...args: (string | number)[]): Promise<(number | string)[]>;
};

/** Claims of one token to commit (the ids a send carried from one claim call). */
export interface CommitGroup {
  token: string;
  eventIds: string[];
  /** Per event_id, its resend key when it has one (same positions as eventIds). */
  resendKeys?: (string | undefined)[];
  /**
   * The claims cannot have expired yet, so this token still holds them: committed without reading them
   * first (every id then reports committed). Only for claims made within the provisional TTL, with margin.
   */
  held?: boolean;
}

/** One event to claim: its id and, for agents that re-send under new ids, its resend key (resend.ts). */
export interface ClaimItem {
  eventId: string;
  resendKey?: string;
}

export interface ClaimStoreOptions {
  /** Key prefix, e.g. `events.v1:claim:`. */
  prefix: string;
  provisionalMs: number;
  committedMs: number;
  /** How long a stored event's resend key answers for it (0: resend keys are not claimed). */
  resendMs?: number;
}

export class ClaimStore {
  private readonly redis: Scripted;
  readonly opts: ClaimStoreOptions;

  constructor(redis: Redis, opts: ClaimStoreOptions) {
    // defineCommand loads each script once (EVALSHA, falling back to EVAL after a Redis restart).
    if (!('watchpostIngestClaimCommit2' in redis)) {
      redis.defineCommand('watchpostIngestRelease', { lua: RELEASE_LUA });
      redis.defineCommand('watchpostIngestClaimCommit2', { lua: CLAIM_COMMIT_LUA });
    }
    this.redis = redis as Scripted;
    this.opts = opts;
  }

  key(eventId: string): string {
    return claimKeyOf(this.opts.prefix, eventId);
  }

  /** The Redis key of a resend key (next to the claims: `events.v1:claim:` + `r:` + key). */
  resendKey(key: string): string {
    return `${this.opts.prefix}r:${key}`;
  }

  async claim(eventIds: (string | ClaimItem)[], token: string): Promise<ClaimState[]> {
    return (await this.claimAndCommit(eventIds, token, [])).states;
  }

  /** Makes claims permanent (TTL = retention); false for a key someone else holds by now. */
  async commit(eventIds: string[], token: string, resendKeys?: (string | undefined)[], held = false): Promise<boolean[]> {
    return (await this.claimAndCommit([], '', [{ token, eventIds, resendKeys, held }])).committed[0] ?? [];
  }

  /**
   * Claims `items` for `token` (see ClaimState) and commits each group, in one call. Returns the claim
   * states, per claim the stored event_id it is a re-send of (else null) and, per group, whether each
   * claim was committed by us (false: someone else holds it now).
   */
  async claimAndCommit(
    items: (string | ClaimItem)[],
    token: string,
    groups: CommitGroup[],
  ): Promise<{ states: ClaimState[]; resentOf: (string | null)[]; committed: boolean[][] }> {
    const claims = items.map((x) => (typeof x === 'string' ? { eventId: x } : x));
    const withResend = this.opts.resendMs ? claims.flatMap((c, i) => (c.resendKey ? [[i + 1, c.resendKey] as const] : [])) : [];
    const keys = claims.map((c) => this.key(c.eventId));
    for (const [, r] of withResend) keys.push(this.resendKey(r));
    const args: (string | number)[] = [token, this.opts.provisionalMs, claims.length, this.opts.committedMs];
    args.push(withResend.length, this.opts.resendMs ?? 0, ...withResend.map(([i]) => i));
    for (const g of groups) {
      for (const id of g.eventIds) keys.push(this.key(id));
      const resend = this.opts.resendMs ? (g.resendKeys ?? []).flatMap((r, i) => (r ? [[g.eventIds[i]!, r] as const] : [])) : [];
      for (const [, r] of resend) keys.push(this.resendKey(r));
      args.push(g.token, g.eventIds.length, resend.length, g.held ? 1 : 0, ...resend.map(([id]) => id.toLowerCase()));
    }
    if (keys.length === 0) return { states: [], resentOf: [], committed: [] };
    const r = await this.redis.watchpostIngestClaimCommit2(keys.length, ...keys, ...args);
    const states: ClaimState[] = [];
    const resentOf: (string | null)[] = [];
    for (const x of r.slice(0, claims.length)) {
      states.push(typeof x === 'string' ? 'resent' : x === 1 ? 'claimed' : x === 2 ? 'stored' : 'pending');
      resentOf.push(typeof x === 'string' ? x : null);
    }
    let at = claims.length;
    const committed = groups.map((g) => r.slice(at, (at += g.eventIds.length)).map((x) => x === 1));
    return { states, resentOf, committed };
  }

  /** Deletes the claims (and resend keys) `token` still holds. */
  async release(eventIds: string[], token: string, resendKeys?: (string | undefined)[]): Promise<number> {
    const keys = eventIds.map((id) => this.key(id));
    for (const r of resendKeys ?? []) if (r) keys.push(this.resendKey(r));
    if (keys.length === 0) return 0;
    return this.redis.watchpostIngestRelease(keys.length, ...keys, token);
  }

  /** What the store holds for one event_id (tests, diagnostics). */
  async state(eventId: string): Promise<{ state: 'free' | 'pending' | 'stored' | 'resent'; ttlMs: number; resentOf?: string }> {
    const [v, ttl] = await Promise.all([this.redis.get(this.key(eventId)), this.redis.pttl(this.key(eventId))]);
    if (v?.startsWith(RESENT_CLAIM_MARK)) return { state: 'resent', ttlMs: ttl, resentOf: v.slice(RESENT_CLAIM_MARK.length) };
    return { state: v === null ? 'free' : v === COMMITTED ? 'stored' : 'pending', ttlMs: ttl };
  }
}
