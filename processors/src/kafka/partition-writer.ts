// One topic-partition of a consumer: what it has taken in (PartitionBuffer), the write of a full or
// lingering batch through the step (retry with capped backoff, isolation of a message that fails
// deterministically, dead letters), then the commit. At most one write is in flight per partition, in
// offset order; a full batch is written in the background while the next fetch is taken in. Knows no
// broker: the consumer hands it the commit, pause and resume of its kafkajs consumer (tested with fakes:
// partition-writer.test.ts).
import type { Message } from 'kafkajs';
import type { Logger } from '@watchpost/runtime';
import { isTransientError } from '@watchpost/runtime';
import { deadLetterRecord } from '@watchpost/schemas';
import { PartitionBuffer, type BufferedBatch } from './partition-buffer.ts';
import { applyIsolating, SystemicFailure } from './isolate.ts';
import type { BatchStep, FetchedMessage } from './steps.ts';
import {
  batchSize,
  consumedTotal,
  deadLetters,
  handleFailures,
  handleSeconds,
  isolated,
  splits,
  transientFailures,
} from './consumer-metrics.ts';

/** Exponential backoff with jitter: 250 ms, 500 ms, 1 s, ... capped. */
export function backoffMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const base = Math.min(capMs, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const nextOffset = (offset: string) => (BigInt(offset) + 1n).toString();

/** A failing batch given up because the consumer is stopping past its deadline: it stays uncommitted. */
class GaveUp extends Error {}

/** What a writer needs from its consumer. */
export interface PartitionWriterDeps<I> {
  topic: string;
  partition: number;
  /** Metrics label and logs, e.g. 'store'. */
  name: string;
  log: Logger;
  step: BatchStep<I>;
  maxBatchSize: number;
  maxBatchMs: number;
  maxBatchBytes: number;
  /** Non-transient failures of a batch before it is split to isolate the failing message. */
  attempts: number;
  maxBackoffMs: number;
  /** Sends dead-letter records; on failure the ones not sent stay in the array (DeadLetterWriter). */
  sendDeadLetters(records: Message[]): Promise<unknown>;
  /** Commits `next` for this partition; never throws (a failed commit is read again and absorbed). */
  commit(next: string): Promise<void>;
  /** Pauses fetching this partition; false when the Kafka client could not (between a crash and its restart). */
  pause(): boolean;
  resume(): void;
  /** Keeps the group membership alive while a long write blocks the partition. */
  heartbeat(): void;
  heartbeatMs: number;
  /** Whether the consumer is stopping, and until when a failing batch is retried then. */
  stopping(): { stopping: boolean; deadline: number };
}

export class PartitionWriter<I> {
  readonly topic: string;
  readonly partition: number;
  readonly buffer: PartitionBuffer<I, Message>;
  /** A lock holder is running (eachBatch, the linger flush or stop). */
  busy = false;
  /** Since when the current batch keeps failing (0 = not failing). */
  failingSince = 0;
  /** A batch is in the step's write or its dead letters are being sent (not yet at its commit). */
  handling = false;
  /** Whether this writer paused the partition (a recreated Kafka consumer starts with nothing paused). */
  paused = false;
  private tail: Promise<void> = Promise.resolve();
  /** The batch being written; resolves false when given up at stop. */
  private writing: Promise<boolean> | null = null;
  private readonly d: PartitionWriterDeps<I>;

  constructor(deps: PartitionWriterDeps<I>) {
    this.d = deps;
    this.topic = deps.topic;
    this.partition = deps.partition;
    this.buffer = new PartitionBuffer(deps.maxBatchSize, deps.maxBatchMs, deps.maxBatchBytes);
  }

  /** Serializes eachBatch, the linger timer and stop() on this partition. */
  withLock<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.tail.then(async () => {
      this.busy = true;
      try {
        return await fn();
      } finally {
        this.busy = false;
      }
    });
    this.tail = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** Takes in a fetched message (the step's item, or a dead letter at once when it is poison). */
  take(m: FetchedMessage, now: number): void {
    const bytes = m.value?.length ?? 0;
    const t = this.d.step.take(m, this.topic, this.partition);
    if (t.ok) this.buffer.add(t.item, m.offset, now, bytes);
    else {
      deadLetters.inc({ consumer: this.d.name });
      this.buffer.addPoison(this.deadLetter(m, t.reason), m.offset, now, bytes);
    }
  }

  /**
   * Hands the pending batch to the writer and returns once it is under way; waits first for the write
   * before it (order, and at most two batches in memory). false = a write was given up (only while stopping).
   */
  async flush(): Promise<boolean> {
    if (this.writing && !(await this.writing)) return false;
    const job = this.buffer.take();
    if (job) {
      this.writing = this.write(job).catch((err: unknown) => {
        this.d.log.error({ err, consumer: this.d.name, partition: this.partition }, 'batch write failed unexpectedly');
        return false;
      });
    }
    return true;
  }

  /** Waits until nothing of this partition is being written; false = given up at stop. */
  drain(): Promise<boolean> {
    return this.writing ?? Promise.resolve(true);
  }

  /** The DLQ record of a message (logged here, sent with the batch before its commit). */
  private deadLetter(m: FetchedMessage, reason: string): Message {
    this.d.log.warn(
      { consumer: this.d.name, topic: this.topic, partition: this.partition, offset: m.offset, reason },
      'message to the dead-letter topic',
    );
    return {
      key: m.key,
      value: JSON.stringify(deadLetterRecord(reason, this.topic, this.partition, m.offset, m.key, m.value)),
    };
  }

  private pause(): void {
    if (!this.paused && !this.d.stopping().stopping) this.paused = this.d.pause();
  }

  /** Backoff before a retry; gives up (throws) when stopping past the deadline. */
  private async waitRetry(err: unknown, attempt: number, size: number, transient: boolean): Promise<void> {
    const name = this.d.name;
    handleFailures.inc({ consumer: name });
    if (transient || isTransientError(err)) transientFailures.inc({ consumer: name });
    if (this.failingSince === 0) this.failingSince = Date.now();
    this.pause();
    const { stopping, deadline } = this.d.stopping();
    if (stopping && Date.now() >= deadline) throw new GaveUp('stopping');
    const delay = backoffMs(attempt, this.d.maxBackoffMs);
    this.d.log.warn(
      { err, consumer: name, topic: this.topic, partition: this.partition, attempt, delay_ms: delay, messages: size, transient },
      'batch failed; partition paused, retrying',
    );
    await sleep(stopping ? Math.min(delay, Math.max(0, deadline - Date.now())) : delay);
  }

  /** Writes part of a batch through the step; the poison it names is collected for the dead-letter topic. */
  private async applyPart(part: I[], poison: Message[]): Promise<void> {
    const name = this.d.name;
    const end = handleSeconds.startTimer({ consumer: name });
    const r = await this.d.step.write(part);
    for (const p of r.poison) poison.push(this.deadLetter(this.d.step.source(part[p.index]!), p.reason));
    deadLetters.inc({ consumer: name }, r.poison.length);
    end();
    batchSize.observe({ consumer: name }, part.length);
  }

  /** The step's write with isolation, until every item is written or dead-lettered. */
  private async writeItems(job: BufferedBatch<I, Message>): Promise<void> {
    const name = this.d.name;
    for (let round = 1; job.items.length > 0; round++) {
      try {
        const poison: Message[] = [];
        const failed = await applyIsolating(job.items, (part) => this.applyPart(part, poison), {
          attempts: this.d.attempts,
          wait: (err, attempt, size) => this.waitRetry(err, attempt, size, false),
          onSplit: () => splits.inc({ consumer: name }),
        });
        for (const f of failed)
          job.poison.push(this.deadLetter(this.d.step.source(f.item), `${name} could not write it: ${f.reason}`));
        deadLetters.inc({ consumer: name }, failed.length);
        isolated.inc({ consumer: name }, failed.length);
        job.poison.push(...poison);
        job.items = [];
      } catch (err) {
        if (err instanceof GaveUp || !(err instanceof SystemicFailure)) throw err;
        await this.waitRetry(err.causeError, round, job.items.length, false);
      }
    }
  }

  /** Writes one batch (items, then dead letters), then commits. false = gave up (only while stopping). */
  private async write(job: BufferedBatch<I, Message>): Promise<boolean> {
    const beat = setInterval(() => this.d.heartbeat(), this.d.heartbeatMs);
    const count = job.items.length + job.poison.length;
    this.handling = true;
    try {
      await this.writeItems(job);
      // Dead letters before the commit: a crash in between re-reads and re-sends them (at-least-once).
      for (let attempt = 1; job.poison.length > 0; attempt++) {
        try {
          await this.d.sendDeadLetters(job.poison);
        } catch (err) {
          await this.waitRetry(err, attempt, job.poison.length, true);
        }
      }
      this.handling = false;
      await this.d.commit(nextOffset(job.upTo));
      consumedTotal.inc({ consumer: this.d.name }, count);
      this.failingSince = 0;
      if (this.paused) {
        this.paused = false;
        if (!this.d.stopping().stopping) this.d.resume();
      }
      return true;
    } catch (err) {
      if (!(err instanceof GaveUp)) throw err;
      this.d.log.error(
        { consumer: this.d.name, partition: this.partition },
        'giving up on a failing batch at stop; it stays uncommitted',
      );
      return false;
    } finally {
      clearInterval(beat);
      this.handling = false;
    }
  }
}
