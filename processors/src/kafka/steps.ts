// What the consume loop does with a message, as one step with two halves: `take` when the message is
// fetched (decode it, or keep it as it is) and `write` with the buffered items of one topic-partition
// (the sink). The loop (batch-consumer.ts) and the partition writer (partition-writer.ts) know only this
// interface, not whether an item is a decoded event or raw bytes a worker thread decodes: the two steps
// here are the ones the processors use.
import type { IHeaders } from 'kafkajs';
import type { EventEnvelope } from '@watchpost/schemas';

/** A message as fetched from one topic-partition. */
export interface FetchedMessage {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
  /** The message's Kafka headers as read (e.g. AGENT_KEY_HEADER on events.v1); absent when it has none. */
  headers?: IHeaders;
}

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

/** An undecoded message (the store decodes in worker threads). */
export type RawMessage = FetchedMessage;

/** Which items of a written batch (by index) were poison, and why: they go to the dead-letter topic. */
export interface RawResult {
  poison: { index: number; reason: string }[];
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The item to buffer for a fetched message, or why it is poison (dead-lettered at once). */
export type Taken<I> = { ok: true; item: I } | { ok: false; reason: string };

export interface BatchStep<I> {
  /** At fetch, in offset order. */
  take(m: FetchedMessage, topic: string, partition: number): Taken<I>;
  /**
   * Writes items of ONE topic-partition, in offset order, all-or-nothing per call (a transaction, one
   * insert). Throw => retried with backoff; a message that keeps failing deterministically is isolated
   * (the batch is split) and dead-lettered. Returns the items it found poison (dead-lettered too).
   */
  write(items: I[]): Promise<RawResult>;
  /** The message an item came from, for its dead-letter record. */
  source(item: I): FetchedMessage;
}

const NO_POISON: RawResult = { poison: [] };

// The original bytes of a decoded message, kept (not enumerable, so handlers never see them) for the
// dead-letter record should the write of that message fail.
const RAW = Symbol('raw');

/** Decodes at fetch with the topic's decoder; the handler gets decoded messages. */
/** Where a message sits, for a decoder that reuses another group's decode (shared-decode.ts). */
export interface MessageAt {
  topic: string;
  partition: number;
  offset: string;
}

export function decodedStep<T>(
  decoders: ReadonlyMap<string, (value: Buffer | null, at: MessageAt) => Decoded<T>>,
  handle: (batch: DecodedMessage<T>[]) => Promise<void>,
): BatchStep<DecodedMessage<T>> {
  return {
    take(m, topic, partition) {
      const decoded = decoders.get(topic)!(m.value, { topic, partition, offset: m.offset });
      if (!decoded.ok) return decoded;
      const dm: DecodedMessage<T> = {
        envelope: decoded.value,
        key: m.key?.toString('utf8') ?? '',
        topic,
        partition,
        offset: m.offset,
      };
      if (m.headers && Object.keys(m.headers).length > 0) dm.headers = m.headers;
      Object.defineProperty(dm, RAW, { value: m.value, enumerable: false });
      return { ok: true, item: dm };
    },
    async write(items) {
      await handle(items);
      return NO_POISON;
    },
    source: (dm) => ({
      key: Buffer.from(dm.key),
      value: (dm as unknown as Record<symbol, Buffer | null>)[RAW] ?? null,
      offset: dm.offset,
    }),
  };
}

/** Keeps messages as fetched; the handler decodes (the store, in worker threads) and names the poison. */
export function rawStep(handleRaw: (batch: RawMessage[]) => Promise<RawResult>): BatchStep<RawMessage> {
  return {
    take: (m) => ({ ok: true, item: { key: m.key, value: m.value, offset: m.offset, headers: m.headers } }),
    write: handleRaw,
    source: (m) => m,
  };
}
