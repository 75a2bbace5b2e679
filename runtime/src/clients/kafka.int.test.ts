// zstd through the real broker: what a producer compresses, the broker accepts (it decompresses to
// validate every batch) and a consumer of this module reads back unchanged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { compressionType, createKafka, ensureTopics } from './kafka.ts';

let s: TestStores;

beforeAll(async () => {
  s = await createTestStores(testConfig('kafka_zstd', { KAFKA_PARTITIONS: '2' }));
});
afterAll(async () => {
  await s?.drop();
});

it('zstd batches round-trip through the broker; the registered codec did the work both ways', async () => {
  const { CompressionCodecs, CompressionTypes } = kafkajs;
  const registered = CompressionCodecs[CompressionTypes.ZSTD];
  const calls = { compress: 0, decompress: 0 };
  // Count calls through the registry entry the client uses, keeping the real codec underneath.
  CompressionCodecs[CompressionTypes.ZSTD] = () => {
    const codec = registered() as { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> };
    return {
      compress: (e: { buffer: Buffer }) => (calls.compress++, codec.compress(e)),
      decompress: (b: Buffer) => (calls.decompress++, codec.decompress(b)),
    };
  };
  const kafka = createKafka(s.config.kafkaBrokers, 'test-zstd');
  const topic = s.config.topics.events;
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId: `${topic}.zstd-test`, maxWaitTimeInMs: 100 });
  try {
    await producer.connect();
    const sent = Array.from({ length: 300 }, (_, i) => ({
      key: `host-${i % 7}`,
      value: JSON.stringify({ n: i, text: 'é€😀 '.repeat(i % 50), pad: 'x'.repeat(900) }),
    }));
    for (let i = 0; i < sent.length; i += 100)
      await producer.send({ topic, acks: -1, compression: compressionType('zstd'), messages: sent.slice(i, i + 100) });
    expect(calls.compress).toBeGreaterThanOrEqual(3);

    const got: { at: string; key: string; value: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ at: `${partition}:${message.offset}`, key: message.key!.toString(), value: message.value!.toString() });
      },
    });
    // A consumer rebalance under a loaded machine can hand a message over again: each position of
    // the topic counts once; what this test checks is that every message comes back unchanged.
    const unique = () => [...new Map(got.map((m) => [m.at, { key: m.key, value: m.value }])).values()];
    // a new consumer group's first join can take seconds on a loaded machine
    const until = Date.now() + 45_000;
    while (unique().length < sent.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(unique().length, `positions read back (${got.length} messages handed over)`).toBe(sent.length);
    const byValue = (a: { value: string }, b: { value: string }) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
    expect(unique().sort(byValue)).toEqual([...sent].sort(byValue));
    expect(calls.decompress).toBeGreaterThanOrEqual(1);
  } finally {
    CompressionCodecs[CompressionTypes.ZSTD] = registered;
    await consumer.disconnect();
    await producer.disconnect();
  }
});

it('maps each configured choice to its kafkajs compression type', () => {
  const { CompressionTypes } = kafkajs;
  expect(compressionType('zstd')).toBe(CompressionTypes.ZSTD);
  expect(compressionType('gzip')).toBe(CompressionTypes.GZIP);
  expect(compressionType('none')).toBe(CompressionTypes.None);
});

it('ensureTopics returns once every partition has a leader, also when several processes create the same topics at once', async () => {
  const names = Array.from({ length: 4 }, (_, i) => `${s.config.topics.events}.leaders-${i}`);
  const admins = Array.from({ length: 3 }, (_, i) => createKafka(s.config.kafkaBrokers, `test-leaders-${i}`).admin());
  await Promise.all(admins.map((a) => a.connect()));
  try {
    // Three migrations racing on the same new topics: each returns, none throws "already exists".
    await Promise.all(
      admins.map((a) =>
        ensureTopics(
          a,
          names.map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })),
        ),
      ),
    );
    // Asked right away, without any retry: a leader for every partition of every topic.
    const { topics } = await admins[0]!.fetchTopicMetadata({ topics: names });
    expect(topics.map((t) => t.name).sort()).toEqual([...names].sort());
    for (const t of topics) {
      expect(t.partitions).toHaveLength(3);
      expect(t.partitions.every((p) => p.leader >= 0)).toBe(true);
    }
  } finally {
    await admins[0]!.deleteTopics({ topics: names }).catch(() => undefined);
    await Promise.all(admins.map((a) => a.disconnect()));
  }
});
