// GET /system/status on the real stack (the test's own topics, consumer groups, queues and databases):
// ingest rate from stored events, consumer lag per group against the topics' ends, queue depths and
// store latencies; and with dependencies unreachable (a wrong port) or hanging (a proxy that accepts
// and never answers): 200 with those parts marked down, in bounded time.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickhouse, createKafka, createQueue, createRedis } from '@watchpost/runtime';
import { migrateKafka } from '@watchpost/core/migrate';
import { QUEUES } from '@watchpost/schemas';
import { makeEnvelope, startTcpProxy } from '@watchpost/testkit';
import { addUser, createApiHarness, insertEnvelopes, login, type ApiHarness } from '@watchpost/testkit/api';
import systemRoutes, { SYSTEM_STATUS_CACHE_MS } from './system.ts';

let h: ApiHarness;
let monitorAuth: Record<string, string>;

beforeAll(async () => {
  h = await createApiHarness('api_system_status');
  await migrateKafka(h.config); // the harness makes no topics; dropped with its stores
  const m = await addUser(h, 'glance', 'monitor');
  monitorAuth = { authorization: `Bearer ${(await login(h, m.username, m.password)).json().access_token}` };
});
afterAll(async () => h?.close());

describe('GET /api/v1/system/status', () => {
  it('is for logged-in users (a monitor too), not for strangers', async () => {
    expect((await h.app.inject({ url: '/api/v1/system/status' })).statusCode).toBe(401);
  });

  it('reports ingest rate, consumer lag per group, queue depths and every store up with its latency', async () => {
    const now = new Date();
    // 6 events stored in the last minute, 2 long before (outside the window).
    await insertEnvelopes(h.stores.ch, [
      ...Array.from({ length: 6 }, (_, i) => makeEnvelope({}, i, new Date(now.getTime() - 5_000 - i * 1000))),
      ...Array.from({ length: 2 }, (_, i) => makeEnvelope({}, 10 + i, new Date(now.getTime() - 3_600_000))),
    ]);
    // 9 messages on events.v1 and 2 on problems.v1; store has committed nothing past the start of
    // events, correlate everything, stream only problems; notify never ran.
    const kafka = createKafka(h.config.kafkaBrokers, 'system-status-test');
    const producer = kafka.producer();
    const admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    try {
      await producer.send({
        topic: h.config.topics.events,
        messages: Array.from({ length: 9 }, (_, i) => ({ key: `host-${i}`, value: 'x' })),
      });
      await producer.send({ topic: h.config.topics.problems, messages: [{ value: 'p' }, { value: 'q' }] });
      const commit = async (group: string, topic: string, at: 'low' | 'high') => {
        const ends = await admin.fetchTopicOffsets(topic);
        await admin.setOffsets({
          groupId: group,
          topic,
          partitions: ends.map((p) => ({ partition: p.partition, offset: at === 'low' ? p.low : p.high })),
        });
      };
      await commit(h.config.consumerGroups.store, h.config.topics.events, 'low');
      await commit(h.config.consumerGroups.correlate, h.config.topics.events, 'high');
      await commit(h.config.consumerGroups.stream, h.config.topics.problems, 'high');
    } finally {
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    }
    // 3 deliveries waiting for the chat worker (none runs here), 1 delayed action.
    const conn = createRedis(h.config.redisUrl, { forBullmq: true });
    const chat = createQueue(h.config, QUEUES.notifyChat, conn);
    const actions = createQueue(h.config, QUEUES.actions, conn);
    await chat.addBulk([1, 2, 3].map((i) => ({ name: 'deliver', data: { i } })));
    await actions.add('later', {}, { delay: 60_000 });

    const r = await h.app.inject({ url: '/api/v1/system/status', headers: monitorAuth });
    expect(r.statusCode).toBe(200);
    const s = r.json();
    expect(s.ingest).toEqual({ status: 'up', events_last_minute: 6, events_per_second: 0.1 });
    const groups = Object.fromEntries(s.consumers.groups.map((g: { group: string }) => [g.group, g]));
    expect(s.consumers.status).toBe('up');
    expect(groups.store).toMatchObject({ lag: 9, members: 0 });
    expect(groups.correlate).toMatchObject({ lag: 0, members: 0 });
    // stream committed problems only: the 9 events are behind
    expect(groups.stream).toMatchObject({ lag: 9 });
    expect(groups.notify).toMatchObject({ lag: null });
    const queues = Object.fromEntries(s.queues.items.map((q: { queue: string }) => [q.queue, q]));
    expect(queues['notify-chat']).toEqual({ queue: 'notify-chat', waiting: 3, active: 0, delayed: 0, failed: 0 });
    expect(queues.actions).toMatchObject({ waiting: 0, delayed: 1 });
    expect(queues['notify-email']).toMatchObject({ waiting: 0 });
    expect(s.stores.map((x: { name: string; status: string }) => `${x.name}:${x.status}`)).toEqual([
      'postgres:up',
      'redis:up',
      'clickhouse:up',
      'kafka:up',
    ]);
    for (const x of s.stores) expect(x.latency_ms).toBeGreaterThanOrEqual(0);

    // Cached: a second caller within the cache time gets the same run, even after a change.
    await chat.add('deliver', { i: 4 });
    const again = (await h.app.inject({ url: '/api/v1/system/status', headers: monitorAuth })).json();
    expect(again.generated_at).toBe(s.generated_at);
    await new Promise((res) => setTimeout(res, SYSTEM_STATUS_CACHE_MS + 50));
    const fresh = (await h.app.inject({ url: '/api/v1/system/status', headers: monitorAuth })).json();
    expect(fresh.generated_at).not.toBe(s.generated_at);
    expect(fresh.queues.items.find((q: { queue: string }) => q.queue === 'notify-chat').waiting).toBe(4);
    await chat.close();
    await actions.close();
    await conn.quit();
  }, 30_000);

  it('answers 200 in bounded time with the parts marked down when stores are unreachable or hang', async () => {
    // Kafka hangs (accepts, never answers); ClickHouse and Redis are on a wrong port; Postgres is fine.
    const hung = await startTcpProxy('127.0.0.1', 9);
    hung.hang();
    const badRedis = createRedis('redis://127.0.0.1:1', { timeouts: { connectMs: 500, commandMs: 500 } });
    const app = Fastify({ logger: false });
    app.decorate('deps', {
      ...h.deps,
      config: {
        ...h.config,
        kafkaBrokers: [`127.0.0.1:${hung.port}`],
        redisUrl: 'redis://127.0.0.1:1',
        redis: { ...h.config.redis, url: 'redis://127.0.0.1:1', sentinels: [] },
      },
      redis: badRedis,
      clickhouse: createClickhouse('http://127.0.0.1:1', h.config.clickhouseDatabase),
    });
    await app.register(systemRoutes);
    try {
      const started = Date.now();
      const r = await app.inject({ url: '/system/status' });
      const took = Date.now() - started;
      expect(r.statusCode).toBe(200);
      expect(took).toBeLessThan(4000);
      const s = r.json();
      const stores = Object.fromEntries(s.stores.map((x: { name: string }) => [x.name, x]));
      expect(stores.postgres).toMatchObject({ status: 'up', error: null });
      expect(stores.kafka).toEqual({ name: 'kafka', status: 'down', latency_ms: null, error: 'timed out' });
      expect(stores.clickhouse).toMatchObject({ status: 'down', latency_ms: null });
      expect(stores.redis).toMatchObject({ status: 'down', latency_ms: null });
      expect(s.ingest).toEqual({ status: 'down', events_last_minute: null, events_per_second: null });
      expect(s.consumers.status).toBe('down');
      expect(s.consumers.groups.map((g: { lag: number | null }) => g.lag)).toEqual([null, null, null, null]);
      expect(s.queues).toEqual({ status: 'down', items: [] });
      // No internals in the answer.
      expect(r.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    } finally {
      await app.close();
      badRedis.disconnect();
      await hung.close();
    }
  }, 20_000);
});
