// Proves each server of the stack is real: data goes in and comes back out through its own protocol.
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker, QueueEvents } from 'bullmq';
import { createClickhouse, queryRows } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { createRedis } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { createTestStores, testConfig, uniqueTestName } from '@watchpost/testkit';

const config = testConfig('servers');
const stores = await createTestStores(config);
afterAll(() => stores.drop());

describe('local stack servers', () => {
  it('PostgreSQL stores and returns a row', async () => {
    await stores.pg.query('CREATE TABLE probe (id serial PRIMARY KEY, note text NOT NULL)');
    await stores.pg.query('INSERT INTO probe (note) VALUES ($1)', ["it's real"]);
    const r = await stores.pg.query<{ note: string; v: string }>('SELECT note, current_setting($1) AS v FROM probe', [
      'server_version_num',
    ]);
    expect(r.rows[0]!.note).toBe("it's real");
    expect(Number(r.rows[0]!.v)).toBeGreaterThanOrEqual(130000);
  });

  it('ClickHouse stores and returns a row', async () => {
    const ch = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
    await ch.command({ query: 'CREATE TABLE probe (id UInt32, note String) ENGINE = MergeTree ORDER BY id' });
    await ch.insert({ table: 'probe', values: [{ id: 7, note: 'seven' }], format: 'JSONEachRow' });
    expect(await queryRows(ch, sql`SELECT id, note FROM probe WHERE id = ${7}`)).toEqual([{ id: 7, note: 'seven' }]);
    await ch.close();
  });

  it('Kafka carries a message from a producer to a consumer group', async () => {
    const kafka = createKafka(config.kafkaBrokers, 'stack-test');
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: uniqueTestName('group') });
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topic: config.topics.events, fromBeginning: true });
    const received = new Promise<{ key: string; value: string }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => resolve({ key: String(message.key), value: String(message.value) }),
      });
    });
    await producer.send({ topic: config.topics.events, acks: -1, messages: [{ key: 'host-a', value: 'hello' }] });
    expect(await received).toEqual({ key: 'host-a', value: 'hello' });
    await consumer.disconnect();
    await producer.disconnect();
  });

  it('Redis runs a BullMQ job from queue to worker, with AOF and noeviction', async () => {
    const redis = createRedis(config.redisUrl);
    expect((await redis.config('GET', 'maxmemory-policy'))[1]).toBe('noeviction');
    if (!process.env.REDIS_URL) expect((await redis.config('GET', 'appendonly'))[1]).toBe('yes');
    await redis.quit();
    const prefix = uniqueTestName('bull');
    const connection = createRedis(config.redisUrl, { forBullmq: true });
    const queue = new Queue('probe', { connection, prefix });
    const events = new QueueEvents('probe', { connection: createRedis(config.redisUrl, { forBullmq: true }), prefix });
    const worker = new Worker('probe', async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), {
      connection: createRedis(config.redisUrl, { forBullmq: true }),
      prefix,
    });
    await events.waitUntilReady();
    const job = await queue.add('double', { n: 21 }, { jobId: 'probe-1' });
    expect(await job.waitUntilFinished(events, 10_000)).toEqual({ doubled: 42 });
    await worker.close();
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
  });
});
