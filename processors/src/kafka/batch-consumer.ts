// The one Kafka consume loop every processor uses (store, correlate, stream, ...), composed of small
// pieces that each have their own tests:
//   decode      per input topic (events by default), in the fetch loop; undecodable -> dead letter
//   PartitionBuffer   per topic-partition, flushed by size or after maxBatchMs (linger)
//   applyIsolating    the write: retried with backoff; a message that fails deterministically is
//                     isolated by splitting the batch and goes to the dead-letter topic with its error
//   DeadLetterWriter  chunked sends to the dead-letter topic
//   CommitTracker     committed positions, lag, and whether the consumer makes progress (readiness)
//
// At-least-once, commit-after-work: offsets are committed only after the batch was written (and its
// dead letters sent). A full batch is written in the background while the next fetch is decoded (one
// write in flight per partition, in offset order). Transient failures (connection lost, deadlock,
// timeout) pause the partition and are retried forever with capped backoff; they never dead-letter.
//
// kafkajs notes: autoCommit is off and offsets are committed explicitly. resolveOffset() only moves
// the in-memory fetch position so the next fetch continues after the buffered messages; after a
// rebalance kafkajs restarts from the committed offsets, so buffered-but-uncommitted messages are
// dropped on GROUP_JOIN and simply read again.
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage, Message, Producer } from 'kafkajs';
import { counter, gauge, histogram, type Logger } from '@watchpost/runtime';
import { deadLetterRecord, decodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import { PartitionBuffer, type BufferedBatch } from './partition-buffer.ts';
import { CommitTracker, tpKey } from './commit-tracker.ts';
import { DeadLetterWriter } from './dead-letter-writer.ts';
import { applyIsolating, SystemicFailure } from './isolate.ts';
import { ProgressWatchdog, coordinatorAnswered } from './progress-watchdog.ts';
import { isTransientError } from '@watchpost/runtime';

/** A decoded message of one input. `envelope` is the decoded value (the name of the events input's value). */
export interface DecodedMessage<T = EventEnvelope> {
  envelope: T;
  key: string;
  topic: string;
  partition: number;
  offset: string;
  /** The message's Kafka headers as read (e.g. AGENT_KEY_HEADER on events.v1); absent when it has none. */
  headers?: IHeaders;
}

/** An undecoded message (raw mode: the handler decodes, e.g. in a worker thread). */
export interface RawMessage {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
  /** The message's Kafka headers as read (the store records AGENT_KEY_HEADER); absent when it has none. */
  headers?: IHeaders;
}

/** Raw mode's answer: which messages of the batch (by index) were poison, and why. */
export interface RawResult {
  poison: { index: number; reason: string }[];
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/** One topic the consumer reads, and how its values are decoded. */
export interface ConsumerInput<T> {
  topic: string;
  /** Where a group without a committed offset starts. Default: options.fromBeginning (true). */
  fromBeginning?: boolean;
  /** Default: the event envelope of events.v1 (JSON + schema v1). */
  decode?: (value: Buffer | null) => Decoded<T>;
}

export interface BatchConsumerOptions<T = EventEnvelope> {
  kafka: Kafka;
  groupId: string;
  /** One input with the default (event envelope) decoding; or give `inputs`. */
  topic?: string;
  /** Several inputs (e.g. events.v1 and problems.v1); a batch always holds one topic-partition. */
  inputs?: ConsumerInput<T>[];
  deadLetterTopic: string;
  /** Metrics label, e.g. 'store'. */
  name: string;
  maxBatchSize: number;
  maxBatchMs: number;
  /** A batch is also flushed once its messages (as read from Kafka) reach this many bytes. Default 32 MiB. */
  maxBatchBytes?: number;
  log: Logger;
  fromBeginning?: boolean;
  /**
   * Called with decoded messages of ONE topic-partition, in offset order, and must be all-or-nothing
   * per call (a transaction, one insert). Throw => retried with backoff; nothing past it is committed.
   * A message that keeps failing deterministically is isolated (the batch is split) and dead-lettered.
   */
  handle?(batch: DecodedMessage<T>[]): Promise<void>;
  /**
   * Raw mode, instead of handle(): gets the messages undecoded, writes the valid ones and returns the
   * poison ones, which then go to the DLQ before the commit. Same retry, isolation and commit rules.
   */
  handleRaw?(batch: RawMessage[]): Promise<RawResult>;
  /** Kafka session timeout (ms); heartbeats go out at a tenth of it (max 3 s). Default 30 s. */
  sessionTimeoutMs?: number;
  /** Partitions handled in parallel by this process. Default 4. */
  partitionsConsumedConcurrently?: number;
  /** Upper bound of the retry backoff. Default 10 s. */
  maxBackoffMs?: number;
  /** Non-transient failures of a batch before it is split to isolate the failing message. Default 5. */
  attempts?: number;
  /** Not ready after this long with lag but no commit, or while one batch keeps failing. Default 60 s. */
  stallMs?: number;
  /** How long stop() keeps retrying a failing final batch before giving up (uncommitted). Default 15 s. */
  stopTimeoutMs?: number;
  /**
   * The kafkajs consumer is recreated when a partition of this member has had lag and no commit for
   * this long (see the watchdog below). Default: the rebalance timeout plus 10 s (40 s).
   */
  restartAfterMs?: number;
}

export interface BatchConsumer {
  /** Finish the in-flight batch, flush what is buffered, commit, disconnect. */
  stop(): Promise<void>;
  /** Messages in the inputs not yet committed by this group (sum over partitions). */
  lag(): Promise<number>;
  /** Liveness: false when the loop crashed, stopped fetching, or one batch has been failing for longer than stallMs. */
  healthy(): boolean;
  /** Readiness: healthy, and no partition has lag without progress for stallMs. */
  ready(): boolean;
}

const lagGauge = gauge('watchpost_consumer_lag', 'Messages not yet committed by the consumer group, per partition', [
  'consumer',
  'group',
  'partition',
]);
const batchSize = histogram(
  'watchpost_consumer_batch_size',
  'Messages per handled batch',
  ['consumer'],
  [1, 10, 100, 500, 1000, 2500, 5000, 10000, 25000, 50000],
);
const handleSeconds = histogram(
  'watchpost_consumer_handle_seconds',
  'Time handle() took per batch (the sink write)',
  ['consumer'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);
const handleFailures = counter(
  'watchpost_consumer_handle_failures_total',
  'handle() attempts that threw (retried with backoff)',
  ['consumer'],
);
const transientFailures = counter(
  'watchpost_consumer_transient_failures_total',
  'handle() attempts that failed with a transient error (dependency away, deadlock, timeout): never dead-lettered',
  ['consumer'],
);
const splits = counter(
  'watchpost_consumer_isolation_splits_total',
  'Batches split to isolate a message that fails deterministically',
  ['consumer'],
);
const consumedTotal = counter('watchpost_consumer_messages_total', 'Messages handled and committed', ['consumer']);
const deadLetters = counter('watchpost_consumer_dead_letters_total', 'Messages sent to the dead-letter topic', ['consumer']);
const isolated = counter(
  'watchpost_consumer_isolated_total',
  'Messages dead-lettered because writing them failed deterministically (isolated by splitting the batch)',
  ['consumer'],
);

const recreations = counter(
  'watchpost_consumer_recreations_total',
  'Kafka consumers recreated with fresh connections: crashed and not restarted by kafkajs, or no progress with lag',
  ['consumer', 'reason'],
);

type Item<T> = { kind: 'decoded'; m: DecodedMessage<T> } | { kind: 'raw'; m: RawMessage };

interface PartitionState<T> {
  topic: string;
  partition: number;
  buffer: PartitionBuffer<Item<T>, Message>;
  /** Serializes eachBatch, the linger timer and stop() on one partition. */
  tail: Promise<void>;
  /** The batch being written (at most one per partition); resolves false when given up at stop. */
  writing: Promise<boolean> | null;
  busy: boolean;
  /** Since when the current batch keeps failing (0 = not failing). */
  failingSince: number;
  paused: boolean;
  /** A batch is in the handler or its dead letters are being sent (not yet at its commit). */
  handling: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Resolves after ms without holding the process open (bounds on Kafka calls that may hang). */
const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Exponential backoff with jitter: 250 ms, 500 ms, 1 s, ... capped. */
export function backoffMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const base = Math.min(capMs, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

const nextOffset = (offset: string) => (BigInt(offset) + 1n).toString();

function decodeEvent(value: Buffer | null): Decoded<EventEnvelope> {
  const d = decodeEnvelope(value);
  return d.ok ? { ok: true, value: d.envelope } : d;
}

class GaveUp extends Error {}

export async function startBatchConsumer<T = EventEnvelope>(opts: BatchConsumerOptions<T>): Promise<BatchConsumer> {
  const { kafka, groupId, name, log } = opts;
  if (!opts.handle === !opts.handleRaw) throw new Error('startBatchConsumer: give exactly one of handle and handleRaw');
  const inputs: ConsumerInput<T>[] = opts.inputs ?? (opts.topic ? [{ topic: opts.topic }] : []);
  if (inputs.length === 0) throw new Error('startBatchConsumer: give topic or inputs');
  const decoders = new Map(
    inputs.map((i) => [i.topic, i.decode ?? (decodeEvent as unknown as (v: Buffer | null) => Decoded<T>)]),
  );
  const topics = inputs.map((i) => i.topic);
  const sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
  const maxBackoff = opts.maxBackoffMs ?? 10_000;
  const attempts = opts.attempts ?? 5;
  const stallMs = opts.stallMs ?? 60_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 15_000;
  const rebalanceTimeout = Math.max(sessionTimeout, 30_000);
  const restartAfterMs = opts.restartAfterMs ?? rebalanceTimeout + 10_000;

  const newConsumer = (): Consumer =>
    kafka.consumer({
      groupId,
      sessionTimeout,
      heartbeatInterval: Math.min(3000, Math.floor(sessionTimeout / 10)),
      rebalanceTimeout,
      // Fetches of a few thousand ~1 KB messages: big enough for few round trips, small enough that
      // decoding one does not hold up the writes for long (and the heap stays small). The limits count
      // bytes on the wire, so a zstd topic (KAFKA_COMPRESSION=zstd) fits many more events in each (the
      // bench's alike events compress 17-35x at level 1; real fleets' events less). bench:store at
      // 300,000 events, zstd: 4/16 MiB gave 26,707 events/s with a 199 MiB heap peak, 1/4 MiB gave
      // 35,158 events/s with 142 MiB (uncompressed: 31,539 -> 35,154 events/s).
      maxBytesPerPartition: 1024 * 1024,
      maxBytes: 4 * 1024 * 1024,
      maxWaitTimeInMs: Math.max(50, Math.min(1000, opts.maxBatchMs)),
      allowAutoTopicCreation: false,
    });
  let consumer = newConsumer();
  // No kafkajs retries (a retried send of several leaders may skip some: tulios/kafkajs#1303, see
  // ingest/src/kafka-sink.ts); the dead-letter writer keeps what failed and the write retries it.
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, retry: { retries: 0 } });
  const admin = kafka.admin();
  const deadLetterWriter = new DeadLetterWriter(async (messages) => {
    await producer.send({ topic: opts.deadLetterTopic, acks: -1, messages });
  });
  const tracker = new CommitTracker();

  const states = new Map<string, PartitionState<T>>();
  let stopping = false;
  let stopDeadline = Infinity;
  let crashed = false;
  /** Crashes kafkajs would not restart since the last join, and when the watchdog recreates the consumer. */
  let crashes = 0;
  let recreateAt = 0;
  let lastActivity = Date.now();
  let heartbeat: (() => Promise<void>) | undefined;

  const stateFor = (topic: string, partition: number): PartitionState<T> => {
    const k = tpKey(topic, partition);
    let st = states.get(k);
    if (!st) {
      st = {
        topic,
        partition,
        buffer: new PartitionBuffer(opts.maxBatchSize, opts.maxBatchMs, opts.maxBatchBytes ?? 32 * 1024 * 1024),
        tail: Promise.resolve(),
        writing: null,
        busy: false,
        failingSince: 0,
        paused: false,
        handling: false,
      };
      states.set(k, st);
    }
    return st;
  };

  const withLock = <R>(st: PartitionState<T>, fn: () => Promise<R>): Promise<R> => {
    const run = st.tail.then(async () => {
      st.busy = true;
      try {
        return await fn();
      } finally {
        st.busy = false;
      }
    });
    st.tail = run.then(
      () => {},
      () => {},
    );
    return run;
  };

  /** The DLQ record of a message (logged here, sent by the writer). */
  const deadLetter = (
    st: PartitionState<T>,
    m: { key: Buffer | null; value: Buffer | null; offset: string },
    reason: string,
  ): Message => {
    log.warn(
      { consumer: name, topic: st.topic, partition: st.partition, offset: m.offset, reason },
      'message to the dead-letter topic',
    );
    return {
      key: m.key,
      value: JSON.stringify(deadLetterRecord(reason, st.topic, st.partition, m.offset, m.key, m.value)),
    };
  };

  const setLag = (st: PartitionState<T>) => {
    const lag = tracker.lag(st.topic, st.partition);
    // The first input's partitions are labelled by number; further inputs' as `topic:partition`.
    const partition = st.topic === topics[0] ? String(st.partition) : `${st.topic}:${st.partition}`;
    if (lag !== null) lagGauge.set({ consumer: name, group: groupId, partition }, lag);
  };

  const pause = (st: PartitionState<T>) => {
    if (!st.paused && !stopping) {
      // kafkajs throws between a crash and its own restart, and before a recreated consumer runs (a new
      // consumer starts unpaused: st.paused stays false, the backoff still holds the writes).
      try {
        consumer.pause([{ topic: st.topic, partitions: [st.partition] }]);
        st.paused = true;
      } catch {
        /* see above */
      }
    }
  };

  /** Backoff before a retry; gives up (throws) when stopping past the deadline. */
  const waitRetry = async (st: PartitionState<T>, err: unknown, attempt: number, size: number, transient: boolean) => {
    handleFailures.inc({ consumer: name });
    if (transient || isTransientError(err)) transientFailures.inc({ consumer: name });
    if (st.failingSince === 0) st.failingSince = Date.now();
    pause(st);
    if (stopping && Date.now() >= stopDeadline) throw new GaveUp('stopping');
    const delay = backoffMs(attempt, maxBackoff);
    log.warn(
      { err, consumer: name, topic: st.topic, partition: st.partition, attempt, delay_ms: delay, messages: size, transient },
      'batch failed; partition paused, retrying',
    );
    await sleep(stopping ? Math.min(delay, Math.max(0, stopDeadline - Date.now())) : delay);
  };

  /** Applies part of a batch through the handler; raw mode's poison answers are collected. */
  const applyPart = async (part: Item<T>[], rawPoison: Message[], st: PartitionState<T>): Promise<void> => {
    const end = handleSeconds.startTimer({ consumer: name });
    if (opts.handleRaw) {
      const raw = part.map((i) => i.m as RawMessage);
      const { poison } = await opts.handleRaw(raw);
      for (const p of poison) rawPoison.push(deadLetter(st, raw[p.index]!, p.reason));
      deadLetters.inc({ consumer: name }, poison.length);
    } else {
      await opts.handle!(part.map((i) => i.m as DecodedMessage<T>));
    }
    end();
    batchSize.observe({ consumer: name }, part.length);
  };

  /** Writes one batch (handler with isolation, then dead letters), then commits. false = gave up (only while stopping). */
  const write = async (st: PartitionState<T>, job: BufferedBatch<Item<T>, Message>): Promise<boolean> => {
    // Keep the group membership alive while a long insert or a retry loop blocks this partition.
    const beat = setInterval(() => void heartbeat?.().catch(() => {}), Math.min(1000, Math.floor(sessionTimeout / 10)));
    const count = job.items.length + job.poison.length;
    st.handling = true;
    try {
      for (let round = 1; job.items.length > 0; round++) {
        try {
          const rawPoison: Message[] = [];
          const failed = await applyIsolating(job.items, (part) => applyPart(part, rawPoison, st), {
            attempts,
            wait: (err, attempt, size) => waitRetry(st, err, attempt, size, false),
            onSplit: () => splits.inc({ consumer: name }),
          });
          for (const f of failed) {
            const m = f.item.m;
            const source =
              f.item.kind === 'raw'
                ? (m as RawMessage)
                : { key: Buffer.from((m as DecodedMessage<T>).key), value: null, offset: m.offset };
            job.poison.push(deadLetter(st, { ...source, value: rawValue(f.item) }, `${name} could not write it: ${f.reason}`));
          }
          deadLetters.inc({ consumer: name }, failed.length);
          isolated.inc({ consumer: name }, failed.length);
          job.poison.push(...rawPoison);
          job.items = [];
        } catch (err) {
          if (err instanceof GaveUp) throw err;
          if (!(err instanceof SystemicFailure)) throw err;
          await waitRetry(st, err.causeError, round, job.items.length, false);
        }
      }
      // Dead letters before the commit: a crash in between re-reads and re-sends them (at-least-once).
      for (let attempt = 1; job.poison.length > 0; attempt++) {
        try {
          await deadLetterWriter.write(job.poison);
        } catch (err) {
          await waitRetry(st, err, attempt, job.poison.length, true);
        }
      }
      st.handling = false;
      const next = nextOffset(job.upTo);
      try {
        // Bounded: a commit to a coordinator that cannot be reached must not hold up the partition.
        const commit = consumer.commitOffsets([{ topic: st.topic, partition: st.partition, offset: next }]);
        const late = timeout(rebalanceTimeout).then(() => {
          throw new Error(`commit took over ${rebalanceTimeout} ms`);
        });
        commit.catch(() => {}); // when it fails after the bound
        await Promise.race([commit, late]);
        tracker.committed(st.topic, st.partition, next, Date.now());
        watchdog.progressed(tpKey(st.topic, st.partition));
        setLag(st);
      } catch (err) {
        // Written but not committed (e.g. the partition moved in a rebalance): it is read again and
        // the sink's idempotency by event_id absorbs the repeat.
        log.warn({ err, consumer: name, partition: st.partition }, 'commit failed after a successful write');
        // Refused by a coordinator that answered: the consumer reaches its group, and recreating it now
        // would only start another rebalance (seen: a recreation every 55 s, each failing the next commit,
        // correlate stuck for minutes after a node came back in the Kafka cluster test).
        if (coordinatorAnswered(err)) watchdog.progressed(tpKey(st.topic, st.partition));
      }
      consumedTotal.inc({ consumer: name }, count);
      st.failingSince = 0;
      if (st.paused) {
        st.paused = false;
        // kafkajs throws between a crash and its own restart (and before a recreated consumer runs); a
        // throw here would leave the partition's writer failed for good. Unpaused then anyway.
        try {
          if (!stopping) consumer.resume([{ topic: st.topic, partitions: [st.partition] }]);
        } catch {
          /* see above */
        }
      }
      lastActivity = Date.now();
      return true;
    } catch (err) {
      if (!(err instanceof GaveUp)) throw err;
      log.error({ consumer: name, partition: st.partition }, 'giving up on a failing batch at stop; it stays uncommitted');
      return false;
    } finally {
      clearInterval(beat);
      st.handling = false;
    }
  };

  /**
   * Hands the pending batch to the partition's writer and returns once it is under way; waits first
   * for the write before it (order, and at most two batches in memory). false = a write was given up
   * (only while stopping).
   */
  const flush = async (st: PartitionState<T>): Promise<boolean> => {
    if (st.writing && !(await st.writing)) return false;
    const job = st.buffer.take();
    if (job) {
      st.writing = write(st, job).catch((err: unknown) => {
        log.error({ err, consumer: name, partition: st.partition }, 'batch write failed unexpectedly');
        return false;
      });
    }
    return true;
  };

  /** Waits until nothing of this partition is being written. */
  const drain = async (st: PartitionState<T>): Promise<boolean> => (st.writing ? st.writing : true);

  // eslint-disable-next-line @typescript-eslint/unbound-method -- kafkajs hands out closures, not methods
  const eachBatch = async ({ batch, resolveOffset, heartbeat: hb, isRunning, isStale }: EachBatchPayload) => {
    heartbeat = hb;
    lastActivity = Date.now();
    const st = stateFor(batch.topic, batch.partition);
    const decode = decoders.get(batch.topic)!;
    await withLock(st, async () => {
      if (stopping || !isRunning() || isStale()) return; // not resolved: fetched again (or never, when stopping)
      tracker.fetched(batch.topic, batch.partition, batch.messages[0]?.offset ?? null, batch.highWatermark, Date.now());
      for (const m of batch.messages) {
        const now = Date.now();
        const bytes = m.value?.length ?? 0;
        if (opts.handleRaw)
          st.buffer.add(
            { kind: 'raw', m: { key: m.key, value: m.value, offset: m.offset, headers: m.headers } },
            m.offset,
            now,
            bytes,
          );
        else {
          const decoded = decode(m.value);
          if (decoded.ok) {
            const dm: DecodedMessage<T> = {
              envelope: decoded.value,
              key: m.key?.toString('utf8') ?? '',
              topic: batch.topic,
              partition: batch.partition,
              offset: m.offset,
            };
            if (m.headers && Object.keys(m.headers).length > 0) dm.headers = m.headers;
            keepRaw(dm, m);
            st.buffer.add({ kind: 'decoded', m: dm }, m.offset, now, bytes);
          } else {
            deadLetters.inc({ consumer: name });
            st.buffer.addPoison(deadLetter(st, m, decoded.reason), m.offset, now, bytes);
          }
        }
        if (st.buffer.full() && !(await flush(st))) return;
      }
      if (batch.messages.length > 0) resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
      setLag(st);
      if (st.buffer.lingered(Date.now())) await flush(st);
    });
  };

  // Lingering batches of a partition that went quiet are flushed by time, not by the next fetch.
  const tick = setInterval(
    () => {
      for (const st of states.values()) {
        if (st.busy || stopping || !st.buffer.lingered(Date.now())) continue;
        void withLock(st, async () => {
          if (!stopping && st.buffer.lingered(Date.now())) await flush(st);
        }).catch((err: unknown) => log.error({ err, consumer: name }, 'linger flush failed'));
      }
    },
    Math.max(20, Math.min(250, Math.floor(opts.maxBatchMs / 4))),
  );

  // A replaced consumer that kafkajs restarted anyway (it was between a crash and its own restart when
  // disconnected) would stay in the group, holding partitions whose fetches are dropped: out again.
  const retire = (c: Consumer): void => {
    void c.disconnect().catch(() => {});
  };

  /** This member's partitions by topic, as of its last join (null: not in the group now). */
  let assigned: Record<string, number[]> | null = null;

  /** Wires a kafkajs consumer's events (a replaced one's are ignored), joins the group and runs it. */
  const run = async (c: Consumer): Promise<void> => {
    c.on(c.events.GROUP_JOIN, (e) => {
      if (c !== consumer) return retire(c);
      crashed = false;
      crashes = 0;
      // kafkajs restarts every assigned partition from its committed offset after a join: whatever was
      // buffered (resolved, never committed) will be fetched again.
      // A write under way finishes (its commit may fail if the partition moved: read again, absorbed).
      tracker.reset();
      assigned = e.payload.memberAssignment;
      for (const st of states.values())
        void withLock(st, async () => {
          st.buffer.clear();
        });
      log.info({ consumer: name, group: groupId, assignment: e.payload.memberAssignment }, 'joined consumer group');
    });
    c.on(c.events.FETCH, () => {
      if (c === consumer) lastActivity = Date.now();
    });
    c.on(c.events.CRASH, (e) => {
      if (c !== consumer) return;
      assigned = null;
      log.error({ consumer: name, err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      // kafkajs gives up on errors it does not call retriable (seen while a broker is killed): the
      // watchdog below recreates the consumer after a backoff instead of ending the process.
      if (!e.payload.restart && !stopping) {
        crashed = true;
        recreateAt = Date.now() + crashBackoff(++crashes);
      }
    });
    await c.connect();
    for (const i of inputs)
      await c.subscribe({ topics: [i.topic], fromBeginning: i.fromBeginning ?? opts.fromBeginning ?? true });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 4,
      // A replaced consumer's fetch is dropped: the new one reads it again from the committed offset.
      eachBatch: async (payload) => (c === consumer ? eachBatch(payload) : retire(c)),
    });
  };

  await Promise.all([producer.connect(), admin.connect()]);
  await run(consumer);
  log.info({ consumer: name, group: groupId, topics }, 'batch consumer started');

  // The watchdog. kafkajs keeps the group coordinator it found (commits and heartbeats go on to it) and
  // gives up instead of retrying when finding or joining it meets a reset or closed connection (it
  // retries a refused one only): a coordinator or leader cut off rather than down (a network partition,
  // a hung host, a proxy or load balancer in front of a dead node) stopped the consumer until that node
  // came back. So when a partition of this member has had lag (as the brokers report it) and no commit
  // for restartAfterMs, with no batch failing in the handler, the kafkajs consumer is replaced by a new
  // one: its own connections, metadata and coordinator lookup. A write under way finishes (its commit
  // may fail); the new member resumes from the committed offsets and the sinks' idempotency absorbs
  // what is read again, as after any rebalance.
  const watchdog = new ProgressWatchdog(restartAfterMs);
  let restarting: Promise<void> | null = null;
  let watching = false;
  /** Lag per partition of this member's (every partition while it is not in the group) that has a committed offset. */
  const memberLag = async (): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    for (const topic of topics) {
      const mine = assigned ? (assigned[topic] ?? []) : undefined;
      if (mine && mine.length === 0) continue;
      const [ends, committed] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId, topics: [topic] }),
      ]);
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      for (const p of ends) {
        const c = done.get(p.partition) ?? -1n;
        // A group that never committed here (e.g. started at the end) is not judged by the admin's view.
        if (c < 0n || (mine && !mine.includes(p.partition))) continue;
        out.set(tpKey(topic, p.partition), Number(BigInt(p.high) > c ? BigInt(p.high) - c : 0n));
      }
    }
    return out;
  };
  const restart = async (why: 'crashed' | 'no progress') => {
    recreations.inc({ consumer: name, reason: why });
    const old = consumer;
    consumer = newConsumer();
    assigned = null;
    for (const st of states.values()) st.paused = false; // the new consumer has nothing paused
    const reason = why === 'crashed' ? 'crashed and not restarted by kafkajs' : 'no progress with lag';
    log.warn({ consumer: name, group: groupId, after_ms: restartAfterMs }, `${reason}: recreating the Kafka consumer`);
    // Leaving the group may hang on the coordinator that cannot be reached: bounded.
    await Promise.race([old.disconnect().catch(() => {}), timeout(10_000)]);
    // Bounded too (run() waits for the first join): the watchdog must keep watching.
    const started = stopping ? Promise.resolve() : run(consumer);
    started.catch((err: unknown) =>
      log.warn({ err, consumer: name }, 'the recreated Kafka consumer did not start; the watchdog tries again'),
    );
    await Promise.race([started.catch(() => {}), timeout(rebalanceTimeout + 30_000)]);
    watchdog.reset();
    tracker.reset();
  };
  const watch = setInterval(
    () => {
      if (stopping || restarting || watching) return;
      watching = true;
      void (async () => {
        try {
          if (crashed && Date.now() >= recreateAt) {
            recreateAt = Date.now() + crashBackoff(++crashes); // should this one not start either
            restarting = restart('crashed');
            await restarting;
            return;
          }
          const lags = await Promise.race([memberLag(), timeout(restartAfterMs / 4).then(() => null)]);
          const now = Date.now();
          for (const [k, lag] of lags ?? []) watchdog.observed(k, lag, now);
          // A partition whose batch is in the handler or failing there is not Kafka's to fix.
          const busy = new Set(
            [...states.values()].filter((st) => st.handling || st.failingSince > 0).map((st) => tpKey(st.topic, st.partition)),
          );
          if (!stopping && watchdog.due(now, busy)) {
            restarting = restart('no progress');
            await restarting;
          }
        } catch {
          // Lag unreadable now (a broker away): the last known stands.
        } finally {
          restarting = null;
          watching = false;
        }
      })();
    },
    Math.max(1000, Math.floor(restartAfterMs / 8)),
  );

  const healthy = () => {
    if (crashed) return false;
    if (stopping) return true;
    const now = Date.now();
    if (now - lastActivity > stallMs) return false;
    for (const st of states.values()) if (st.failingSince > 0 && now - st.failingSince > stallMs) return false;
    return true;
  };

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopDeadline = Date.now() + stopTimeoutMs;
        clearInterval(tick);
        clearInterval(watch);
        await restarting;
        try {
          consumer.pause(topics.map((topic) => ({ topic })));
        } catch {
          // A recreated consumer that did not start: nothing fetches.
        }
        // Waits for any in-flight eachBatch/flush of each partition, then writes what is buffered.
        await Promise.all(
          [...states.values()].map((st) => withLock(st, async () => (await flush(st)) && drain(st)).catch(() => false)),
        );
        await consumer.disconnect().catch((err: unknown) => log.warn({ err }, 'consumer disconnect failed'));
        await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
        log.info({ consumer: name }, 'batch consumer stopped');
      })();
      return stopped;
    },
    async lag() {
      let total = 0n;
      for (const topic of topics) {
        const [ends, committed] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId, topics: [topic] }),
        ]);
        const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
        for (const p of ends) {
          const c = done.get(p.partition) ?? -1n;
          const from = c < 0n ? BigInt(p.low) : c;
          if (BigInt(p.high) > from) total += BigInt(p.high) - from;
        }
      }
      return Number(total);
    },
    healthy,
    ready() {
      return healthy() && (stopping || !tracker.stalled(Date.now(), stallMs));
    },
  };
}

/** 1 s, 2 s, 4 s ... at most 30 s between recreations of a consumer that keeps crashing. */
const crashBackoff = (crashes: number): number => Math.min(30_000, 1000 * 2 ** Math.min(5, crashes - 1));

// The original bytes of a decoded message, kept (not enumerable, so handlers never see them) for the
// dead-letter record should the write of that message fail.
const RAW = Symbol('raw');
function keepRaw(dm: object, m: KafkaMessage): void {
  Object.defineProperty(dm, RAW, { value: m.value, enumerable: false });
}
function rawValue<T>(item: Item<T>): Buffer | null {
  if (item.kind === 'raw') return item.m.value;
  return (item.m as unknown as Record<symbol, Buffer | null>)[RAW] ?? null;
}
