// POST /api/v1/events and /api/v1/events/batch against the real Redis, Kafka and Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import { openIngestStoresReadingEvents, type IngestStoresReadingEvents } from '@watchpost/testkit';
import { createRedis } from '@watchpost/runtime';
import { metrics } from '@watchpost/runtime';
import { loadConfig } from '@watchpost/runtime';
import { decodeEnvelope } from '@watchpost/schemas';
import { randomUUID } from 'node:crypto';
import type { EventV1 } from '@watchpost/schemas';
import { rdpMonitor, sampleEvent, windowsAgent } from '@watchpost/testkit';
import { resendKeyOf } from './resend.ts';
import { buildIngestApp, type IngestService } from './app.ts';
import { IngestPipeline } from './pipeline.ts';
import { createApiKey, revokeApiKey } from '@watchpost/core';
import { memoryLogger } from '@watchpost/testkit';

const PROVISIONAL_MS = 1500;
/** The test's stores, Redis and Kafka clients, and the reader of its events topic. */
let s: IngestStoresReadingEvents;
let app: FastifyInstance;
let ingest: IngestService;
let key: string;
const logs = memoryLogger();

beforeAll(async () => {
  s = await openIngestStoresReadingEvents(
    'ingest_app',
    {
      SERVICE_INGEST_CLAIM_PROVISIONAL_MS: String(PROVISIONAL_MS),
      SERVICE_INGEST_PRODUCE_TIMEOUT_MS: '1000',
      SERVICE_INGEST_KEY_CACHE_SECONDS: '1',
      SERVICE_INGEST_MAX_BODY_BYTES: '150000',
      SERVICE_INGEST_BATCH_MAX_EVENTS: '20',
      KAFKA_PARTITIONS: '2',
    },
    'ingest-test',
  );
  key = (await createApiKey(s.stores.pg, 'agent')).key;
  ({ app, ingest } = await buildIngestApp({ config: s.config, log: logs.log, redis: s.redis, pg: s.stores.pg, kafka: s.kafka }));
});

afterAll(async () => {
  await app?.close();
  await s?.close();
});

function post(body: unknown, headers: Record<string, string> = { 'x-api-key': key }) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/events',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The claim's state once it is `want` (the commit follows the 201), or after 2 s. */
async function claimStateSoon(eventId: string, want: string): Promise<string> {
  const deadline = Date.now() + 2000;
  let st = (await ingest.claims.state(eventId)).state;
  while (st !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    st = (await ingest.claims.state(eventId)).state;
  }
  return st;
}

async function messagesFor(eventId: string) {
  const all = await s.events.caughtUp();
  return all.filter((m) => m.value.includes(eventId));
}

describe('authentication', () => {
  it('401 without a key, with a wrong key, and with a revoked key (after the cache TTL)', async () => {
    const ev = sampleEvent();
    const variants: Record<string, string>[] = [
      {},
      { 'x-api-key': 'wpk_wrong' },
      { authorization: `Basic ${key}` },
      { authorization: 'Bearer' },
    ];
    for (const headers of variants) {
      const r = await post(ev, headers);
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
    const other = await createApiKey(s.stores.pg, 'soon-revoked');
    expect((await post(sampleEvent(), { authorization: `Bearer ${other.key}` })).statusCode).toBe(201);
    await revokeApiKey(s.stores.pg, other.id);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await post(sampleEvent(), { authorization: `Bearer ${other.key}` })).statusCode).toBe(401);
    expect((await messagesFor(ev.event_id)).length).toBe(0);
  });
});

describe('POST /api/v1/events', () => {
  it('201 with event_id and received_at; one Kafka message keyed by hostname holding the envelope', async () => {
    const ev = sampleEvent({ host: { hostname: 'db-7', os_family: 'linux' } });
    const before = Date.now();
    const r = await post(ev);
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toEqual({
      event_id: ev.event_id,
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(body.received_at)).toBeGreaterThanOrEqual(before - 5);
    const msgs = await messagesFor(ev.event_id);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.key).toBe('db-7');
    const decoded = decodeEnvelope(Buffer.from(msgs[0]!.value));
    expect(decoded).toEqual({ ok: true, envelope: { received_at: body.received_at, event: ev } });
    expect(await claimStateSoon(ev.event_id, 'stored')).toBe('stored');
  });

  it('409 for a stored event_id whatever its content; nothing is appended again', async () => {
    const ev = sampleEvent();
    expect((await post(ev)).statusCode).toBe(201);
    const again = await post({ ...ev, title: 'changed', severity: 'critical' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      error: { code: 'DUPLICATE_EVENT', message: expect.any(String), details: { event_id: ev.event_id } },
    });
    // The same UUID in upper case is the same event.
    expect((await post({ ...ev, event_id: ev.event_id.toUpperCase() })).statusCode).toBe(409);
    expect(await messagesFor(ev.event_id)).toHaveLength(1);
  });

  it('Authorization: Bearer works like X-API-Key', async () => {
    expect((await post(sampleEvent(), { authorization: `Bearer ${key}` })).statusCode).toBe(201);
  });

  it('422 for malformed JSON, non-objects, empty bodies and schema errors, by JSON pointer', async () => {
    const cases: [body: string, pointers: string[]][] = [
      ['{"schema_version": "1.0",', ['']],
      ['', ['']],
      ['[]', ['']],
      ['"text"', ['']],
      [JSON.stringify({ ...sampleEvent(), event_id: 'nope', schema_version: '1.1' }), ['/schema_version', '/event_id']],
      [JSON.stringify({ ...sampleEvent(), occurred_at: '2024-05-01T12:00:00' }), ['/occurred_at']],
      [JSON.stringify({ ...sampleEvent(), host: { hostname: 'h', os_family: 'linux', extra: 1 } }), ['/host/extra']],
    ];
    for (const [body, pointers] of cases) {
      const r = await post(body);
      expect(r.statusCode, body.slice(0, 40)).toBe(422);
      const j = r.json();
      expect(j.error.code).toBe('INVALID_EVENT');
      expect(j.error.details.errors.map((e: { pointer: string }) => e.pointer)).toEqual(pointers);
    }
    // Whatever the content type says.
    const r = await app.inject({
      method: 'POST',
      url: '/api/v1/events',
      headers: { 'x-api-key': key, 'content-type': 'text/plain' },
      payload: '{',
    });
    expect(r.statusCode).toBe(422);
    for (const type of [
      'text/plain',
      'application/json; charset=utf-8',
      'application/json',
      'application/octet-stream',
      undefined,
    ]) {
      const ok = await app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: { 'x-api-key': key, ...(type ? { 'content-type': type } : {}) },
        payload: JSON.stringify(sampleEvent()),
      });
      expect([type, ok.statusCode]).toEqual([type, 201]);
      const bad = await app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: { 'x-api-key': key, ...(type ? { 'content-type': type } : {}) },
        payload: '{"event_id": 1}',
      });
      expect([type, bad.statusCode, bad.json().error.code]).toEqual([type, 422, 'INVALID_EVENT']);
    }
  });

  it('limits at their edges through HTTP (characters, multi-byte included)', async () => {
    const edges: [field: string, max: number, set: (ev: ReturnType<typeof sampleEvent>, v: string) => void][] = [
      ['/title', 256, (e, v) => (e.title = v)],
      ['/summary', 8192, (e, v) => (e.summary = v)],
      ['/raw/payload', 16384, (e, v) => (e.raw = { format: 'text', payload: v })],
      ['/dedup_key', 512, (e, v) => (e.dedup_key = v)],
      ['/fingerprint', 128, (e, v) => (e.fingerprint = v)],
      ['/tags/0', 64, (e, v) => (e.tags = [v])],
    ];
    for (const [pointer, max, set] of edges) {
      for (const ch of ['a', 'ß', '😀']) {
        const ok = sampleEvent();
        set(ok, ch.repeat(max));
        expect((await post(ok)).statusCode, `${pointer} ${max}×${ch}`).toBe(201);
        const bad = sampleEvent();
        set(bad, ch.repeat(max + 1));
        const r = await post(bad);
        expect(r.statusCode, `${pointer} ${max + 1}×${ch}`).toBe(422);
        expect(r.json().error.details.errors).toEqual([{ pointer, message: expect.any(String) }]);
      }
    }
    expect((await post(sampleEvent({ tags: Array.from({ length: 32 }, (_, i) => `t${i}`) }))).statusCode).toBe(201);
    expect((await post(sampleEvent({ tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }))).statusCode).toBe(422);
  });

  it('413 with a JSON body over the body limit', async () => {
    const ev = sampleEvent({ details: { blob: 'x'.repeat(160_000) } });
    const r = await post(ev);
    expect(r.statusCode).toBe(413);
    expect(r.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    expect((await ingest.claims.state(ev.event_id)).state).toBe('free');
  });

  it('50 concurrent posts of one event_id: one 201, 49 409, one Kafka message', async () => {
    const ev = sampleEvent();
    const rs = await Promise.all(Array.from({ length: 50 }, () => post(ev)));
    const codes = rs.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(49);
    expect(await messagesFor(ev.event_id)).toHaveLength(1);
  });

  it('50 concurrent posts of one event_id split over two ingest instances: still one 201', async () => {
    const second = await buildIngestApp({
      config: s.stores.config,
      log: memoryLogger().log,
      redis: createRedis(s.stores.config.redisUrl),
      pg: s.stores.pg,
      kafka: s.kafka,
    });
    try {
      const ev = sampleEvent();
      const inject = (a: FastifyInstance) =>
        a.inject({
          method: 'POST',
          url: '/api/v1/events',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload: JSON.stringify(ev),
        });
      const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => inject(i % 2 ? app : second.app)));
      const codes = rs.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 201)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(49);
      expect(await messagesFor(ev.event_id)).toHaveLength(1);
    } finally {
      await second.app.close();
    }
  });

  it('concurrent requests share micro-batches (fewer produce calls than events), each timed in its three waits', async () => {
    const count = async (name: string) =>
      ((await metrics.getSingleMetric(name)!.get()).values as { metricName?: string; value: number }[]).find(
        (v) => v.metricName === `${name}_count`,
      )?.value ?? 0;
    const names = ['ingest_microbatch_events', 'ingest_queue_seconds', 'ingest_claim_seconds', 'ingest_produce_seconds'];
    const before = await Promise.all(names.map(count));
    const rs = await Promise.all(Array.from({ length: 200 }, () => post(sampleEvent())));
    expect(rs.every((r) => r.statusCode === 201)).toBe(true);
    const [batches = 0, queued, claimed, sent = 0] = (await Promise.all(names.map(count))).map((n, i) => n - before[i]!);
    expect(batches).toBeLessThan(200);
    expect(batches).toBeGreaterThan(0);
    // One observation per micro-batch in each wait: every batch was claimed and, all of it new, sent.
    expect({ queued, claimed }).toEqual({ queued: batches, claimed: batches });
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(batches);
  });

  it('an agent retry is accepted once a dead process’s provisional claim expired', async () => {
    const ev = sampleEvent();
    // "ingest died between claim and ack": a claim no one will commit.
    expect(await ingest.claims.claim([ev.event_id], 'p-dead-process')).toEqual(['claimed']);
    const s = await ingest.claims.state(ev.event_id);
    expect(s.state).toBe('pending');
    expect(s.ttlMs).toBeLessThanOrEqual(PROVISIONAL_MS);
    await new Promise((r) => setTimeout(r, PROVISIONAL_MS + 100));
    expect((await post(ev)).statusCode).toBe(201);
    expect(await messagesFor(ev.event_id)).toHaveLength(1);
  });

  it('a request meeting a provisional claim waits for it: accepted if it expires meanwhile', async () => {
    const ev = sampleEvent();
    await ingest.claims.claim([ev.event_id], 'p-slow-process');
    const started = Date.now();
    const r = await post(ev); // waits up to produce timeout + 1 s = 2 s; the claim expires after 1.5 s
    expect(r.statusCode).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(PROVISIONAL_MS - 200);
  });

  it('a request meeting a provisional claim that outlives its wait gets 503 with Retry-After (never a guess)', async () => {
    const ev = sampleEvent();
    await s.redis.set(ingest.claims.key(ev.event_id), 'p-other', 'PX', 10_000);
    const r = await post(ev);
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(await s.redis.get(ingest.claims.key(ev.event_id))).toBe('p-other');
    // The other process commits: now it is a duplicate.
    await s.redis.set(ingest.claims.key(ev.event_id), 'c', 'PX', 10_000);
    expect((await post(ev)).statusCode).toBe(409);
  });

  it('committed claims carry the retention TTL and read back from a new Redis connection', async () => {
    const ev = sampleEvent();
    expect((await post(ev)).statusCode).toBe(201);
    expect(await claimStateSoon(ev.event_id, 'stored')).toBe('stored');
    const fresh = createRedis(s.stores.config.redisUrl);
    try {
      expect(await fresh.get(ingest.claims.key(ev.event_id))).toBe('c');
      const ttl = await fresh.pttl(ingest.claims.key(ev.event_id));
      expect(ttl).toBeGreaterThan(s.stores.config.ingest.claimTtlDays * 86_400_000 - 60_000);
    } finally {
      await fresh.quit();
    }
  });

  it('logs one JSON line per outcome and counts it', async () => {
    const ev = sampleEvent({ host: { hostname: 'log-host', os_family: 'windows' } });
    await post(ev);
    await post(ev);
    await post({ ...ev, severity: 'loud' });
    const mine = logs.lines().filter((l) => l.msg === 'ingest' && l.event_id === ev.event_id);
    expect(mine.map((l) => [l.outcome, l.hostname])).toEqual([
      ['created', 'log-host'],
      ['duplicate', 'log-host'],
      ['rejected', 'log-host'],
    ]);
    expect(mine[2]!.reason).toMatch(/\/severity/);
    const text = await metrics.metrics();
    for (const o of ['created', 'duplicate', 'rejected', 'unauthorized', 'too_large', 'unavailable'])
      expect(text).toMatch(new RegExp(`ingest_events_total\\{outcome="${o}"\\} [1-9]`));
    expect(JSON.stringify(logs.lines())).not.toContain(key);
  });
});

describe('the commit after the Kafka ack', () => {
  it('answers 201 before the commit, and the claim is committed right after', async () => {
    const ev = sampleEvent();
    expect((await post(ev)).statusCode).toBe(201);
    expect(await claimStateSoon(ev.event_id, 'stored')).toBe('stored');
  });

  it('a commit of claims still held writes without reading them; a late one commits only what its token holds', async () => {
    const committedTtl = s.stores.config.ingest.claimTtlDays * 86_400_000;
    const [a, b] = [sampleEvent().event_id, sampleEvent().event_id];
    expect(await ingest.claims.claim([a, b], 'p-held')).toEqual(['claimed', 'claimed']);
    // b's key now holds another token: a late commit leaves it (and says so), a held one writes over it,
    // which is why only claims made within the provisional TTL (with margin) are committed as held.
    await s.redis.set(ingest.claims.key(b), 'p-other', 'PX', 10_000);
    expect(await ingest.claims.commit([a, b], 'p-held')).toEqual([true, false]);
    expect((await ingest.claims.state(b)).state).toBe('pending');
    expect(await ingest.claims.commit([a, b], 'p-held', undefined, true)).toEqual([true, true]);
    for (const id of [a, b]) {
      const st = await ingest.claims.state(id);
      expect(st.state).toBe('stored');
      expect(st.ttlMs).toBeGreaterThan(committedTtl - 60_000);
    }
  });

  it('an ack too late to trust the claim: the commit decides (409 when the claim was taken meanwhile)', async () => {
    // The real Kafka sink, slowed past the provisional TTL; meanwhile another request claims the id.
    const ev = sampleEvent();
    const slow = {
      send: async (m: Parameters<IngestService['sink']['send']>[0]) => {
        await new Promise((r) => setTimeout(r, PROVISIONAL_MS + 100));
        expect(await ingest.claims.claim([ev.event_id], 'another-request')).toEqual(['claimed']);
        await ingest.sink.send(m);
      },
      ready: () => ingest.sink.ready(),
      close: async () => {},
    };
    const pipeline = new IngestPipeline({
      claims: ingest.claims,
      sink: slow,
      log: logs.log,
      lingerMs: 0,
      maxBatch: 10,
      timeoutMs: 3000,
      pendingWaitMs: 3000,
    });
    const o = await pipeline.submit({
      eventId: ev.event_id,
      key: ev.host.hostname,
      value: JSON.stringify(ev),
      receivedAt: 'now',
      keyId: 1,
    });
    expect(o).toEqual({ status: 'duplicate', reason: 'event_id claimed by another request meanwhile' });
    await pipeline.close();
  });
});

// Issue 31 item 2: rdp-login-monitor posts the same Windows events again under new ids after a
// connection failure (resend.ts); the same host, type, time on the host and content are one event.
describe('an agent that re-sends under new event_ids', () => {
  const ws = windowsAgent('WS-RESEND');
  const repost = (e: EventV1): EventV1 => ({ ...structuredClone(e), event_id: randomUUID() });

  it('answers the re-send 409 naming the stored event; Kafka holds it once', async () => {
    const e = rdpMonitor.loginFailed(ws, 'CORP\\erin', '203.0.113.61', new Date(Date.now() - 5000));
    const again = repost(e);
    expect((await post(e)).statusCode).toBe(201);
    expect(await claimStateSoon(e.event_id, 'stored')).toBe('stored');
    const r = await post(again);
    expect(r.statusCode).toBe(409);
    expect(r.json().error).toEqual({
      code: 'DUPLICATE_EVENT',
      message: expect.stringContaining(`already stored as ${e.event_id}`),
      details: { event_id: again.event_id, resent_of: e.event_id },
    });
    expect(await ingest.claims.state(again.event_id)).toMatchObject({ state: 'resent', resentOf: e.event_id });
    // The original's own retry is still the plain duplicate; another event of the same host is new.
    expect((await post(e)).json().error.details).toEqual({ event_id: e.event_id });
    const other = rdpMonitor.loginFailed(ws, 'CORP\\erin', '203.0.113.61', new Date(Date.now() - 4999));
    expect((await post(other)).statusCode).toBe(201);
    expect(await messagesFor(e.event_id)).toHaveLength(1);
    expect(await messagesFor(again.event_id)).toHaveLength(0);
    const line = logs.lines().find((l) => l.msg === 'ingest' && l.event_id === again.event_id);
    expect(line).toMatchObject({ outcome: 'duplicate', reason: `same event already stored as ${e.event_id}` });
  });

  it('two copies in flight at once: one is stored, the other answers 409', async () => {
    const e = rdpMonitor.winrmSession(ws, 'CORP\\admin', '10.0.0.61', new Date(Date.now() - 3000));
    const copies = [e, repost(e), repost(e)];
    const answers = await Promise.all(copies.map((c) => post(c)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409]);
    const stored = copies[answers.findIndex((a) => a.statusCode === 201)]!;
    for (const a of answers.filter((x) => x.statusCode === 409)) expect(a.json().error.details.resent_of).toBe(stored.event_id);
    const all = await s.events.caughtUp();
    expect(all.filter((m) => copies.some((c) => m.value.includes(c.event_id)))).toHaveLength(1);
  });

  it('a first post Kafka refused leaves nothing behind: its re-send is stored', async () => {
    const e = rdpMonitor.adminShare(ws, 'CORP\\admin', '10.0.0.61', undefined, new Date(Date.now() - 2000));
    const refusing = new IngestPipeline({
      claims: ingest.claims,
      sink: {
        send: async () => {
          throw new Error('broker down');
        },
        ready: async () => false,
        close: async () => {},
      },
      log: logs.log,
      lingerMs: 0,
      maxBatch: 10,
      timeoutMs: 3000,
      pendingWaitMs: 3000,
    });
    const o = await refusing.submit({
      eventId: e.event_id,
      key: e.host.hostname,
      value: JSON.stringify(e),
      receivedAt: 'now',
      keyId: 1,
      resendKey: resendKeyOf(e),
    });
    expect(o).toEqual({ status: 'unavailable', reason: 'event log unavailable' });
    await refusing.close();
    const again = repost(e);
    expect((await post(again)).statusCode).toBe(201);
    expect(await messagesFor(again.event_id)).toHaveLength(1);
  });

  it('events of products that do not re-send are never taken for one another', async () => {
    const ev = sampleEvent({ occurred_at: new Date(Date.now() - 1000).toISOString() });
    expect((await post(ev)).statusCode).toBe(201);
    expect((await post({ ...ev, event_id: randomUUID() })).statusCode).toBe(201);
  });
});

describe('POST /api/v1/events/batch (NDJSON)', () => {
  function batch(body: string) {
    return app.inject({
      method: 'POST',
      url: '/api/v1/events/batch',
      headers: { 'x-api-key': key, 'content-type': 'application/x-ndjson' },
      payload: body,
    });
  }

  it('answers each line; one bad line never rejects the others', async () => {
    const stored = sampleEvent();
    expect((await post(stored)).statusCode).toBe(201);
    const a = sampleEvent();
    const b = sampleEvent();
    const lines = [
      JSON.stringify(a),
      '{broken',
      JSON.stringify({ ...sampleEvent(), category: 'nope' }),
      '',
      JSON.stringify(stored),
      JSON.stringify(b),
      JSON.stringify(a),
      JSON.stringify(sampleEvent({ details: { blob: 'x'.repeat(160_000) } })),
    ];
    const r = await batch(lines.join('\n') + '\n');
    expect(r.statusCode).toBe(200);
    const j = r.json();
    expect(j).toMatchObject({ created: 2, duplicate: 2, rejected: 3, unavailable: 0 });
    expect(j.results.map((x: { line: number; status: number }) => [x.line, x.status])).toEqual([
      [1, 201],
      [2, 422],
      [3, 422],
      [5, 409],
      [6, 201],
      [7, 409],
      [8, 413],
    ]);
    expect(j.results[0]).toEqual({ line: 1, status: 201, event_id: a.event_id, received_at: expect.any(String) });
    expect(j.results[2].error.details.errors[0].pointer).toBe('/category');
    expect(await messagesFor(a.event_id)).toHaveLength(1);
    expect(await messagesFor(b.event_id)).toHaveLength(1);
    expect(await messagesFor(stored.event_id)).toHaveLength(1);
  });

  it('413 over the documented count, 422 for an empty batch, 401 without a key', async () => {
    const many = Array.from({ length: 21 }, () => JSON.stringify(sampleEvent())).join('\n');
    const r = await batch(many);
    expect(r.statusCode).toBe(413);
    expect(r.json().error).toMatchObject({ code: 'BATCH_TOO_LARGE', details: { max_events: 20 } });
    expect((await batch('\n\n')).statusCode).toBe(422);
    const ok = Array.from({ length: 20 }, () => JSON.stringify(sampleEvent())).join('\n');
    expect((await batch(ok)).json().created).toBe(20);
    const noKey = await app.inject({ method: 'POST', url: '/api/v1/events/batch', payload: ok });
    expect(noKey.statusCode).toBe(401);
  });
});

describe('Kafka unreachable', () => {
  it('503 with Retry-After, never 201, and no claim left behind', async () => {
    const config = loadConfig({ ...process.env, ...{ LOG_LEVEL: 'silent' } });
    const down = {
      ...s.stores.config,
      kafkaBrokers: ['127.0.0.1:1'],
      ingest: { ...s.stores.config.ingest, produceTimeoutMs: 800, claimProvisionalMs: 1500 },
    };
    expect(config.kafkaBrokers).not.toEqual(down.kafkaBrokers);
    // kafkajs logs every refused connection: silence it for this broker that does not exist.
    const deadKafka = new Kafka({
      clientId: 'ingest-test-down',
      brokers: down.kafkaBrokers,
      connectionTimeout: 500,
      logLevel: logLevel.NOTHING,
    });
    const other = await buildIngestApp({
      config: down,
      log: memoryLogger().log,
      redis: s.redis,
      pg: s.stores.pg,
      kafka: deadKafka,
    });
    try {
      const ev = sampleEvent();
      const r = await other.app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: { 'x-api-key': key },
        payload: JSON.stringify(ev),
      });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.json().error.code).toBe('UNAVAILABLE');
      expect((await other.ingest.claims.state(ev.event_id)).state).toBe('free');
      const b = await other.app.inject({
        method: 'POST',
        url: '/api/v1/events/batch',
        headers: { 'x-api-key': key },
        payload: `${JSON.stringify(sampleEvent())}\n{bad`,
      });
      expect(b.statusCode).toBe(503);
      expect(b.json().results.map((x: { status: number }) => x.status)).toEqual([503, 422]);
      // Once Kafka is reachable (the main app), the same event is accepted.
      expect((await post(ev)).statusCode).toBe(201);
    } finally {
      await other.app.close();
    }
  });
});
