// Where each topic-partition stands: the offset this group resumes from (after the last commit, or
// where this process started), the partition's end as of the last fetch, and when it last made
// progress. Gives the lag and tells a stalled consumer (lag but no progress) for readiness. Pure.

interface Position {
  committedNext: bigint | null;
  high: bigint | null;
  progressAt: number;
}

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export class CommitTracker {
  private readonly positions = new Map<string, Position>();

  private at(topic: string, partition: number, now: number): Position {
    const k = tpKey(topic, partition);
    let p = this.positions.get(k);
    if (!p) {
      p = { committedNext: null, high: null, progressAt: now };
      this.positions.set(k, p);
    }
    return p;
  }

  /** A fetch of this partition: its first offset (when nothing was committed here yet) and its end. */
  fetched(topic: string, partition: number, firstOffset: string | null, highWatermark: string, now: number): void {
    const p = this.at(topic, partition, now);
    const caughtUp = p.high === null || p.committedNext === null || p.committedNext >= p.high;
    if (p.committedNext === null && firstOffset !== null) p.committedNext = BigInt(firstOffset);
    p.high = BigInt(highWatermark);
    // A partition that was caught up starts its no-progress clock when new messages arrive.
    if (caughtUp) p.progressAt = now;
  }

  committed(topic: string, partition: number, next: string, now: number): void {
    const p = this.at(topic, partition, now);
    p.committedNext = BigInt(next);
    p.progressAt = now;
  }

  /** Messages of the partition not yet committed (null until known). */
  lag(topic: string, partition: number): number | null {
    const p = this.positions.get(tpKey(topic, partition));
    if (!p || p.high === null || p.committedNext === null) return null;
    const lag = p.high - p.committedNext;
    return Number(lag < 0n ? 0n : lag);
  }

  /** Some partition has lag and has made no progress for stallMs. */
  stalled(now: number, stallMs: number): boolean {
    for (const [k, p] of this.positions) {
      const [topic, partition] = k.split('\u0000') as [string, string];
      const lag = this.lag(topic, Number(partition));
      if (lag !== null && lag > 0 && now - p.progressAt > stallMs) return true;
    }
    return false;
  }

  /** After a rebalance every position is unknown again (partitions may have moved). */
  reset(): void {
    this.positions.clear();
  }
}
