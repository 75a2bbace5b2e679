// Postgres, Redis or Kafka down (connections refused and dropped) or hanging (connections accepted,
// nothing answered), each behind a TCP proxy: ingest answers 503 with Retry-After within a bounded
// time, never 500 or a hang, keeps accepting known agent keys from its cache while Postgres fails
// (for a bounded time), and recovers when the server is back. A Redis that is full (noeviction)
// is answered 503 too. Every event answered 201 is in the topic.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import {
  createTestStores,
  memoryLogger,
  readAll,
  sampleEvent,
  startRedisServer,
  startTcpProxy,
  testConfig,
  type OwnRedis,
  type TcpProxy,
  type TestStores,
} from '@watchpost/testkit';
import { createKafka, createPostgres, createRedis, type Config, type Pool, type Redis } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import { buildIngestApp, type IngestService } from './app.ts';

const PRODUCE_TIMEOUT_MS = 1000;
/** What "bounded" means here: the produce/command/lookup timeout plus scheduling margin. */
const BOUND_MS = PRODUCE_TIMEOUT_MS + 1500;
const KEY_CACHE_S = 1;
const KEY_STALE_S = 3;

let stores: TestStores;
let config: Config;
const proxies: Record<'pg' | 'redis' | 'kafka', TcpProxy> = {} as never;
let pg: Pool;
let redis: Redis;
let kafka: Kafka;
let app: FastifyInstance;
let ingest: IngestService;
let key: string;
const accepted: string[] = [];

function hostPort(u: string): [string, number] {
  const url = new URL(u.includes('://') ? u : `tcp://${u}`);
  return [url.hostname, Number(url.port)];
}

beforeAll(async () => {
  config = testConfig('ingest_outage', {
    KAFKA_PARTITIONS: '1',
    SERVICE_INGEST_PRODUCE_TIMEOUT_MS: String(PRODUCE_TIMEOUT_MS),
    SERVICE_INGEST_CLAIM_PROVISIONAL_MS: '3000',
    SERVICE_INGEST_KEY_CACHE_SECONDS: String(KEY_CACHE_S),
    SERVICE_INGEST_KEY_STALE_SECONDS: String(KEY_STALE_S),
  });
  stores = await createTestStores(config);
  key = (await createApiKey(stores.pg, 'outage')).key;
  proxies.pg = await startTcpProxy(...hostPort(config.databaseUrl));
  proxies.redis = await startTcpProxy(...hostPort(config.redisUrl));
  proxies.kafka = await startTcpProxy(...hostPort(config.kafkaBrokers[0]!));
  const pgUrl = new URL(config.databaseUrl);
  pgUrl.port = String(proxies.pg.port);
  pg = createPostgres(pgUrl.toString(), 4, { connectMs: 500, statementMs: PRODUCE_TIMEOUT_MS });
  redis = createRedis(`redis://127.0.0.1:${proxies.redis.port}`, { timeouts: { connectMs: 500, commandMs: PRODUCE_TIMEOUT_MS } });
  // Every broker connection (the advertised address included) goes through the proxy.
  kafka = new Kafka({
    clientId: 'ingest-outage-test',
    brokers: [`127.0.0.1:${proxies.kafka.port}`],
    connectionTimeout: 500,
    requestTimeout: 2000,
    logLevel: logLevel.NOTHING,
    socketFactory: ({ onConnect }) => net.connect({ host: '127.0.0.1', port: proxies.kafka.port }, onConnect),
  });
  ({ app, ingest } = await buildIngestApp({ config, log: memoryLogger().log, redis, pg, kafka }));
});

afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await pg?.end();
  for (const p of Object.values(proxies)) await p?.close();
  await stores?.drop();
});

async function post(k = key, url = '/api/v1/events', payload?: string) {
  const ev = sampleEvent();
  const started = Date.now();
  const r = await app.inject({ method: 'POST', url, headers: { 'x-api-key': k }, payload: payload ?? JSON.stringify(ev) });
  if (r.statusCode === 201) accepted.push(ev.event_id);
  return { status: r.statusCode, ms: Date.now() - started, r, ev };
}

/** The server is back: ingest answers 201 again within a few seconds. */
async function recovers(): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status } = await post();
    if (status === 201) return;
    expect(status).toBe(503);
    if (Date.now() > deadline) throw new Error('ingest did not recover');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function expect503(x: { status: number; ms: number; r: { headers: Record<string, unknown>; json(): unknown } }) {
  expect(x.status).toBe(503);
  expect(x.r.headers['retry-after']).toBe('5');
  expect(x.r.json()).toEqual({ error: { code: 'UNAVAILABLE', message: expect.any(String) } });
  expect(x.ms).toBeLessThan(BOUND_MS);
}

describe.each(['cut', 'hang'] as const)('Postgres %s', (mode) => {
  it('known keys keep working from the cache for the stale window; unknown keys 503 in bounded time; then recovers', async () => {
    expect((await post()).status).toBe(201); // verified now
    const unknown = (await createApiKey(stores.pg, `unseen-${mode}`)).key;
    proxies.pg[mode]();
    try {
      await new Promise((r) => setTimeout(r, KEY_CACHE_S * 1000 + 100)); // cache expired: Postgres would be asked
      const known = await post();
      expect(known.status).toBe(201);
      expect(known.ms).toBeLessThan(BOUND_MS);
      expect503(await post(unknown));
      // While Postgres keeps failing, known keys are answered without waiting for it.
      const again = await post();
      expect(again.status).toBe(201);
      expect(again.ms).toBeLessThan(200);
      // Past cache + stale window since the last confirmation: 503, not 401, not a hang.
      await new Promise((r) => setTimeout(r, (KEY_CACHE_S + KEY_STALE_S) * 1000));
      expect503(await post());
    } finally {
      proxies.pg.restore();
    }
    await recovers();
  });
});

describe.each(['cut', 'hang'] as const)('Redis %s', (mode) => {
  it('503 with Retry-After in bounded time, single and batch; then recovers', async () => {
    expect((await post()).status).toBe(201);
    proxies.redis[mode]();
    try {
      const one = await post();
      expect503(one);
      const b = await post(key, '/api/v1/events/batch', `${JSON.stringify(sampleEvent())}\n${JSON.stringify(sampleEvent())}`);
      expect(b.status).toBe(503);
      expect(b.ms).toBeLessThan(BOUND_MS);
      expect(b.r.json()).toMatchObject({ unavailable: 2, created: 0 });
    } finally {
      proxies.redis.restore();
    }
    await recovers();
  });
});

describe.each(['cut', 'hang'] as const)('Kafka %s', (mode) => {
  it('503 with Retry-After in bounded time, no claim left behind; then recovers', async () => {
    expect((await post()).status).toBe(201);
    proxies.kafka[mode]();
    let ev;
    try {
      const one = await post();
      expect503(one);
      ev = one.ev;
    } finally {
      proxies.kafka.restore();
    }
    expect((await ingest.claims.state(ev.event_id)).state).toBe('free');
    await recovers();
  });
});

describe('Redis full (noeviction)', () => {
  let own: OwnRedis;
  let full: Redis;
  afterAll(async () => {
    full?.disconnect();
    await own?.stop();
  });

  it('answers 503 with Retry-After while claims cannot be written; accepts again when there is room', async () => {
    own = await startRedisServer();
    full = createRedis(own.url);
    const small = await buildIngestApp({
      config,
      log: memoryLogger().log,
      redis: full,
      pg: stores.pg,
      kafka: createKafka(config.kafkaBrokers, 'ingest-oom-test'),
    });
    try {
      const used = Number(/used_memory:(\d+)/.exec(await full.info('memory'))![1]);
      await full.config('SET', 'maxmemory', String(used + 64 * 1024)); // room for a few hundred claims
      const postTo = async (ev = sampleEvent()) => {
        const r = await small.app.inject({
          method: 'POST',
          url: '/api/v1/events',
          headers: { 'x-api-key': key },
          payload: JSON.stringify(ev),
        });
        if (r.statusCode === 201) accepted.push(ev.event_id);
        return r;
      };
      let refused;
      for (let i = 0; i < 5000 && !refused; i++) {
        const r = await postTo();
        if (r.statusCode !== 201) refused = r;
      }
      expect(refused?.statusCode).toBe(503);
      expect(refused!.headers['retry-after']).toBe('5');
      expect(refused!.json().error.code).toBe('UNAVAILABLE');
      expect((await postTo()).statusCode).toBe(503); // still full: still 503, never 500
      await full.config('SET', 'maxmemory', '0');
      expect((await postTo()).statusCode).toBe(201);
    } finally {
      await small.app.close();
    }
  });
});

it('nothing accepted is lost: every event answered 201 is in the topic', async () => {
  expect(accepted.length).toBeGreaterThan(10);
  const got = await readAll(config, config.topics.events, accepted.length);
  const ids = new Set(got.map((m) => (JSON.parse(m.value) as { event: { event_id: string } }).event.event_id));
  expect(accepted.filter((id) => !ids.has(id))).toEqual([]);
});
