// What the pipeline tracks per event and per host while requests are in flight, without a delete per
// event from a long-lived Map or Set (issue 36, ingest/README.md "Eighth round").
//
// Why: V8 replaces a Map's or Set's hash table when it grows, shrinks or fills up with deleted entries, and
// the table it replaced keeps its entries and a pointer to its successor. Once the Map lives in the old
// generation (the pipeline's do), every replaced table is dead old memory, yet each scavenge takes its
// slots as roots until the next mark-compact: what they point at (requests in flight when it was replaced,
// through their promises the whole request) survives two scavenges and is promoted, and the next table
// with it. A set and a delete per event did that every few dozen events: under single events with Redis
// and Kafka stubbed out, ingest promoted 0.43 MB per scavenge with them and 0.01 MB without (the bare
// server 0.00).

/**
 * The value per id of what is in flight, in two young Maps that are never deleted from: a settled id is
 * overwritten in place (no new table), and once `generation` ids were added the older Map is dropped
 * whole. An id added more than one to two generations ago is forgotten even if it is still in flight,
 * so a caller uses this only as a shortcut before the store that decides (here: Redis's claims).
 */
export class RecentById<V> {
  private current = new Map<string, V | undefined>();
  private previous = new Map<string, V | undefined>();

  private readonly generation: number;

  constructor(generation = 1024) {
    this.generation = generation;
  }

  get(id: string): V | undefined {
    return this.current.get(id) ?? this.previous.get(id);
  }

  set(id: string, value: V): void {
    if (this.current.size >= this.generation && !this.current.has(id)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(id, value);
  }

  /** Forgets `value` for `id` (if it is still the one held), by overwriting it in place. */
  settle(id: string, value: V): void {
    if (this.current.get(id) === value) this.current.set(id, undefined);
    else if (this.previous.get(id) === value) this.previous.set(id, undefined);
  }
}

/**
 * A count per key (sends in flight per Kafka key) whose keys stay when their count falls to 0; `busy` is
 * the number of keys above 0. Only when `maxKeys` keys or more are held, at most half of them busy, is the
 * Map rebuilt from the busy ones: a fleet of more hosts than that rebuilds it about once per `maxKeys` new
 * hosts, and sends in flight for more hosts than that never rebuild it on every new host.
 */
export class CountByKey {
  private counts = new Map<string, number>();
  busy = 0;

  private readonly maxKeys: number;

  constructor(maxKeys = 8192) {
    this.maxKeys = maxKeys;
  }

  has(key: string): boolean {
    return (this.counts.get(key) ?? 0) > 0;
  }

  add(key: string): void {
    const n = this.counts.get(key) ?? 0;
    if (n === 0) {
      this.busy++;
      if (!this.counts.has(key) && this.counts.size >= this.maxKeys && this.busy * 2 <= this.counts.size) this.prune();
    }
    this.counts.set(key, n + 1);
  }

  remove(key: string): void {
    const n = this.counts.get(key) ?? 0;
    if (n <= 0) return;
    if (n === 1) this.busy--;
    this.counts.set(key, n - 1);
  }

  private prune(): void {
    const kept = new Map<string, number>();
    for (const [k, n] of this.counts) if (n > 0) kept.set(k, n);
    this.counts = kept;
  }
}
