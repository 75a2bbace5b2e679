// The one Kafka consume loop every processor uses (store, correlate, ...).
//
// At-least-once, commit-after-work: messages of one partition are decoded, accumulated across fetches
// until maxBatchSize or maxBatchMs, handed to handle(), and only when handle() returned are the
// offsets committed. A full batch is written in the background while the next fetch is decoded (one
// write in flight per partition, in offset order), so decoding here and the sink's work overlap. A
// failing handle() pauses the partition and is retried with capped exponential backoff; nothing past
// the last written message is ever committed. Poison messages (undecodable or schema-invalid) go to
// the dead-letter topic with their reason and the partition moves on. In raw mode (handleRaw)
// decoding is the handler's: the store decodes in a worker thread, off this loop.
//
// kafkajs notes: autoCommit is off and offsets are committed explicitly. resolveOffset() only moves
// the in-memory fetch position so the next fetch continues after the buffered messages; after a
// rebalance kafkajs restarts from the committed offsets, so buffered-but-uncommitted messages are
// dropped on GROUP_JOIN and simply read again.
import type { Consumer, EachBatchPayload, Kafka, Message, Producer } from 'kafkajs';
import { counter, gauge, histogram, type Logger } from '@watchpost/runtime';
import { deadLetterRecord, decodeEnvelope, type EventEnvelope } from '@watchpost/schemas';

export interface DecodedMessage {
  envelope: EventEnvelope;
  key: string;
  partition: number;
  offset: string;
}

/** An undecoded message (raw mode: the handler decodes, e.g. in a worker thread). */
export interface RawMessage {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
}

/** Raw mode's answer: which messages of the batch (by index) were poison, and why. */
export interface RawResult {
  poison: { index: number; reason: string }[];
}

export interface BatchConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topic: string;
  deadLetterTopic: string;
  /** Metrics label, e.g. 'store'. */
  name: string;
  maxBatchSize: number;
  maxBatchMs: number;
  log: Logger;
  fromBeginning?: boolean;
  /**
   * Called with decoded, schema-valid messages of ONE partition, in offset order. Throw => the
   * wrapper pauses, backs off, retries the same batch; nothing past it is committed. Return => the
   * offsets are committed. Poison messages never reach handle(): they go to the DLQ, counted.
   */
  handle?(batch: DecodedMessage[]): Promise<void>;
  /**
   * Raw mode, instead of handle(): gets the messages undecoded, writes the valid ones and returns the
   * poison ones, which then go to the DLQ before the commit. Same retry and commit rules.
   */
  handleRaw?(batch: RawMessage[]): Promise<RawResult>;
  /** Kafka session timeout (ms); heartbeats go out at a tenth of it (max 3 s). Default 30 s. */
  sessionTimeoutMs?: number;
  /** Partitions handled in parallel by this process. Default 4. */
  partitionsConsumedConcurrently?: number;
  /** Upper bound of the retry backoff. Default 10 s. */
  maxBackoffMs?: number;
  /** The loop counts as stalled after this long without a fetch or while one batch keeps failing. Default 60 s. */
  stallMs?: number;
  /** How long stop() keeps retrying a failing final batch before giving up (uncommitted). Default 15 s. */
  stopTimeoutMs?: number;
}

export interface BatchConsumer {
  /** Finish the in-flight batch, flush what is buffered, commit, disconnect. */
  stop(): Promise<void>;
  /** Messages in the topic not yet committed by this group (sum over partitions). */
  lag(): Promise<number>;
  /** false when the loop crashed, stopped fetching, or one batch has been failing for longer than stallMs. */
  healthy(): boolean;
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
const consumedTotal = counter('watchpost_consumer_messages_total', 'Messages handled and committed', ['consumer']);
const deadLetters = counter('watchpost_consumer_dead_letters_total', 'Poison messages sent to the dead-letter topic', [
  'consumer',
]);

interface PartitionState {
  partition: number;
  buffer: DecodedMessage[];
  /** Raw mode's buffer. */
  raw: RawMessage[];
  poison: Message[];
  /** Highest offset taken in (valid or poison) and not yet committed; null when nothing is pending. */
  pendingOffset: string | null;
  /** When the oldest pending message arrived (0 = nothing pending). */
  firstAt: number;
  highWatermark: string | null;
  /** The offset this group would resume from (after the last commit, or where this process started). */
  committedNext: string | null;
  /** Serializes eachBatch, the linger timer and stop() on one partition. */
  tail: Promise<void>;
  /** The batch being written (at most one per partition); resolves false when given up at stop. */
  writing: Promise<boolean> | null;
  busy: boolean;
  /** Since when the current batch keeps failing (0 = not failing). */
  failingSince: number;
  paused: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Exponential backoff with jitter: 250 ms, 500 ms, 1 s, ... capped. */
export function backoffMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const base = Math.min(capMs, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

const nextOffset = (offset: string) => (BigInt(offset) + 1n).toString();

export async function startBatchConsumer(opts: BatchConsumerOptions): Promise<BatchConsumer> {
  const { kafka, topic, groupId, name, log } = opts;
  if (!opts.handle === !opts.handleRaw) throw new Error('startBatchConsumer: give exactly one of handle and handleRaw');
  const sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
  const maxBackoff = opts.maxBackoffMs ?? 10_000;
  const stallMs = opts.stallMs ?? 60_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 15_000;

  const consumer: Consumer = kafka.consumer({
    groupId,
    sessionTimeout,
    heartbeatInterval: Math.min(3000, Math.floor(sessionTimeout / 10)),
    rebalanceTimeout: Math.max(sessionTimeout, 30_000),
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
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
  const admin = kafka.admin();

  const states = new Map<number, PartitionState>();
  let stopping = false;
  let stopDeadline = Infinity;
  let crashed = false;
  let lastActivity = Date.now();
  let heartbeat: (() => Promise<void>) | undefined;

  const stateFor = (partition: number): PartitionState => {
    let st = states.get(partition);
    if (!st) {
      st = {
        partition,
        buffer: [],
        raw: [],
        poison: [],
        pendingOffset: null,
        firstAt: 0,
        highWatermark: null,
        committedNext: null,
        tail: Promise.resolve(),
        writing: null,
        busy: false,
        failingSince: 0,
        paused: false,
      };
      states.set(partition, st);
    }
    return st;
  };

  const withLock = <T>(st: PartitionState, fn: () => Promise<T>): Promise<T> => {
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

  const clear = (st: PartitionState) => {
    st.buffer = [];
    st.raw = [];
    st.poison = [];
    st.pendingOffset = null;
    st.firstAt = 0;
  };

  /** The DLQ record of a poison message (logged here, sent by the writer). */
  const poisonMessage = (partition: number, m: RawMessage, reason: string): Message => {
    log.warn({ consumer: name, partition, offset: m.offset, reason }, 'poison message to the dead-letter topic');
    return { key: m.key, value: JSON.stringify(deadLetterRecord(reason, topic, partition, m.offset, m.key, m.value)) };
  };

  const setLag = (st: PartitionState, committedNext: string) => {
    if (st.highWatermark === null) return;
    const lag = BigInt(st.highWatermark) - BigInt(committedNext);
    lagGauge.set({ consumer: name, group: groupId, partition: String(st.partition) }, Number(lag < 0n ? 0n : lag));
  };

  /**
   * Hands the pending batch to the partition's writer and returns once it is under way; waits first
   * for the write before it (order, and at most two batches in memory). false = a write was given up
   * (only while stopping).
   */
  const flush = async (st: PartitionState): Promise<boolean> => {
    if (st.writing && !(await st.writing)) return false;
    if (st.pendingOffset === null) return true;
    const job = { upTo: st.pendingOffset, batch: st.buffer, raw: st.raw, poison: st.poison };
    clear(st);
    st.writing = write(st, job);
    return true;
  };

  /** Waits until nothing of this partition is being written. */
  const drain = async (st: PartitionState): Promise<boolean> => (st.writing ? st.writing : true);

  /** Writes one batch (DLQ first, then handle), then commits. false = gave up (only while stopping). */
  const write = async (
    st: PartitionState,
    job: { upTo: string; batch: DecodedMessage[]; raw: RawMessage[]; poison: Message[] },
  ): Promise<boolean> => {
    const { upTo, batch, raw } = job;
    let rawWritten = raw.length === 0;
    // Keep the group membership alive while a long insert or a retry loop blocks this partition.
    const beat = setInterval(() => void heartbeat?.().catch(() => {}), Math.min(1000, Math.floor(sessionTimeout / 10)));
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          if (!rawWritten) {
            const end = handleSeconds.startTimer({ consumer: name });
            const { poison } = await opts.handleRaw!(raw);
            end();
            batchSize.observe({ consumer: name }, raw.length);
            rawWritten = true; // a failing DLQ send below retries the DLQ only
            for (const p of poison) job.poison.push(poisonMessage(st.partition, raw[p.index]!, p.reason));
          }
          // Chunks stay far below the broker's 1 MB record-batch limit.
          while (job.poison.length > 0) {
            let n = 0;
            for (
              let bytes = 0;
              n < job.poison.length && (n === 0 || bytes + String(job.poison[n]!.value).length < 512 * 1024);
              n++
            )
              bytes += String(job.poison[n]!.value).length;
            await producer.send({ topic: opts.deadLetterTopic, acks: -1, messages: job.poison.slice(0, n) });
            deadLetters.inc({ consumer: name }, n);
            job.poison = job.poison.slice(n);
          }
          if (batch.length > 0) {
            const end = handleSeconds.startTimer({ consumer: name });
            await opts.handle!(batch);
            end();
            batchSize.observe({ consumer: name }, batch.length);
          }
          break;
        } catch (err) {
          handleFailures.inc({ consumer: name });
          if (st.failingSince === 0) st.failingSince = Date.now();
          if (!st.paused && !stopping) {
            consumer.pause([{ topic, partitions: [st.partition] }]);
            st.paused = true;
          }
          if (stopping && Date.now() >= stopDeadline) {
            log.error(
              { err, consumer: name, partition: st.partition },
              'giving up on a failing batch at stop; it stays uncommitted',
            );
            return false;
          }
          const delay = backoffMs(attempt, maxBackoff);
          log.warn(
            { err, consumer: name, partition: st.partition, attempt, delay_ms: delay, messages: batch.length + raw.length },
            'batch failed; partition paused, retrying',
          );
          await sleep(stopping ? Math.min(delay, Math.max(0, stopDeadline - Date.now())) : delay);
        }
      }
      const committedNext = nextOffset(upTo);
      try {
        await consumer.commitOffsets([{ topic, partition: st.partition, offset: committedNext }]);
        st.committedNext = committedNext;
        setLag(st, committedNext);
      } catch (err) {
        // Written but not committed (e.g. the partition moved in a rebalance): it is read again and
        // the sink's idempotency by event_id absorbs the repeat.
        log.warn({ err, consumer: name, partition: st.partition }, 'commit failed after a successful write');
      }
      consumedTotal.inc({ consumer: name }, batch.length + raw.length);
      st.failingSince = 0;
      if (st.paused) {
        st.paused = false;
        if (!stopping) consumer.resume([{ topic, partitions: [st.partition] }]);
      }
      lastActivity = Date.now();
      return true;
    } finally {
      clearInterval(beat);
    }
  };

  // eslint-disable-next-line @typescript-eslint/unbound-method -- kafkajs hands out closures, not methods
  const eachBatch = async ({ batch, resolveOffset, heartbeat: hb, isRunning, isStale }: EachBatchPayload) => {
    heartbeat = hb;
    lastActivity = Date.now();
    const st = stateFor(batch.partition);
    await withLock(st, async () => {
      if (stopping || !isRunning() || isStale()) return; // not resolved: fetched again (or never, when stopping)
      st.highWatermark = batch.highWatermark;
      if (st.committedNext === null && batch.messages.length > 0) st.committedNext = batch.messages[0]!.offset;
      for (const m of batch.messages) {
        if (opts.handleRaw) st.raw.push({ key: m.key, value: m.value, offset: m.offset });
        else {
          const decoded = decodeEnvelope(m.value);
          if (decoded.ok)
            st.buffer.push({
              envelope: decoded.envelope,
              key: m.key?.toString('utf8') ?? '',
              partition: batch.partition,
              offset: m.offset,
            });
          else st.poison.push(poisonMessage(batch.partition, m, decoded.reason));
        }
        st.pendingOffset = m.offset;
        if (st.firstAt === 0) st.firstAt = Date.now();
        if (st.buffer.length + st.raw.length + st.poison.length >= opts.maxBatchSize) {
          if (!(await flush(st))) return;
        }
      }
      if (batch.messages.length > 0) resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
      if (st.committedNext !== null) setLag(st, st.committedNext);
      if (st.pendingOffset !== null && Date.now() - st.firstAt >= opts.maxBatchMs) await flush(st);
    });
  };

  // Lingering batches of a partition that went quiet are flushed by time, not by the next fetch.
  const tick = setInterval(
    () => {
      for (const st of states.values()) {
        if (st.busy || stopping || st.pendingOffset === null || Date.now() - st.firstAt < opts.maxBatchMs) continue;
        void withLock(st, async () => {
          if (!stopping && st.pendingOffset !== null && Date.now() - st.firstAt >= opts.maxBatchMs) await flush(st);
        }).catch((err: unknown) => log.error({ err, consumer: name }, 'linger flush failed'));
      }
    },
    Math.max(20, Math.min(250, Math.floor(opts.maxBatchMs / 4))),
  );

  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    // kafkajs restarts every assigned partition from its committed offset after a join: whatever was
    // buffered (resolved, never committed) will be fetched again.
    // A write under way finishes (its commit may fail if the partition moved: read again, absorbed).
    for (const st of states.values())
      void withLock(st, async () => {
        clear(st);
        st.committedNext = null;
      });
    log.info({ consumer: name, group: groupId, assignment: e.payload.memberAssignment }, 'joined consumer group');
  });
  consumer.on(consumer.events.FETCH, () => {
    lastActivity = Date.now();
  });
  consumer.on(consumer.events.CRASH, (e) => {
    log.error({ consumer: name, err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
    if (!e.payload.restart) crashed = true;
  });

  await Promise.all([producer.connect(), admin.connect()]);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: opts.fromBeginning ?? true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 4,
    eachBatch,
  });
  log.info({ consumer: name, group: groupId, topic }, 'batch consumer started');

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopDeadline = Date.now() + stopTimeoutMs;
        clearInterval(tick);
        consumer.pause([{ topic }]);
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
      const [ends, committed] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId, topics: [topic] }),
      ]);
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      let total = 0n;
      for (const p of ends) {
        const c = done.get(p.partition) ?? -1n;
        const from = c < 0n ? BigInt(p.low) : c;
        if (BigInt(p.high) > from) total += BigInt(p.high) - from;
      }
      return Number(total);
    },
    healthy() {
      if (crashed) return false;
      if (stopping) return true;
      const now = Date.now();
      if (now - lastActivity > stallMs) return false;
      for (const st of states.values()) if (st.failingSince > 0 && now - st.failingSince > stallMs) return false;
      return true;
    },
  };
}
