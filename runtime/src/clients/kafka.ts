// Silences kafkajs's one-time notice about its v2 default partitioner; we use the default (murmur2, Java-compatible).
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

// Every process that talks to Kafka encodes and decodes records through kafkajs-speedups.ts, installed
// by this first import before the kafkajs package loads (kafkajs-install.ts says why).
import { kafkajsSpeedups } from './kafkajs-install.ts';
import { constants as zlibConstants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import kafkajs, { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs';
import type { KafkaCompression } from '../config/config.ts';

export { Kafka, kafkajsSpeedups };
export { createMemoPartitioner } from './kafkajs-speedups.ts';

/** The kafkajs `compression` value for a configured choice. */
export function compressionType(c: KafkaCompression): number {
  const { CompressionTypes } = kafkajs;
  return c === 'zstd' ? CompressionTypes.ZSTD : c === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
}

// kafkajs ships gzip only and takes other codecs through its CompressionCodecs registry. zstd comes
// with Node's zlib: no native add-on. Every process that imports this module can read zstd batches
// (consumers) and write them (producers that ask for it). Level 1, the fastest: the producer is
// CPU-bound on its record encoding and CRC, and compression is there to shrink what those touch.
// Synchronous on purpose: a batch compresses in well under a millisecond, and the thread-pool hop of
// the async form made kafkajs slower (51,000 vs 66,000 events/s producing alone).
const zstdParams = { params: { [zlibConstants.ZSTD_c_compressionLevel]: 1 } };
const zstdCodec = {
  compress: async (encoder: { buffer: Buffer }) => zstdCompressSync(encoder.buffer, zstdParams),
  decompress: async (buffer: Buffer) => zstdDecompressSync(buffer),
};
kafkajs.CompressionCodecs[kafkajs.CompressionTypes.ZSTD] = () => zstdCodec;

export function createKafka(brokers: string[], clientId: string): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
  });
}

/** Creates topics that are missing (never relies on broker auto-create). */
export async function ensureTopics(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.topic));
  if (missing.length === 0) return;
  try {
    // Not kafkajs's waitForLeaders: its wait retries LEADER_NOT_AVAILABLE only, and a KRaft broker
    // may first answer UNKNOWN_TOPIC_OR_PARTITION for a topic it has just created (seen in CI).
    await admin.createTopics({ topics: missing, waitForLeaders: false });
  } catch (err) {
    // kafkajs reports per topic; another process may have created some between list and create.
    const perTopic = (err as { errors?: { topic: string; type?: string; message?: string }[] }).errors;
    const failed = (perTopic ?? []).filter((e) => e.type !== 'TOPIC_ALREADY_EXISTS');
    const raced = perTopic ? failed.length === 0 : err instanceof Error && /already exists/i.test(err.message);
    if (failed.length > 0)
      throw new Error(`could not create Kafka topics: ${failed.map((e) => `${e.topic}: ${e.type} (${e.message})`).join('; ')}`, {
        cause: err,
      });
    if (!raced) throw err;
  }
  await waitForLeaders(
    admin,
    missing.map((t) => t.topic),
  );
}

const METADATA_PENDING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** Waits until every partition of the topics has a leader, so a producer's first send finds one. */
export async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      const pending = meta.filter((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0));
      if (pending.length === 0 && meta.length === topics.length) return;
      last = `no leader yet for ${pending.map((t) => t.name).join(', ') || 'some topics'}`;
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (!type || !METADATA_PENDING.has(type)) throw err;
      last = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`Kafka topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
