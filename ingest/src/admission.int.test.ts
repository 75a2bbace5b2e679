// Admission control under concurrency, against the real Redis, Kafka and Postgres: the per-key token
// bucket (429 + Retry-After), the caps on events and bytes in flight (503 + Retry-After), and a batch
// streamed in chunks over a real socket.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import { createTestStores, memoryLogger, sampleEvent, testConfig, type TestStores } from '@watchpost/testkit';
import { createKafka, createRedis, type Config, type Redis } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import { buildIngestApp, type IngestService } from './app.ts';
import type { EventSink } from './kafka-sink.ts';

let stores: TestStores;
let redis: Redis;
let kafka: Kafka;
const open: FastifyInstance[] = [];

beforeAll(async () => {
  stores = await createTestStores(testConfig('ingest_admission', { KAFKA_PARTITIONS: '1' }));
  redis = createRedis(stores.config.redisUrl);
  kafka = createKafka(stores.config.kafkaBrokers, 'ingest-admission-test');
});
afterAll(async () => {
  for (const a of open) await a.close();
  await redis?.quit();
  await stores?.drop();
});

async function appWith(
  ingest: Partial<Config['ingest']>,
  sink?: (real: EventSink) => EventSink,
): Promise<{ app: FastifyInstance; ingest: IngestService; key: string }> {
  const config = { ...stores.config, ingest: { ...stores.config.ingest, ...ingest } };
  const built = await buildIngestApp({ config, log: memoryLogger().log, redis, pg: stores.pg, kafka });
  open.push(built.app);
  if (sink) {
    // The real Kafka sink behind a slower front door: requests stay in flight long enough to overlap.
    const slowed = await buildIngestApp({
      config,
      log: memoryLogger().log,
      redis,
      pg: stores.pg,
      kafka,
      sink: sink(built.ingest.sink),
    });
    open.push(slowed.app);
    return { ...slowed, key: (await createApiKey(stores.pg, 'admission')).key };
  }
  return { ...built, key: (await createApiKey(stores.pg, 'admission')).key };
}

function post(app: FastifyInstance, key: string, body: string, url = '/api/v1/events') {
  return app.inject({ method: 'POST', url, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: body });
}

const delayed =
  (ms: number) =>
  (real: EventSink): EventSink => ({
    send: async (m) => {
      await new Promise((r) => setTimeout(r, ms));
      await real.send(m);
    },
    ready: () => real.ready(),
    close: async () => {},
  });

describe('per-key rate limit (token bucket)', () => {
  it('60 concurrent posts against a burst of 20: 20 accepted, the rest 429 with Retry-After; another key is not affected', async () => {
    const { app, key } = await appWith({ ratePerKey: 1, rateBurst: 20 });
    const other = (await createApiKey(stores.pg, 'other')).key;
    const rs = await Promise.all(Array.from({ length: 60 }, () => post(app, key, JSON.stringify(sampleEvent()))));
    const created = rs.filter((r) => r.statusCode === 201).length;
    expect(created).toBeGreaterThanOrEqual(20);
    expect(created).toBeLessThanOrEqual(21); // one token may refill while they run (1/s)
    const limited = rs.filter((r) => r.statusCode === 429);
    expect(limited).toHaveLength(60 - created);
    expect(limited[0]!.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await post(app, other, JSON.stringify(sampleEvent()))).statusCode).toBe(201);
  });

  it('a batch pays per line; concurrent batches cannot overdraw the bucket twice; Retry-After says how long the debt lasts', async () => {
    const { app, key } = await appWith({ ratePerKey: 1, rateBurst: 20 });
    const body = () => Array.from({ length: 15 }, () => JSON.stringify(sampleEvent())).join('\n');
    const rs = await Promise.all(Array.from({ length: 5 }, () => post(app, key, body(), '/api/v1/events/batch')));
    // 20 tokens: the first batch leaves 5, the second 5 - 15 = -10, the rest find the bucket empty.
    expect(rs.map((r) => r.statusCode).sort()).toEqual([200, 200, 429, 429, 429]);
    const after = await post(app, key, JSON.stringify(sampleEvent()));
    expect(after.statusCode).toBe(429);
    expect(Number(after.headers['retry-after'])).toBeGreaterThanOrEqual(10);
    expect(Number(after.headers['retry-after'])).toBeLessThanOrEqual(11);
  });

  it('0 turns the limit off', async () => {
    const { app, key } = await appWith({ ratePerKey: 0, rateBurst: 1 });
    const rs = await Promise.all(Array.from({ length: 30 }, () => post(app, key, JSON.stringify(sampleEvent()))));
    expect(rs.every((r) => r.statusCode === 201)).toBe(true);
  });
});

describe('events and bytes in flight', () => {
  it('events cap: 30 concurrent posts while Kafka is slow, cap 10: 10 accepted, 20 answered 503 at once; all released after', async () => {
    const { app, ingest, key } = await appWith({ maxInFlightEvents: 10 }, delayed(300));
    const started = Date.now();
    const rs = await Promise.all(
      Array.from({ length: 30 }, () =>
        post(app, key, JSON.stringify(sampleEvent())).then((r) => ({ r, ms: Date.now() - started })),
      ),
    );
    const ok = rs.filter((x) => x.r.statusCode === 201);
    const refused = rs.filter((x) => x.r.statusCode === 503);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    expect(refused[0]!.r.headers['retry-after']).toBe('5');
    expect(refused[0]!.r.json().error.code).toBe('UNAVAILABLE');
    expect(Math.max(...refused.map((x) => x.ms))).toBeLessThan(250); // refused before the slow send, not after it
    expect(ingest.inFlight).toMatchObject({ events: 0, bytes: 0 });
    expect((await post(app, key, JSON.stringify(sampleEvent()))).statusCode).toBe(201);
  });

  it('bytes cap: held from the declared length until the answer', async () => {
    const ev = () => JSON.stringify(sampleEvent());
    const size = Buffer.byteLength(ev());
    const { app, ingest, key } = await appWith({ maxInFlightBytes: size * 3 + size / 2 }, delayed(300));
    const rs = await Promise.all(Array.from({ length: 10 }, () => post(app, key, ev())));
    expect(rs.filter((r) => r.statusCode === 201)).toHaveLength(3);
    expect(rs.filter((r) => r.statusCode === 503)).toHaveLength(7);
    expect(ingest.inFlight).toMatchObject({ events: 0, bytes: 0 });
  });

  it('a batch is admitted or refused whole: over the events cap, 503 and nothing appended', async () => {
    const { app, ingest, key } = await appWith({ maxInFlightEvents: 25 }, delayed(300));
    const lines = () => Array.from({ length: 20 }, () => JSON.stringify(sampleEvent()));
    const a = lines();
    const b = lines();
    const [ra, rb] = await Promise.all([
      post(app, key, a.join('\n'), '/api/v1/events/batch'),
      post(app, key, b.join('\n'), '/api/v1/events/batch'),
    ]);
    expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 503]);
    const refused = ra.statusCode === 503 ? a : b;
    const claimed = await Promise.all(refused.map((l) => ingest.claims.state(JSON.parse(l).event_id)));
    expect(claimed.every((c) => c.state === 'free')).toBe(true);
    expect(ingest.inFlight).toMatchObject({ events: 0, bytes: 0 });
  });
});

describe('NDJSON batch over a real socket', () => {
  it('a chunked body (no Content-Length) is split as it arrives; over the byte limit it is 413', async () => {
    const { app, ingest, key } = await appWith({ batchMaxBytes: 64 * 1024 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/events/batch`;
    const evs = Array.from({ length: 20 }, () => JSON.stringify(sampleEvent()));
    const send = (parts: string[]) =>
      fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: Readable.toWeb(Readable.from(parts.map((p) => Buffer.from(p)))) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
    // Every event cut in two chunks, so that no chunk ends at a newline.
    const parts = evs.flatMap((e) => [e.slice(0, 100), `${e.slice(100)}\n`]);
    const r = await send(parts);
    expect(r.status).toBe(200);
    const j = (await r.json()) as { created: number; results: { line: number; status: number }[] };
    expect(j.created).toBe(20);
    expect(j.results.map((x) => x.line)).toEqual(evs.map((_, i) => i + 1));
    const big = await send(Array.from({ length: 100 }, () => `${'x'.repeat(1023)}\n`));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // What the requests held is released once their responses are done on the socket.
    const until = Date.now() + 2000;
    while ((ingest.inFlight.events || ingest.inFlight.bytes) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(ingest.inFlight).toMatchObject({ events: 0, bytes: 0 });
  });
});
