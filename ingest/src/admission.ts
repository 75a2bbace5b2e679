// Admission control in front of the pipeline: token buckets per agent key and per host under that
// key (429), and caps on what one process holds at once (503), so a flood or a stalled Kafka/Redis
// cannot grow memory without bound. All per process: N ingest processes admit N times as much.
import { createHash } from 'node:crypto';

/**
 * A token bucket in events. A request is admitted while the bucket holds at least one token and then
 * pays for all its events, so a batch larger than the burst still passes once and leaves the bucket
 * in debt (later requests wait until it refilled).
 */
class Bucket {
  tokens: number;
  at: number;
  /** Host buckets: used since the eviction scan last passed it (AgentRateLimiter.evictHost). */
  used = false;
  constructor(tokens: number, at: number) {
    this.tokens = tokens;
    this.at = at;
  }
}

/** Host identities longer than this are hashed, so a tracked bucket's key stays small. */
const MAX_HOST_ID_CHARS = 200;
/** Default bound on tracked (key, host) buckets per process (see AgentRateLimiter). */
export const MAX_HOST_BUCKETS = 100_000;

export interface RateLimits {
  /** Ceiling per agent key, shared by all its hosts: refill per second (0 = no ceiling) and size. */
  keyRate: number;
  keyBurst: number;
  /** Per host under a key: refill per second (0 = no per-host limit) and size. */
  hostRate: number;
  hostBurst: number;
  /** At most this many (key, host) buckets are tracked; about the least recently used goes first (evictHost). */
  maxHosts?: number;
}

/**
 * Admission per agent key and host. The fleet's agents share one key, so each host (hostname and
 * agent instance, as the event names them) has a bucket of its own: one host's flood empties only
 * its own bucket. The key keeps a ceiling over all its hosts, which is what bounds a sender that
 * invents host names. Synchronous: check and charge happen in one turn of the event loop, so
 * concurrent requests cannot overdraw a bucket twice.
 *
 * Memory: a full bucket is the same as none, so full ones are dropped by a sweep, and at most
 * `maxHosts` are tracked (about the least recently used evicted first; an evicted host in debt starts full
 * again, which gives it one more burst, still under the key's ceiling). Key buckets are one per
 * verified key.
 */
export class AgentRateLimiter {
  readonly limits: Required<RateLimits>;
  private readonly keys = new Map<number, Bucket>();
  /** In the order of the eviction scan (evictHost): the oldest first, buckets passed over moved last. */
  private readonly hosts = new Map<string, Bucket>();
  private lastSweep = 0;
  private readonly sweepMs: number;

  constructor(limits: RateLimits) {
    this.limits = { maxHosts: MAX_HOST_BUCKETS, ...limits };
    // About the time an emptied host bucket takes to fill up again, between 1 s and 1 min.
    this.sweepMs =
      this.limits.hostRate > 0 ? Math.min(60_000, Math.max(1000, (this.limits.hostBurst / this.limits.hostRate) * 1000)) : 60_000;
  }

  /** (key, host) buckets tracked now (tests, diagnostics). */
  get trackedHosts(): number {
    return this.hosts.size;
  }

  /** The bucket id of a host under a key: hostname and agent instance, hashed when long. */
  static hostId(keyId: number, hostname: string, agentInstance = ''): string {
    const id = `${keyId}\n${hostname}\n${agentInstance}`;
    return id.length <= MAX_HOST_ID_CHARS ? id : `${keyId}\n#${createHash('sha256').update(id).digest('base64url')}`;
  }

  private refill(b: Bucket, rate: number, burst: number, now: number): Bucket {
    if (now > b.at) {
      b.tokens = Math.min(burst, b.tokens + ((now - b.at) * rate) / 1000);
      b.at = now;
    }
    return b;
  }

  /** Seconds until the bucket holds a token again (at least 1). */
  private static wait(b: Bucket, rate: number): number {
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  private keyBucket(keyId: number, now: number): Bucket {
    const { keyRate, keyBurst } = this.limits;
    let b = this.keys.get(keyId);
    if (!b) this.keys.set(keyId, (b = new Bucket(keyBurst, now)));
    return this.refill(b, keyRate, keyBurst, now);
  }

  private hostBucket(id: string, now: number): Bucket {
    const { hostRate, hostBurst, maxHosts } = this.limits;
    let b = this.hosts.get(id);
    if (!b) {
      b = new Bucket(hostBurst, now);
      if (this.hosts.size >= maxHosts) this.evictHost();
      this.hosts.set(id, b);
    } else b.used = true;
    return this.refill(b, hostRate, hostBurst, now);
  }

  /**
   * Second chance (the CLOCK approximation of least recently used): from the oldest end, a bucket used
   * since the scan last passed it loses its mark and moves to the recent end; the first one unused goes.
   * A use costs one mark instead of moving the bucket in the map on every event (a delete and re-insert:
   * 0.75 moves per event with 1,000 hosts, 3 µs per event in ingest's profile).
   */
  private evictHost(): void {
    for (const [id, b] of this.hosts) {
      this.hosts.delete(id);
      if (!b.used) return;
      b.used = false;
      this.hosts.set(id, b);
    }
  }

  /** Drops the host buckets that refilled to full (they are the same as none). */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.sweepMs) return;
    this.lastSweep = now;
    const { hostRate, hostBurst } = this.limits;
    for (const [id, b] of this.hosts) if (this.refill(b, hostRate, hostBurst, now).tokens >= hostBurst) this.hosts.delete(id);
  }

  /** The key's ceiling only (before a body is read, when no host is known yet): 0, or the seconds to wait. */
  checkKey(keyId: number, now = performance.now()): number {
    if (this.limits.keyRate === 0) return 0;
    const b = this.keyBucket(keyId, now);
    return b.tokens < 1 ? AgentRateLimiter.wait(b, this.limits.keyRate) : 0;
  }

  /** Charges the key's ceiling without refusing (lines that name no host: rejected ones). */
  chargeKey(keyId: number, events: number, now = performance.now()): void {
    if (this.limits.keyRate !== 0 && events > 0) this.keyBucket(keyId, now).tokens -= events;
  }

  /**
   * Admits events per host under one key, in one step: the key's ceiling must hold a token, else
   * nothing is admitted or charged (`keyWait`). Then each host whose bucket holds a token is admitted
   * and pays for its events; the others are `refused` (host id -> seconds to wait) and pay nothing.
   * The ceiling pays for the admitted events plus `unnamed` (events with no host to charge).
   */
  admit(
    keyId: number,
    perHost: ReadonlyMap<string, number>,
    unnamed = 0,
    now = performance.now(),
  ): { keyWait: number; refused: Map<string, number> } {
    const refused = new Map<string, number>();
    const keyWait = this.checkKey(keyId, now);
    if (keyWait > 0) return { keyWait, refused };
    const { hostRate } = this.limits;
    let admitted = unnamed;
    for (const [id, events] of perHost) {
      if (hostRate === 0) {
        admitted += events;
        continue;
      }
      const b = this.hostBucket(id, now);
      if (b.tokens < 1) refused.set(id, AgentRateLimiter.wait(b, hostRate));
      else {
        b.tokens -= events;
        admitted += events;
      }
    }
    this.chargeKey(keyId, admitted, now);
    if (hostRate !== 0) this.sweep(now);
    return { keyWait: 0, refused };
  }

  /**
   * One host's events (the single-event route), as admit() does for one host without allocating on
   * the way in: null when admitted and charged, else which bucket refused and the seconds to wait.
   */
  take(keyId: number, hostId: string, events: number, now = performance.now()): { scope: 'key' | 'host'; wait: number } | null {
    const keyWait = this.checkKey(keyId, now);
    if (keyWait > 0) return { scope: 'key', wait: keyWait };
    const { hostRate } = this.limits;
    if (hostRate !== 0) {
      const b = this.hostBucket(hostId, now);
      if (b.tokens < 1) return { scope: 'host', wait: AgentRateLimiter.wait(b, hostRate) };
      b.tokens -= events;
      this.sweep(now);
    }
    this.chargeKey(keyId, events, now);
    return null;
  }
}

/**
 * Events submitted and not yet answered, and request body bytes held, in this process. A
 * reservation that would cross a cap is refused, except when nothing is held at all (one request
 * larger than a cap still gets through on an idle process instead of never).
 */
export class InFlightLimiter {
  events = 0;
  bytes = 0;
  readonly maxEvents: number;
  readonly maxBytes: number;

  constructor(maxEvents: number, maxBytes: number) {
    this.maxEvents = maxEvents;
    this.maxBytes = maxBytes;
  }

  tryAcquire(events: number, bytes: number): boolean {
    const idle = this.events === 0 && this.bytes === 0;
    if (!idle && (this.events + events > this.maxEvents || this.bytes + bytes > this.maxBytes)) return false;
    this.events += events;
    this.bytes += bytes;
    return true;
  }

  release(events: number, bytes: number): void {
    this.events -= events;
    this.bytes -= bytes;
  }
}
