// What one topic-partition has taken in and not yet handed to the sink: decoded messages, poison
// messages bound for the dead-letter topic, and the highest offset among them. Flushed by count or
// bytes (of the messages as read from Kafka), or after it has lingered maxMs. Pure: the caller passes
// the clock.

export interface BufferedBatch<T, P> {
  items: T[];
  poison: P[];
  /** Offset of the last message taken in (commit upTo + 1 once written). */
  upTo: string;
}

export class PartitionBuffer<T, P> {
  private items: T[] = [];
  private poison: P[] = [];
  private upTo: string | null = null;
  private firstAt = 0;
  private bytes = 0;
  private readonly maxSize: number;
  private readonly maxMs: number;
  private readonly maxBytes: number;

  constructor(maxSize: number, maxMs: number, maxBytes = Infinity) {
    this.maxSize = maxSize;
    this.maxMs = maxMs;
    this.maxBytes = maxBytes;
  }

  add(item: T, offset: string, now: number, bytes = 0): void {
    this.items.push(item);
    this.taken(offset, now, bytes);
  }

  addPoison(p: P, offset: string, now: number, bytes = 0): void {
    this.poison.push(p);
    this.taken(offset, now, bytes);
  }

  private taken(offset: string, now: number, bytes: number): void {
    this.upTo = offset;
    this.bytes += bytes;
    if (this.firstAt === 0) this.firstAt = now;
  }

  get size(): number {
    return this.items.length + this.poison.length;
  }

  get pending(): boolean {
    return this.upTo !== null;
  }

  full(): boolean {
    return this.size >= this.maxSize || this.bytes >= this.maxBytes;
  }

  /** Something is pending and the oldest of it has waited maxMs. */
  lingered(now: number): boolean {
    return this.upTo !== null && now - this.firstAt >= this.maxMs;
  }

  /** Hands out what is pending and starts empty; null when nothing is. */
  take(): BufferedBatch<T, P> | null {
    if (this.upTo === null) return null;
    const out = { items: this.items, poison: this.poison, upTo: this.upTo };
    this.clear();
    return out;
  }

  /** Forgets what is pending (a rebalance: Kafka delivers it again from the committed offset). */
  clear(): void {
    this.items = [];
    this.poison = [];
    this.upTo = null;
    this.firstAt = 0;
    this.bytes = 0;
  }
}
