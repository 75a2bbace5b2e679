// Admission control in front of the pipeline: a token bucket per agent key (429) and caps on what
// one process holds at once (503), so a flood or a stalled Kafka/Redis cannot grow memory without
// bound. Both are per process: N ingest processes admit N times as much.

/**
 * A token bucket per agent key, in events. A request is admitted while the bucket holds at least one
 * token and then pays for all its events, so a batch larger than the burst still passes once and
 * leaves the bucket in debt (later requests wait until it refilled). Synchronous: check and charge
 * happen in one turn of the event loop, so concurrent requests cannot overdraw it twice.
 */
export class KeyRateLimiter {
  readonly ratePerSecond: number;
  private readonly ratePerMs: number;
  private readonly burst: number;
  private readonly buckets = new Map<number, { tokens: number; at: number }>();

  /** ratePerSecond 0 turns the limit off. */
  constructor(ratePerSecond: number, burst: number) {
    this.ratePerSecond = ratePerSecond;
    this.ratePerMs = ratePerSecond / 1000;
    this.burst = burst;
  }

  private refill(keyId: number, now: number): { tokens: number; at: number } {
    let b = this.buckets.get(keyId);
    if (!b) {
      b = { tokens: this.burst, at: now };
      this.buckets.set(keyId, b);
    } else if (now > b.at) {
      b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * this.ratePerMs);
      b.at = now;
    }
    return b;
  }

  /** 0 when admitted (and charged `events`), else the seconds to wait before the next try. */
  take(keyId: number, events: number, now = performance.now()): number {
    if (this.ratePerSecond === 0) return 0;
    const b = this.refill(keyId, now);
    if (b.tokens < 1) return Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerMs / 1000));
    b.tokens -= events;
    return 0;
  }

  /** Like take(…, 0): refuses early (before a batch body is read) when the bucket is empty. */
  check(keyId: number, now = performance.now()): number {
    return this.take(keyId, 0, now);
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
