import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { metrics } from '@watchpost/runtime';
import { encodeEnvelope } from '@watchpost/schemas';
import { testConfig } from '@watchpost/testkit';
import { migrateKafka } from '@watchpost/core/migrate';
import { startBatchConsumer, type BatchConsumer, type DecodedMessage } from './batch-consumer.ts';
import { makeEnvelope } from '@watchpost/testkit';
import { produce, readAll, waitFor } from '@watchpost/testkit';

const log = createLogger('silent', 'test');
let running: BatchConsumer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function setup(partitions = 1) {
  const config = testConfig('batch_consumer', { KAFKA_PARTITIONS: String(partitions) });
  await migrateKafka(config);
  return { config, kafka: createKafka(config.kafkaBrokers, 'test') };
}

const envelopes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `host-${i % 3}`, value: encodeEnvelope(makeEnvelope({}, i)) }));

async function committed(config: ReturnType<typeof testConfig>, groupId: string): Promise<number> {
  const admin = createKafka(config.kafkaBrokers, 'test-admin').admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [config.topics.events] });
    return t!.partitions.reduce((s, p) => s + Math.max(0, Number(p.offset)), 0);
  } finally {
    await admin.disconnect();
  }
}

describe('startBatchConsumer', () => {
  it('batches by size across fetches, in offset order, and commits after handle()', async () => {
    const { config, kafka } = await setup();
    await produce(config, config.topics.events, envelopes(1050), 100);
    const batches: DecodedMessage[][] = [];
    running = await startBatchConsumer({
      kafka,
      groupId: `${config.topics.events}.g`,
      topic: config.topics.events,
      deadLetterTopic: config.topics.deadLetter,
      name: 'test_size',
      maxBatchSize: 500,
      maxBatchMs: 60_000,
      log,
      handle: async (b) => {
        batches.push(b);
      },
    });
    await waitFor(
      'two full batches',
      async () => batches.length,
      (n) => n >= 2,
    );
    expect(batches.slice(0, 2).map((b) => b.length)).toEqual([500, 500]);
    const offsets = batches.flat().map((m) => Number(m.offset));
    expect(offsets).toEqual(offsets.map((_, i) => i));
    await waitFor(
      'commit of 1000',
      () => committed(config, `${config.topics.events}.g`),
      (n) => n === 1000,
    );
    expect(await running.lag()).toBe(50); // the 50 lingering messages wait for maxBatchMs or stop
    await running.stop();
    running = undefined;
    expect(batches.flat()).toHaveLength(1050);
    expect(await committed(config, `${config.topics.events}.g`)).toBe(1050);
  });

  it('flushes a quiet partition after maxBatchMs', async () => {
    const { config, kafka } = await setup();
    const sizes: number[] = [];
    running = await startBatchConsumer({
      kafka,
      groupId: `${config.topics.events}.g`,
      topic: config.topics.events,
      deadLetterTopic: config.topics.deadLetter,
      name: 'test_time',
      maxBatchSize: 10_000,
      maxBatchMs: 300,
      log,
      handle: async (b) => {
        sizes.push(b.length);
      },
    });
    await produce(config, config.topics.events, envelopes(7));
    await waitFor(
      'a time-based batch',
      async () => sizes.reduce((a, b) => a + b, 0),
      (n) => n === 7,
      15_000,
    );
    await waitFor(
      'lag 0',
      () => running!.lag(),
      (n) => n === 0,
    );
  });

  it('retries a failing handle() with backoff and commits nothing until it succeeds', async () => {
    const { config, kafka } = await setup();
    await produce(config, config.topics.events, envelopes(20));
    const groupId = `${config.topics.events}.g`;
    let calls = 0;
    const seen: string[][] = [];
    running = await startBatchConsumer({
      kafka,
      groupId,
      topic: config.topics.events,
      deadLetterTopic: config.topics.deadLetter,
      name: 'test_retry',
      maxBatchSize: 20,
      maxBatchMs: 200,
      log,
      handle: async (b) => {
        calls++;
        seen.push(b.map((m) => m.envelope.event.event_id));
        if (calls <= 3) throw new Error('sink down');
      },
    });
    await waitFor(
      'three failures',
      async () => calls,
      (n) => n >= 3,
    );
    expect(await committed(config, groupId)).toBe(0);
    await waitFor(
      'success',
      async () => calls,
      (n) => n >= 4,
      15_000,
    );
    await waitFor(
      'commit',
      () => committed(config, groupId),
      (n) => n === 20,
    );
    expect(seen[0]).toHaveLength(20);
    for (const s of seen) expect(s).toEqual(seen[0]); // the same batch each time
    expect(await metrics.getSingleMetricAsString('watchpost_consumer_handle_failures_total')).toMatch(/consumer="test_retry"} 3/);
  });

  it('sends unparseable and schema-invalid messages to the dead-letter topic and moves on', async () => {
    const { config, kafka } = await setup();
    const good = envelopes(5);
    const invalid = makeEnvelope();
    (invalid.event as Record<string, unknown>).severity = 'urgent';
    await produce(config, config.topics.events, [
      good[0]!,
      { key: 'host-x', value: Buffer.from('{not json') },
      good[1]!,
      { key: 'host-y', value: encodeEnvelope(invalid) },
      ...good.slice(2),
    ]);
    const handled: string[] = [];
    running = await startBatchConsumer({
      kafka,
      groupId: `${config.topics.events}.g`,
      topic: config.topics.events,
      deadLetterTopic: config.topics.deadLetter,
      name: 'test_dlq',
      maxBatchSize: 100,
      maxBatchMs: 200,
      log,
      handle: async (b) => {
        handled.push(...b.map((m) => m.offset));
      },
    });
    await waitFor(
      'lag 0',
      () => running!.lag(),
      (n) => n === 0,
    );
    expect(handled).toEqual(['0', '2', '4', '5', '6']);
    const dlq = (await readAll(config, config.topics.deadLetter, 2)).map((m) => JSON.parse(m.value));
    expect(dlq).toHaveLength(2);
    expect(dlq[0]).toMatchObject({
      source_topic: config.topics.events,
      partition: 0,
      offset: '1',
      key: 'host-x',
      value_base64: Buffer.from('{not json').toString('base64'),
    });
    expect(dlq[0].reason).toMatch(/not JSON/);
    expect(dlq[1]).toMatchObject({ offset: '3', key: 'host-y' });
    expect(dlq[1].reason).toMatch(/severity/);
    expect(await metrics.getSingleMetricAsString('watchpost_consumer_dead_letters_total')).toMatch(/consumer="test_dlq"} 2/);
    expect(running.healthy()).toBe(true);
  });
});
