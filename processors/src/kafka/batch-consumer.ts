// The one Kafka consume loop every processor uses (store, correlate, stream, ...): a composition of
// steps that each have their own tests and know nothing of one another's state:
//   BatchStep         (steps.ts) what a message becomes at fetch (decoded per input topic, or kept raw
//                     for the store's worker threads; undecodable -> dead letter) and the sink's write
//   PartitionWriter   (partition-writer.ts) per topic-partition: buffer (flushed by size or after
//                     maxBatchMs), the write retried with backoff, a message that fails deterministically
//                     isolated by splitting the batch (applyIsolating) and dead-lettered, then the commit
//   GroupSupervisor   (group-supervisor.ts) the kafkajs member: connect, join, commit, pause, crash and
//                     recreation, the progress watchdog, lag
//   CommitTracker     committed positions, lag, and whether the consumer makes progress (readiness)
//
// At-least-once, commit-after-work: offsets are committed only after the batch was written (and its
// dead letters sent). A full batch is written in the background while the next fetch is taken in (one
// write in flight per partition, in offset order). Transient failures (connection lost, deadlock,
// timeout) pause the partition and are retried forever with capped backoff; they never dead-letter.
//
// kafkajs notes: autoCommit is off and offsets are committed explicitly. resolveOffset() only moves
// the in-memory fetch position so the next fetch continues after the buffered messages; after a
// rebalance kafkajs restarts from the committed offsets, so buffered-but-uncommitted messages are
// dropped on GROUP_JOIN and simply read again.
import type { EachBatchPayload, Kafka, Producer } from 'kafkajs';
import type { Logger } from '@watchpost/runtime';
import type { EventEnvelope } from '@watchpost/schemas';
import { CommitTracker, tpKey } from './commit-tracker.ts';
import { DeadLetterWriter } from './dead-letter-writer.ts';
import { GroupSupervisor } from './group-supervisor.ts';
import { PartitionWriter } from './partition-writer.ts';
import {
  decodedStep,
  rawStep,
  type BatchStep,
  type Decoded,
  type DecodedMessage,
  type MessageAt,
  type RawMessage,
  type RawResult,
} from './steps.ts';
import { lagGauge } from './consumer-metrics.ts';
import { decodeEventShared, registerReader } from './shared-decode.ts';

export { backoffMs } from './partition-writer.ts';
export type { Decoded, DecodedMessage, RawMessage, RawResult } from './steps.ts';

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

/**
 * The step of the options: the handler's decoded messages, or raw ones for handleRaw; and the topics
 * whose events it decodes with the shared decoder (registered while the consumer runs).
 */
function stepOf<T>(opts: BatchConsumerOptions<T>, inputs: ConsumerInput<T>[]): { step: BatchStep<unknown>; shared: string[] } {
  if (opts.handleRaw) return { step: rawStep((batch) => opts.handleRaw!(batch)) as BatchStep<unknown>, shared: [] };
  const decoders = new Map(
    inputs.map((i) => [i.topic, i.decode ?? (decodeEventShared as unknown as (v: Buffer | null, at: MessageAt) => Decoded<T>)]),
  );
  const step = decodedStep(decoders, (batch) => opts.handle!(batch)) as BatchStep<unknown>;
  return { step, shared: inputs.filter((i) => !i.decode).map((i) => i.topic) };
}

export async function startBatchConsumer<T = EventEnvelope>(opts: BatchConsumerOptions<T>): Promise<BatchConsumer> {
  const { kafka, groupId, name, log } = opts;
  if (!opts.handle === !opts.handleRaw) throw new Error('startBatchConsumer: give exactly one of handle and handleRaw');
  const inputs: ConsumerInput<T>[] = opts.inputs ?? (opts.topic ? [{ topic: opts.topic }] : []);
  if (inputs.length === 0) throw new Error('startBatchConsumer: give topic or inputs');
  const { step, shared } = stepOf(opts, inputs);
  const topics = inputs.map((i) => i.topic);
  const sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
  const stallMs = opts.stallMs ?? 60_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 15_000;
  const rebalanceTimeout = Math.max(sessionTimeout, 30_000);

  // No kafkajs retries (a retried send of several leaders may skip some: tulios/kafkajs#1303, see
  // ingest/src/kafka-sink.ts); the dead-letter writer keeps what failed and the write retries it.
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, retry: { retries: 0 } });
  const deadLetterWriter = new DeadLetterWriter(async (messages) => {
    await producer.send({ topic: opts.deadLetterTopic, acks: -1, messages });
  });
  const tracker = new CommitTracker();
  const writers = new Map<string, PartitionWriter<unknown>>();
  let stopping = false;
  let stopDeadline = Infinity;

  const setLag = (w: PartitionWriter<unknown>) => {
    const lag = tracker.lag(w.topic, w.partition);
    // The first input's partitions are labelled by number; further inputs' as `topic:partition`.
    const partition = w.topic === topics[0] ? String(w.partition) : `${w.topic}:${w.partition}`;
    if (lag !== null) lagGauge.set({ consumer: name, group: groupId, partition }, lag);
  };

  const writerFor = (topic: string, partition: number): PartitionWriter<unknown> => {
    const k = tpKey(topic, partition);
    let w = writers.get(k);
    if (!w) {
      const self: PartitionWriter<unknown> = new PartitionWriter({
        topic,
        partition,
        name,
        log,
        step,
        maxBatchSize: opts.maxBatchSize,
        maxBatchMs: opts.maxBatchMs,
        maxBatchBytes: opts.maxBatchBytes ?? 32 * 1024 * 1024,
        attempts: opts.attempts ?? 5,
        maxBackoffMs: opts.maxBackoffMs ?? 10_000,
        sendDeadLetters: (records) => deadLetterWriter.write(records),
        commit: async (next) => {
          try {
            await group.commit(topic, partition, next);
            tracker.committed(topic, partition, next, Date.now());
            setLag(self);
          } catch (err) {
            // Written but not committed (e.g. the partition moved in a rebalance): it is read again and
            // the sink's idempotency by event_id absorbs the repeat.
            log.warn({ err, consumer: name, partition }, 'commit failed after a successful write');
          }
          group.lastActivity = Date.now();
        },
        pause: () => group.pause(topic, partition),
        resume: () => group.resume(topic, partition),
        heartbeat: () => group.heartbeat(),
        heartbeatMs: Math.min(1000, Math.floor(sessionTimeout / 10)),
        stopping: () => ({ stopping, deadline: stopDeadline }),
      });
      writers.set(k, (w = self));
    }
    return w;
  };

  // eslint-disable-next-line @typescript-eslint/unbound-method -- kafkajs hands out closures, not methods
  const eachBatch = async ({ batch, resolveOffset, isRunning, isStale }: EachBatchPayload) => {
    const w = writerFor(batch.topic, batch.partition);
    await w.withLock(async () => {
      if (stopping || !isRunning() || isStale()) return; // not resolved: fetched again (or never, when stopping)
      tracker.fetched(batch.topic, batch.partition, batch.messages[0]?.offset ?? null, batch.highWatermark, Date.now());
      for (const m of batch.messages) {
        w.take(m, Date.now());
        if (w.buffer.full() && !(await w.flush())) return;
      }
      if (batch.messages.length > 0) resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
      setLag(w);
      if (w.buffer.lingered(Date.now())) await w.flush();
    });
  };

  const group = new GroupSupervisor({
    kafka,
    groupId,
    name,
    log,
    inputs: inputs.map((i) => ({ topic: i.topic, fromBeginning: i.fromBeginning ?? opts.fromBeginning ?? true })),
    sessionTimeoutMs: sessionTimeout,
    rebalanceTimeoutMs: rebalanceTimeout,
    restartAfterMs: opts.restartAfterMs ?? rebalanceTimeout + 10_000,
    maxBatchMs: opts.maxBatchMs,
    partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 4,
    eachBatch,
    onJoin: () => {
      // kafkajs restarts every assigned partition from its committed offset after a join: whatever was
      // buffered (resolved, never committed) will be fetched again. A write under way finishes (its
      // commit may fail if the partition moved: read again, absorbed).
      tracker.reset();
      for (const w of writers.values())
        void w.withLock(async () => {
          w.buffer.clear();
        });
    },
    onRecreated: () => {
      for (const w of writers.values()) w.paused = false; // the new consumer has nothing paused
      tracker.reset();
    },
    busy: () =>
      new Set([...writers.values()].filter((w) => w.handling || w.failingSince > 0).map((w) => tpKey(w.topic, w.partition))),
  });

  // Lingering batches of a partition that went quiet are flushed by time, not by the next fetch.
  const tick = setInterval(
    () => {
      for (const w of writers.values()) {
        if (w.busy || stopping || !w.buffer.lingered(Date.now())) continue;
        void w
          .withLock(async () => {
            if (!stopping && w.buffer.lingered(Date.now())) await w.flush();
          })
          .catch((err: unknown) => log.error({ err, consumer: name }, 'linger flush failed'));
      }
    },
    Math.max(20, Math.min(250, Math.floor(opts.maxBatchMs / 4))),
  );

  await producer.connect();
  await group.start();
  log.info({ consumer: name, group: groupId, topics }, 'batch consumer started');

  const healthy = () => {
    if (group.crashed) return false;
    if (stopping) return true;
    const now = Date.now();
    if (now - group.lastActivity > stallMs) return false;
    for (const w of writers.values()) if (w.failingSince > 0 && now - w.failingSince > stallMs) return false;
    return true;
  };

  // Counted once the consumer runs: a start that failed leaves nothing waiting for it
  const unregister = shared.map(registerReader);
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopDeadline = Date.now() + stopTimeoutMs;
        clearInterval(tick);
        await group.quiesce();
        // Waits for any in-flight eachBatch/flush of each partition, then writes what is buffered.
        await Promise.all(
          [...writers.values()].map((w) => w.withLock(async () => (await w.flush()) && w.drain()).catch(() => false)),
        );
        await group.disconnect();
        await producer.disconnect().catch(() => {});
        for (const u of unregister) u();
        log.info({ consumer: name }, 'batch consumer stopped');
      })();
      return stopped;
    },
    lag: () => group.lag(),
    healthy,
    ready() {
      return healthy() && (stopping || !tracker.stalled(Date.now(), stallMs));
    },
  };
}
