// Appends envelopes to the events topic with acks from all in-sync replicas. One send per
// micro-batch; every attempt (connect + send) is bounded by the produce timeout so a request never
// waits on an unreachable broker for longer than that.
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { compressionType } from '@watchpost/runtime';
import type { KafkaCompression } from '@watchpost/runtime';

export interface OutMessage {
  key: string;
  value: string;
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

export class KafkaEventSink implements EventSink {
  private readonly producer: Producer;
  private readonly topic: string;
  private readonly timeoutMs: number;
  private readonly compression: number;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(kafka: Kafka, topic: string, timeoutMs: number, compression: KafkaCompression) {
    this.topic = topic;
    this.timeoutMs = timeoutMs;
    this.compression = compressionType(compression);
    this.producer = kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner, // murmur2 like the Java client: per-host order by key
      // Retries stay inside the produce timeout; the agent's own retry covers the rest.
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
  }

  private connect(): Promise<void> {
    this.connecting ??= this.producer.connect().catch((err: unknown) => {
      this.connecting = undefined; // try again on the next send
      throw err;
    });
    return this.connecting;
  }

  async send(messages: OutMessage[]): Promise<void> {
    if (this.closed) throw new Error('ingest is shutting down');
    const attempt = (async () => {
      await this.connect();
      await this.producer.send({ topic: this.topic, acks: -1, timeout: this.timeoutMs, compression: this.compression, messages });
    })();
    try {
      await withTimeout(attempt, this.timeoutMs, 'kafka produce');
    } catch (err) {
      if (err instanceof Error && /disconnected/i.test(err.message)) this.connecting = undefined;
      throw err;
    }
  }

  async ready(): Promise<boolean> {
    try {
      await withTimeout(this.connect(), Math.min(this.timeoutMs, 1000), 'kafka connect');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // A connect still retrying against an unreachable broker must not hold up shutdown.
    if (this.connecting)
      await withTimeout(
        this.connecting.then(() => this.producer.disconnect()),
        2000,
        'kafka disconnect',
      ).catch(() => {});
  }
}
