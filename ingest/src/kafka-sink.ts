// Appends envelopes to the events topic with acks from all in-sync replicas. One send per
// micro-batch; every attempt (connect + send) is bounded by the produce timeout so a request never
// waits on an unreachable broker for longer than that.
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { compressionType, createMemoPartitioner } from '@watchpost/runtime';
import type { KafkaCompression } from '@watchpost/runtime';

/** Producers (connections) per sink: sends out at once. */
const SINK_LANES = 2;
/** Retries of a whole send (within the produce timeout). */
const SEND_RETRIES = 3;

export interface OutMessage {
  key: string;
  /** The envelope; a Buffer is sent as it is (no re-encoding). */
  value: string | Buffer;
  /** AGENT_KEY_HEADER: the verified agent key id (schemas/src/envelope.ts). */
  headers?: Record<string, string>;
}

export interface EventSink {
  send(messages: OutMessage[]): Promise<void>;
  close(): Promise<void>;
  ready(): Promise<boolean>;
}

export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** Rejects after ms; the original promise keeps running and its late rejection is swallowed. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** One producer (one connection per broker) and what it has in flight. */
interface Lane {
  producer: Producer;
  connecting: Promise<void> | undefined;
  busy: number;
}

/**
 * Appends through `lanes` producers, each its own connection, a send to the least busy one: a broker
 * works through one connection's requests one at a time, so sends queued on one connection wait for
 * each other's acks, while another connection's are taken at the same time. Order is kept by the caller
 * (pipeline.ts never has two sends of one host out at once), so which lane carries a send does not matter.
 */
export class KafkaEventSink implements EventSink {
  readonly lanes: number;
  private readonly pool: Lane[];
  private readonly topic: string;
  private readonly timeoutMs: number;
  private readonly compression: number;
  private closed = false;

  constructor(kafka: Kafka, topic: string, timeoutMs: number, compression: KafkaCompression, lanes = SINK_LANES) {
    this.topic = topic;
    this.timeoutMs = timeoutMs;
    this.compression = compressionType(compression);
    this.lanes = lanes;
    this.pool = Array.from({ length: lanes }, () => ({
      producer: kafka.producer({
        allowAutoTopicCreation: false,
        // murmur2 like the Java client (per-host order by key), computed once per hostname
        createPartitioner: createMemoPartitioner(Partitioners.DefaultPartitioner as never),
        // No kafkajs retries: send() below retries the whole send. kafkajs 2.2.4 retries a send by
        // leader, and skips a leader that already answered it (tulios/kafkajs#1303): when a partition's
        // leadership moved to such a broker between two attempts, that partition's messages were never
        // sent and the send still resolved. Seen here as an event answered 201 that was not in the events
        // topic after a partition leader was killed (ops/src/kafka-cluster.int.test.ts).
        retry: { retries: 0 },
      }),
      connecting: undefined,
      busy: 0,
    }));
  }

  private connect(lane: Lane): Promise<void> {
    lane.connecting ??= lane.producer.connect().catch((err: unknown) => {
      lane.connecting = undefined; // try again on the next send
      throw err;
    });
    return lane.connecting;
  }

  async send(messages: OutMessage[]): Promise<void> {
    if (this.closed) throw new Error('ingest is shutting down');
    let lane = this.pool[0]!;
    for (const l of this.pool) if (l.busy < lane.busy) lane = l;
    lane.busy++;
    // Retries stay inside the produce timeout; the agent's own retry covers the rest. A retry sends every
    // message again: what an attempt that failed as a whole had appended is a duplicate the sinks absorb.
    const attempt = (async () => {
      for (let n = 1; ; n++) {
        try {
          await this.connect(lane);
          await lane.producer.send({
            topic: this.topic,
            acks: -1,
            timeout: this.timeoutMs,
            compression: this.compression,
            messages,
          });
          return;
        } catch (err) {
          if (n > SEND_RETRIES || this.closed) throw err;
          await new Promise((r) => setTimeout(r, Math.min(1000, 100 * 2 ** (n - 1))));
        }
      }
    })();
    try {
      await withTimeout(attempt, this.timeoutMs, 'kafka produce');
    } catch (err) {
      if (err instanceof Error && /disconnected/i.test(err.message)) lane.connecting = undefined;
      throw err;
    } finally {
      lane.busy--;
    }
  }

  async ready(): Promise<boolean> {
    try {
      await withTimeout(Promise.all(this.pool.map((l) => this.connect(l))), Math.min(this.timeoutMs, 1000), 'kafka connect');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // A connect still retrying against an unreachable broker must not hold up shutdown.
    await Promise.all(
      this.pool.map((l) =>
        l.connecting
          ? withTimeout(
              l.connecting.then(() => l.producer.disconnect()),
              2000,
              'kafka disconnect',
            ).catch(() => {})
          : Promise.resolve(),
      ),
    );
  }
}
