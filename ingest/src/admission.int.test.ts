// Admission control under concurrency, against the real Redis, Kafka and Postgres: the token buckets
// per host under a ceiling per key (429 + Retry-After), the caps on events and bytes in flight (503 +
// Retry-After), and a batch streamed in chunks over a real socket.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import { createTestStores, memoryLogger, sampleEvent, testConfig, topicReader, type TestStores } from '@watchpost/testkit';
import { createKafka, createRedis, type Config, type Redis } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import { buildIngestApp, type IngestService } from './app.ts';
import type { EventSink } from './kafka-sink.ts';

let stores: TestStores;
let redis: Redis;
let kafka: Kafka;
const open: FastifyInstance[] = [];
let events: Awaited<ReturnType<typeof topicReader>> | undefined;
const BATCH = '/api/v1/events/batch';

/** What ingest appended to the events topic (one reader for the file, opened on first use). */
async function reader() {
  events ??= await topicReader(kafka, stores.config.topics.events);
  return events;
}

beforeAll(async () => {
  stores = await createTestStores(testConfig('ingest_admission', { KAFKA_PARTITIONS: '1' }));
  redis = createRedis(stores.config.redisUrl);
  kafka = createKafka(stores.config.kafkaBrokers, 'ingest-admission-test');
});
afterAll(async () => {
  for (const a of open) await a.close();
  await events?.close();
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

describe('per-key ceiling (token bucket)', () => {
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
    // Refused before the slow send, not after it: every 503 arrives before the first 201 (each 201 waits 300 ms).
    expect(Math.max(...refused.map((x) => x.ms))).toBeLessThan(Math.min(...ok.map((x) => x.ms)));
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

describe('fair shared keys: a bucket per key and host under a per-key ceiling', () => {
  const as = (hostname: string) =>
    sampleEvent({
      host: { hostname, os_family: 'linux' },
      source: { product: 'ssh-monitor', product_version: '2.4.1', agent_instance_id: `agent-${hostname}` },
    });

  it("one host's flood gets 429; another host on the same key keeps getting 201 and its events are stored", async () => {
    const { app, key } = await appWith({ ratePerKey: 0.01, rateBurst: 100, ratePerHost: 0.01, rateHostBurst: 20 });
    const flood = await Promise.all(Array.from({ length: 150 }, () => post(app, key, JSON.stringify(as('flood-a')))));
    const limited = flood.filter((r) => r.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.json().error.code).toBe('RATE_LIMITED');
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Host B on the same key, while A is still refused.
    const b = Array.from({ length: 10 }, () => as('quiet-b'));
    const rb = await Promise.all(b.map((e) => post(app, key, JSON.stringify(e))));
    expect(rb.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    expect((await post(app, key, JSON.stringify(as('flood-a')))).statusCode).toBe(429);
    // A got its own burst, not the key's (the buckets refill at one token per 100 s here).
    expect(flood.filter((r) => r.statusCode === 201)).toHaveLength(20);
    const stored = new Set((await (await reader()).caughtUp()).map((m) => JSON.parse(m.value).event.event_id as string));
    expect(b.every((e) => stored.has(e.event_id))).toBe(true);
  });

  it("a batch: the flooding host's lines answer 429 per line, the other host's lines are stored; the whole answer is 429", async () => {
    const { app, ingest, key } = await appWith({ ratePerKey: 0.01, rateBurst: 1000, ratePerHost: 0.01, rateHostBurst: 10 });
    const first = await post(app, key, Array.from({ length: 10 }, () => JSON.stringify(as('flood-a'))).join('\n'), BATCH);
    expect(first.statusCode).toBe(200);
    // A's bucket is empty now: a batch of A's and B's lines.
    const lines = [as('flood-a'), as('quiet-b'), as('flood-a'), as('quiet-b')];
    const r = await post(app, key, lines.map((e) => JSON.stringify(e)).join('\n'), BATCH);
    expect(r.statusCode).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const j = r.json();
    expect(j).toMatchObject({ created: 2, rate_limited: 2, unavailable: 0 });
    expect(j.results.map((x: { status: number }) => x.status)).toEqual([429, 201, 429, 201]);
    expect(j.results[0]).toMatchObject({ line: 1, event_id: lines[0]!.event_id, error: { code: 'RATE_LIMITED' } });
    // Nothing of A's refused lines is held: the agent's resend of the whole batch stores them (B's lines then 409).
    // The commits follow the answer within milliseconds (they ride along with a claim call).
    const states = async () => (await Promise.all(lines.map((e) => ingest.claims.state(e.event_id)))).map((s) => s.state);
    await expect.poll(states, { timeout: 2000, interval: 10 }).toEqual(['free', 'stored', 'free', 'stored']);
    const again = await post(app, key, lines.map((e) => JSON.stringify(e)).join('\n'), BATCH);
    expect(again.json().results.map((x: { status: number }) => x.status)).toEqual([429, 409, 429, 409]);
    // B alone is not affected.
    const rb = await post(app, key, Array.from({ length: 5 }, () => JSON.stringify(as('quiet-b'))).join('\n'), BATCH);
    expect(rb.statusCode).toBe(200);
  });

  it('the per-key ceiling still bounds the key: many hosts together get 429 with Retry-After, a new host is refused before its body is read', async () => {
    const { app, key } = await appWith({ ratePerKey: 0.01, rateBurst: 30, ratePerHost: 0.01, rateHostBurst: 5 });
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, h) =>
        Array.from({ length: 5 }, () => post(app, key, JSON.stringify(as(`fleet-${h}`)))),
      ).flat(),
    );
    const created = rs.filter((r) => r.statusCode === 201).length;
    expect(created).toBe(30);
    const limited = rs.filter((r) => r.statusCode === 429);
    expect(limited).toHaveLength(50 - created);
    expect(limited[0]!.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('agent key') } });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const late = await post(app, key, JSON.stringify(as('fleet-new')));
    expect(late.statusCode).toBe(429);
    expect(Number(late.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Refused before the body is read: not even parsed.
    expect((await post(app, key, 'not json')).statusCode).toBe(429);
    expect((await post(app, key, 'not json', BATCH)).statusCode).toBe(429);
  });
});
