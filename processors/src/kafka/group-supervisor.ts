// The kafkajs side of a consumer: one member of the group, connected, joined and run, its commits,
// pauses and resumes, and the watchdog that recreates it. Knows nothing of batches or sinks: it calls
// `eachBatch` with what kafkajs fetched and asks `busy` which partitions are in the sink's hands.
//
// The watchdog. kafkajs keeps the group coordinator it found (commits and heartbeats go on to it) and
// gives up instead of retrying when finding or joining it meets a reset or closed connection (it
// retries a refused one only): a coordinator or leader cut off rather than down (a network partition,
// a hung host, a proxy or load balancer in front of a dead node) stopped the consumer until that node
// came back. So when a partition of this member has had lag (as the brokers report it) and no commit
// for restartAfterMs, with no batch failing in the handler, the kafkajs consumer is replaced by a new
// one: its own connections, metadata and coordinator lookup. A write under way finishes (its commit
// may fail); the new member resumes from the committed offsets and the sinks' idempotency absorbs
// what is read again, as after any rebalance. kafkajs also gives up on errors it does not call
// retriable (seen while a broker is killed): a crash it does not restart is recreated after a backoff
// instead of ending the process.
import type { Admin, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '@watchpost/runtime';
import { tpKey } from './commit-tracker.ts';
import { ProgressWatchdog, coordinatorAnswered } from './progress-watchdog.ts';
import { recreations } from './consumer-metrics.ts';

/** Resolves after ms without holding the process open (bounds on Kafka calls that may hang). */
export const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** 1 s, 2 s, 4 s ... at most 30 s between recreations of a consumer that keeps crashing. */
const crashBackoff = (crashes: number): number => Math.min(30_000, 1000 * 2 ** Math.min(5, crashes - 1));

export interface GroupSupervisorOptions {
  kafka: Kafka;
  groupId: string;
  name: string;
  log: Logger;
  inputs: { topic: string; fromBeginning: boolean }[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  restartAfterMs: number;
  maxBatchMs: number;
  partitionsConsumedConcurrently: number;
  eachBatch(payload: EachBatchPayload): Promise<void>;
  /** This member joined the group: kafkajs restarts every assigned partition from its committed offset. */
  onJoin(): void;
  /** A new kafkajs consumer replaced the old one (nothing is paused on it). */
  onRecreated(): void;
  /** Partitions (tpKey) whose batch is in the sink or failing there: not Kafka's to fix. */
  busy(): ReadonlySet<string>;
}

export class GroupSupervisor {
  private consumer: Consumer;
  private readonly admin: Admin;
  private readonly o: GroupSupervisorOptions;
  /** Crashed and not restarted by kafkajs (until the watchdog recreates it and it joins). */
  crashed = false;
  /** Last fetch, batch or commit: a loop that stopped fetching is not healthy. */
  lastActivity = Date.now();
  private crashes = 0;
  private recreateAt = 0;
  private heartbeatFn: (() => Promise<void>) | undefined;
  /** This member's partitions by topic, as of its last join (null: not in the group now). */
  private assigned: Record<string, number[]> | null = null;
  private readonly watchdog: ProgressWatchdog;
  private restarting: Promise<void> | null = null;
  private watching = false;
  private watch: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(o: GroupSupervisorOptions) {
    this.o = o;
    this.consumer = this.newConsumer();
    this.admin = o.kafka.admin();
    this.watchdog = new ProgressWatchdog(o.restartAfterMs);
  }

  private newConsumer(): Consumer {
    const sessionTimeout = this.o.sessionTimeoutMs;
    return this.o.kafka.consumer({
      groupId: this.o.groupId,
      sessionTimeout,
      heartbeatInterval: Math.min(3000, Math.floor(sessionTimeout / 10)),
      rebalanceTimeout: this.o.rebalanceTimeoutMs,
      // Fetches of a few thousand ~1 KB messages: big enough for few round trips, small enough that
      // decoding one does not hold up the writes for long (and the heap stays small). The limits count
      // bytes on the wire, so a zstd topic (KAFKA_COMPRESSION=zstd) fits many more events in each (the
      // bench's alike events compress 17-35x at level 1; real fleets' events less). bench:store at
      // 300,000 events, zstd: 4/16 MiB gave 26,707 events/s with a 199 MiB heap peak, 1/4 MiB gave
      // 35,158 events/s with 142 MiB (uncompressed: 31,539 -> 35,154 events/s).
      maxBytesPerPartition: 1024 * 1024,
      maxBytes: 4 * 1024 * 1024,
      maxWaitTimeInMs: Math.max(50, Math.min(1000, this.o.maxBatchMs)),
      allowAutoTopicCreation: false,
    });
  }

  /** Connects the admin client, joins the group (waits for the first join) and starts the watchdog. */
  async start(): Promise<void> {
    await this.admin.connect();
    await this.run(this.consumer);
    this.watch = setInterval(() => this.watchOnce(), Math.max(1000, Math.floor(this.o.restartAfterMs / 8)));
  }

  /** The heartbeat of the batch being handled (kafkajs hands it to eachBatch). */
  heartbeat(): void {
    void this.heartbeatFn?.().catch(() => {});
  }

  /** Commits `next`, bounded: a commit to a coordinator that cannot be reached must not hold up the partition. */
  async commit(topic: string, partition: number, next: string): Promise<void> {
    const bound = this.o.rebalanceTimeoutMs;
    const commit = this.consumer.commitOffsets([{ topic, partition, offset: next }]);
    const late = timeout(bound).then(() => {
      throw new Error(`commit took over ${bound} ms`);
    });
    commit.catch(() => {}); // when it fails after the bound
    try {
      await Promise.race([commit, late]);
      this.watchdog.progressed(tpKey(topic, partition));
    } catch (err) {
      // Refused by a coordinator that answered: the consumer reaches its group, and recreating it now
      // would only start another rebalance (seen: a recreation every 55 s, each failing the next commit,
      // correlate stuck for minutes after a node came back in the Kafka cluster test). Once per stall:
      // refusals that never end are a stuck member (ProgressWatchdog.refused).
      if (coordinatorAnswered(err)) this.watchdog.refused(tpKey(topic, partition));
      throw err;
    }
  }

  /** false when kafkajs could not pause (between a crash and its own restart, or before a recreated consumer runs). */
  pause(topic: string, partition: number): boolean {
    try {
      this.consumer.pause([{ topic, partitions: [partition] }]);
      return true;
    } catch {
      return false;
    }
  }

  resume(topic: string, partition: number): void {
    // kafkajs throws between a crash and its own restart (and before a recreated consumer runs): the
    // partition is unpaused then anyway.
    try {
      this.consumer.resume([{ topic, partitions: [partition] }]);
    } catch {
      /* see above */
    }
  }

  // A replaced consumer that kafkajs restarted anyway (it was between a crash and its own restart when
  // disconnected) would stay in the group, holding partitions whose fetches are dropped: out again.
  private retire(c: Consumer): void {
    void c.disconnect().catch(() => {});
  }

  /** Wires a kafkajs consumer's events (a replaced one's are ignored), joins the group and runs it. */
  private async run(c: Consumer): Promise<void> {
    const { name, groupId, log } = this.o;
    c.on(c.events.GROUP_JOIN, (e) => {
      if (c !== this.consumer) return this.retire(c);
      this.crashed = false;
      this.crashes = 0;
      this.assigned = e.payload.memberAssignment;
      this.o.onJoin();
      log.info({ consumer: name, group: groupId, assignment: e.payload.memberAssignment }, 'joined consumer group');
    });
    c.on(c.events.FETCH, () => {
      if (c === this.consumer) this.lastActivity = Date.now();
    });
    c.on(c.events.CRASH, (e) => {
      if (c !== this.consumer) return;
      this.assigned = null;
      log.error({ consumer: name, err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      if (!e.payload.restart && !this.stopping) {
        this.crashed = true;
        this.recreateAt = Date.now() + crashBackoff(++this.crashes);
      }
    });
    await c.connect();
    for (const i of this.o.inputs) await c.subscribe({ topics: [i.topic], fromBeginning: i.fromBeginning });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.partitionsConsumedConcurrently,
      // A replaced consumer's fetch is dropped: the new one reads it again from the committed offset.
      eachBatch: async (payload) => {
        if (c !== this.consumer) return this.retire(c);
        // eslint-disable-next-line @typescript-eslint/unbound-method -- kafkajs hands out closures, not methods
        this.heartbeatFn = payload.heartbeat;
        this.lastActivity = Date.now();
        await this.o.eachBatch(payload);
      },
    });
  }

  /** The topic's partition ends and this group's committed offsets (-1 where it never committed). */
  private async offsets(topic: string) {
    const [ends, committed] = await Promise.all([
      this.admin.fetchTopicOffsets(topic),
      this.admin.fetchOffsets({ groupId: this.o.groupId, topics: [topic] }),
    ]);
    return { ends, done: new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)])) };
  }

  /** Lag per partition of this member's (every partition while it is not in the group) that has a committed offset. */
  private async memberLag(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const { topic } of this.o.inputs) {
      const mine = this.assigned ? (this.assigned[topic] ?? []) : undefined;
      if (mine && mine.length === 0) continue;
      const { ends, done } = await this.offsets(topic);
      for (const p of ends) {
        const c = done.get(p.partition) ?? -1n;
        // A group that never committed here (e.g. started at the end) is not judged by the admin's view.
        if (c < 0n || (mine && !mine.includes(p.partition))) continue;
        out.set(tpKey(topic, p.partition), Number(BigInt(p.high) > c ? BigInt(p.high) - c : 0n));
      }
    }
    return out;
  }

  private async restart(why: 'crashed' | 'no progress'): Promise<void> {
    const { name, groupId, log, restartAfterMs } = this.o;
    recreations.inc({ consumer: name, reason: why });
    const old = this.consumer;
    this.consumer = this.newConsumer();
    this.assigned = null;
    this.o.onRecreated();
    const reason = why === 'crashed' ? 'crashed and not restarted by kafkajs' : 'no progress with lag';
    log.warn({ consumer: name, group: groupId, after_ms: restartAfterMs }, `${reason}: recreating the Kafka consumer`);
    // Leaving the group may hang on the coordinator that cannot be reached: bounded.
    await Promise.race([old.disconnect().catch(() => {}), timeout(10_000)]);
    // Bounded too (run() waits for the first join): the watchdog must keep watching.
    const started = this.stopping ? Promise.resolve() : this.run(this.consumer);
    started.catch((err: unknown) =>
      log.warn({ err, consumer: name }, 'the recreated Kafka consumer did not start; the watchdog tries again'),
    );
    await Promise.race([started.catch(() => {}), timeout(this.o.rebalanceTimeoutMs + 30_000)]);
    this.watchdog.reset();
  }

  /** One look of the watchdog: recreate a crashed consumer after its backoff, or one without progress. */
  private watchOnce(): void {
    if (this.stopping || this.restarting || this.watching) return;
    this.watching = true;
    void (async () => {
      try {
        if (this.crashed && Date.now() >= this.recreateAt) {
          this.recreateAt = Date.now() + crashBackoff(++this.crashes); // should this one not start either
          this.restarting = this.restart('crashed');
          await this.restarting;
          return;
        }
        const lags = await Promise.race([this.memberLag(), timeout(this.o.restartAfterMs / 4).then(() => null)]);
        const now = Date.now();
        for (const [k, lag] of lags ?? []) this.watchdog.observed(k, lag, now);
        if (!this.stopping && this.watchdog.due(now, this.o.busy())) {
          this.restarting = this.restart('no progress');
          await this.restarting;
        }
      } catch {
        // Lag unreadable now (a broker away): the last known stands.
      } finally {
        this.restarting = null;
        this.watching = false;
      }
    })();
  }

  /** Messages in the inputs not yet committed by this group (sum over partitions). */
  async lag(): Promise<number> {
    let total = 0n;
    for (const { topic } of this.o.inputs) {
      const { ends, done } = await this.offsets(topic);
      for (const p of ends) {
        const c = done.get(p.partition) ?? -1n;
        const from = c < 0n ? BigInt(p.low) : c;
        if (BigInt(p.high) > from) total += BigInt(p.high) - from;
      }
    }
    return Number(total);
  }

  /** Stops the watchdog and fetching (a recreation under way finishes first); the writers drain after this. */
  async quiesce(): Promise<void> {
    this.stopping = true;
    clearInterval(this.watch);
    await this.restarting;
    try {
      this.consumer.pause(this.o.inputs.map(({ topic }) => ({ topic })));
    } catch {
      // A recreated consumer that did not start: nothing fetches.
    }
  }

  /** Leaves the group and closes the admin client (after quiesce and the writers' drain). */
  async disconnect(): Promise<void> {
    await this.consumer.disconnect().catch((err: unknown) => this.o.log.warn({ err }, 'consumer disconnect failed'));
    await this.admin.disconnect().catch(() => {});
  }
}
