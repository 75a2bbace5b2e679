// When a consumer has stopped making progress that the brokers can see: a partition of this member
// has had lag (as the brokers report it: end offset minus the group's committed offset) and no commit
// for `afterMs`, while no batch of it was in the handler or failing there (a slow or absent sink is
// the write's own matter, not the Kafka client's). Pure: the batch consumer feeds it and recreates its
// kafkajs consumer when due.

/**
 * Group-coordinator answers that refuse a commit only because the group moved on (a rebalance, often
 * one a recreation itself caused: the old member leaves, the new one joins). The coordinator answered,
 * so recreating the consumer again would fix nothing and only start the next rebalance.
 */
const GROUP_MOVED = new Set(['ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

/** True when a failed commit was refused by a coordinator that answered (kafkajs wraps the protocol error in causes). */
export function coordinatorAnswered(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && GROUP_MOVED.has(type)) return true;
  }
  return false;
}

export class ProgressWatchdog {
  /** Per partition key: since when lag has been seen without a commit in between. */
  private readonly lagSince = new Map<string, number>();

  /** Partitions whose current stall a refused commit has already extended (see `refused`). */
  private readonly extended = new Set<string>();

  private readonly afterMs: number;

  constructor(afterMs: number) {
    this.afterMs = afterMs;
  }

  /** A commit of the partition went through. */
  progressed(key: string): void {
    this.lagSince.delete(key);
    this.extended.delete(key);
  }

  /**
   * A commit refused by a coordinator that answered because the group moved on (coordinatorAnswered):
   * the member reaches its group, so it gets afterMs more to settle, but once per stall. Refusals that
   * keep coming with no commit in between extend nothing: a member whose generation stays stale (seen in
   * the Kafka cluster test after an isolated node came back: correlate's every commit refused with
   * ILLEGAL_GENERATION for minutes) is recreated like any other without progress.
   */
  refused(key: string): void {
    if (this.extended.has(key)) return;
    this.extended.add(key);
    this.lagSince.delete(key);
  }

  /** The partition's lag as the brokers report it (read again every few seconds). */
  observed(key: string, lag: number, now: number): void {
    if (lag <= 0) this.lagSince.delete(key);
    else if (!this.lagSince.has(key)) this.lagSince.set(key, now);
  }

  /** True when some partition has had lag without a commit for afterMs; a partition busy in the handler starts again. */
  due(now: number, busy: ReadonlySet<string> = new Set()): boolean {
    for (const key of busy) this.lagSince.delete(key);
    for (const since of this.lagSince.values()) if (now - since >= this.afterMs) return true;
    return false;
  }

  /** After the consumer was recreated: it gets afterMs of its own. */
  reset(): void {
    this.lagSince.clear();
    this.extended.clear();
  }
}
