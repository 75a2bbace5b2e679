import { afterEach, describe, expect, it } from 'vitest';
import { KafkaJSNonRetriableError } from 'kafkajs';
import { createLogger, type Logger } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { metrics } from '@watchpost/runtime';
import { encodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import { testConfig } from '@watchpost/testkit';
import { migrateKafka } from '@watchpost/core/migrate';
import { startBatchConsumer, type BatchConsumer, type BatchConsumerOptions, type DecodedMessage } from './batch-consumer.ts';
import { makeEnvelope, memoryLogger } from '@watchpost/testkit';
import { produce, readAll, waitFor } from '@watchpost/testkit';

const log = createLogger((process.env.TEST_LOG as 'info') ?? 'silent', 'test');
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

/**
 * The consumer under test (a test keeps it in `running`, stopped after it) in the group
 * `<events topic>.g`, dead letters to the test's topic, reading the events topic unless `opts` names
 * its inputs.
 */
async function consume<T = EventEnvelope>(
  { config, kafka }: Awaited<ReturnType<typeof setup>>,
  opts: Omit<BatchConsumerOptions<T>, 'kafka' | 'groupId' | 'deadLetterTopic' | 'log'> & { log?: Logger },
): Promise<BatchConsumer> {
  return startBatchConsumer<T>({
    kafka,
    groupId: `${config.topics.events}.g`,
    ...(opts.inputs ? {} : { topic: config.topics.events }),
    deadLetterTopic: config.topics.deadLetter,
    log,
    ...opts,
  });
}

/** Until the consumer has nothing left to read. */
const lagZero = (timeoutMs?: number) =>
  waitFor(
    'lag 0',
    () => running!.lag(),
    (n) => n === 0,
    timeoutMs,
  );

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
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(1050), 100);
    const batches: DecodedMessage[][] = [];
    running = await consume(ctx, {
      name: 'test_size',
      maxBatchSize: 500,
      maxBatchMs: 60_000,
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
    const ctx = await setup();
    const { config } = ctx;
    const sizes: number[] = [];
    running = await consume(ctx, {
      name: 'test_time',
      maxBatchSize: 10_000,
      maxBatchMs: 300,
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
    await lagZero();
  });

  it('retries a failing handle() with backoff and commits nothing until it succeeds', async () => {
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(20));
    const groupId = `${config.topics.events}.g`;
    let calls = 0;
    const seen: string[][] = [];
    running = await consume(ctx, {
      name: 'test_retry',
      maxBatchSize: 20,
      maxBatchMs: 200,
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
    const ctx = await setup();
    const { config } = ctx;
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
    running = await consume(ctx, {
      name: 'test_dlq',
      maxBatchSize: 100,
      maxBatchMs: 200,
      handle: async (b) => {
        handled.push(...b.map((m) => m.offset));
      },
    });
    await lagZero();
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

  it('isolates a message whose write fails deterministically: the rest is written, it is dead-lettered with the error', async () => {
    const ctx = await setup();
    const { config } = ctx;
    const msgs = envelopes(40);
    const badId = (JSON.parse(msgs[17]!.value.toString()) as { event: { event_id: string } }).event.event_id;
    await produce(config, config.topics.events, msgs);
    const written: string[] = [];
    running = await consume(ctx, {
      name: 'test_isolate',
      maxBatchSize: 40,
      maxBatchMs: 200,
      maxBackoffMs: 50,
      // All-or-nothing like a transaction; fails like Postgres on a NUL byte whenever the bad event is in.
      handle: async (b) => {
        if (b.some((m) => m.envelope.event.event_id === badId))
          throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
        written.push(...b.map((m) => m.offset));
      },
    });
    await lagZero(30_000);
    expect(written.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i).filter((i) => i !== 17));
    const dlq = (await readAll(config, config.topics.deadLetter, 1)).map((m) => JSON.parse(m.value));
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({ source_topic: config.topics.events, offset: '17', key: msgs[17]!.key });
    expect(dlq[0].reason).toMatch(/22021: invalid byte sequence/);
    expect(Buffer.from(dlq[0].value_base64, 'base64').toString()).toBe(msgs[17]!.value.toString());
    expect(await metrics.getSingleMetricAsString('watchpost_consumer_isolated_total')).toMatch(/consumer="test_isolate"} 1/);
    expect(running.ready()).toBe(true);
  });

  it('never dead-letters transient failures, however many', async () => {
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(5));
    let calls = 0;
    const written: string[] = [];
    running = await consume(ctx, {
      name: 'test_transient',
      maxBatchSize: 5,
      maxBatchMs: 100,
      maxBackoffMs: 20,
      handle: async (b) => {
        if (++calls <= 12) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:15432'), { code: 'ECONNREFUSED' });
        written.push(...b.map((m) => m.offset));
      },
    });
    await lagZero(30_000);
    expect(written).toEqual(['0', '1', '2', '3', '4']);
    expect(await readAll(config, config.topics.deadLetter, 0, 1500)).toHaveLength(0);
    expect(await metrics.getSingleMetricAsString('watchpost_consumer_transient_failures_total')).toMatch(
      /consumer="test_transient"} 12/,
    );
  });

  it('reads several inputs, each with its own decoding; a batch holds one topic', async () => {
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(3));
    await produce(config, config.topics.problems, [
      { key: 'p1', value: Buffer.from('{"n":1}') },
      { key: 'p2', value: Buffer.from('{"n":2}') },
    ]);
    const seen: { topic: string; values: unknown[] }[] = [];
    running = await consume<unknown>(ctx, {
      inputs: [
        { topic: config.topics.events },
        { topic: config.topics.problems, decode: (v) => ({ ok: true, value: JSON.parse(String(v)) as unknown }) },
      ],
      name: 'test_inputs',
      maxBatchSize: 100,
      maxBatchMs: 100,
      handle: async (b) => {
        seen.push({ topic: b[0]!.topic, values: b.map((m) => m.envelope) });
        expect(new Set(b.map((m) => m.topic)).size).toBe(1);
      },
    });
    await waitFor(
      'both inputs',
      async () => seen.length,
      (n) => n >= 2,
    );
    await lagZero();
    const problems = seen.filter((s) => s.topic === config.topics.problems).flatMap((s) => s.values);
    expect(problems).toEqual([{ n: 1 }, { n: 2 }]);
    const events = seen.filter((s) => s.topic === config.topics.events).flatMap((s) => s.values);
    expect(events).toHaveLength(3);
  });

  it('is not ready while a partition has lag and makes no progress, and ready again once it does', async () => {
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(3));
    let down = true;
    running = await consume(ctx, {
      name: 'test_ready',
      maxBatchSize: 10,
      maxBatchMs: 100,
      maxBackoffMs: 100,
      stallMs: 1500,
      handle: async () => {
        if (down) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      },
    });
    await waitFor(
      'not ready',
      async () => running!.ready(),
      (r) => !r,
      15_000,
    );
    down = false;
    await waitFor(
      'ready again',
      async () => running!.ready(),
      (r) => r,
      15_000,
    );
    expect(await running.lag()).toBe(0);
  });

  it('recreates a consumer that kafkajs crashed and will not restart; every message is handled once it is back', async () => {
    const ctx = await setup();
    const { config } = ctx;
    await produce(config, config.topics.events, envelopes(3));
    await produce(config, config.topics.problems, [{ key: 'p1', value: Buffer.from('{"n":1}') }]);
    // kafkajs crashes the consumer for good (CRASH with restart false) on an error it does not call
    // retriable: here one out of eachBatch; while a broker is killed, e.g. KafkaJSGroupCoordinatorNotFound.
    let throws = 1;
    const seen: { topic: string; value: unknown }[] = [];
    const logged = memoryLogger();
    running = await consume<unknown>(ctx, {
      inputs: [
        { topic: config.topics.events },
        {
          topic: config.topics.problems,
          decode: (v) => {
            if (throws-- > 0) throw new KafkaJSNonRetriableError('not a retriable error');
            return { ok: true, value: JSON.parse(String(v)) as unknown };
          },
        },
      ],
      name: 'test_crash',
      maxBatchSize: 100,
      maxBatchMs: 100,
      restartAfterMs: 8000,
      log: logged.log,
      handle: async (b) => {
        seen.push(...b.map((m) => ({ topic: m.topic, value: m.envelope })));
      },
    });
    await waitFor(
      'the crash',
      async () => running!.healthy(),
      (h) => !h,
      15_000,
    );
    await waitFor(
      'healthy again',
      async () => running!.healthy(),
      (h) => h,
      30_000,
    );
    await lagZero(30_000);
    expect(seen.filter((m) => m.topic === config.topics.problems).map((m) => m.value)).toEqual([{ n: 1 }]);
    // Counted and logged, so an operator sees a consumer that keeps crashing.
    expect(await metrics.getSingleMetricAsString('watchpost_consumer_recreations_total')).toMatch(
      /consumer="test_crash",reason="crashed"} [1-9]/,
    );
    expect(logged.lines().map((l) => l.msg)).toEqual(
      expect.arrayContaining(['consumer crashed', 'crashed and not restarted by kafkajs: recreating the Kafka consumer']),
    );
    // Read again after the new consumer joined, unless their commit came first.
    expect(seen.filter((m) => m.topic === config.topics.events).length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
