// The live stream end to end on the real servers: SSE auth, keep-alive, 1,000 concurrent clients on
// loopback fed by one Redis subscriber, and the `stream` processor turning Kafka messages and host
// changes into counter updates that reach a browser-like client within 1 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { Clients, createLogger, type RoleHandle } from '@watchpost/runtime';
import { migrateKafka } from '@watchpost/core/migrate';
import { encodeEnvelope } from '@watchpost/schemas';
import { streamRole } from '@watchpost/testkit/api';
import { makeEnvelope } from '@watchpost/testkit';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { openSse, type SseClient } from '@watchpost/testkit/api';

let h: ApiHarness;
let base: string;
let token: string;

beforeAll(async () => {
  // One user holds the 1,000 streams of the fan-out test: the per-user cap (stream-caps.int.test.ts) is raised.
  h = await createApiHarness('stream', {
    env: {
      SERVICE_STREAM_KEEPALIVE_SECONDS: '1',
      STREAM_BATCH_MS: '50',
      SERVICE_STREAM_MAX_PER_USER: '2000',
      // ssh-monitor hosts go stale after 2 × 10 + 5 minutes here (24 h by default), so a day's silence is stale.
      SERVICE_HEARTBEAT_INTERVAL_LINUX_MINUTES: '10',
    },
  });
  await addUser(h, 'mon', 'monitor');
  token = (await login(h, 'mon', 'pw-mon-secret')).json().access_token;
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1/stream/events`;
});

afterAll(async () => {
  await h?.close();
});

describe('GET /stream/events', () => {
  it('authenticates with ?access_token= or the header, refuses without', async () => {
    const anon = await openSse(base);
    expect(anon.status).toBe(401);
    anon.close();
    const bad = await openSse(`${base}?access_token=nope`);
    expect(bad.status).toBe(401);
    bad.close();
    const q = await openSse(`${base}?access_token=${token}`);
    expect(q.status).toBe(200);
    expect(JSON.parse((await q.waitFor((f) => f.event === 'ready')).data)).toEqual({ keepalive_seconds: 1 });
    q.close();
    const hdr = await openSse(base, { authorization: `Bearer ${token}` });
    expect(hdr.status).toBe(200);
    hdr.close();
  });

  it('closes a stream at logout, at deactivation and when its token expires', async () => {
    const waitEnded = async (c: SseClient, ms: number) => {
      const deadline = Date.now() + ms;
      while (!c.endedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return c.endedAt > 0;
    };
    const u = await addUser(h, 'streamer', 'monitor');
    const t = (await login(h, 'streamer', u.password)).json();
    const a = await openSse(base, { authorization: `Bearer ${t.access_token}` });
    await a.waitFor((f) => f.event === 'ready');
    await h.app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: t.refresh_token } });
    expect(await waitEnded(a, 8000)).toBe(true);

    const t2 = (await login(h, 'streamer', u.password)).json();
    const b = await openSse(base, { authorization: `Bearer ${t2.access_token}` });
    await b.waitFor((f) => f.event === 'ready');
    await h.deps.pg.query('UPDATE users SET active = false WHERE id = $1', [u.id]);
    expect(await waitEnded(b, 8000)).toBe(true);

    const short = await createApiHarness('stream_expiry', { auth: { accessTtlSeconds: 2 } });
    try {
      await short.app.listen({ host: '127.0.0.1', port: 0 });
      const v = await addUser(short, 'brief', 'monitor');
      const tv = (await login(short, 'brief', v.password)).json();
      const c = await openSse(`http://127.0.0.1:${(short.app.server.address() as AddressInfo).port}/api/v1/stream/events`, {
        authorization: `Bearer ${tv.access_token}`,
      });
      await c.waitFor((f) => f.event === 'ready');
      const opened = Date.now();
      expect(await waitEnded(c, 6000)).toBe(true);
      expect(c.endedAt - opened).toBeLessThan(4000);
    } finally {
      await short.close();
    }
  });

  it('sends a keep-alive comment every interval', async () => {
    const c = await openSse(`${base}?access_token=${token}`);
    await c.waitFor((f) => f.event === 'ready');
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 2300));
    c.close();
    const alive = c.comments.filter((x) => x.text === 'keep-alive' && x.at >= t0);
    expect(alive.length).toBeGreaterThanOrEqual(2);
  });

  it('fans one message out to 1,000 concurrent clients within 1 s', async () => {
    const clients: SseClient[] = [];
    for (let i = 0; i < 1000; i += 100) {
      clients.push(...(await Promise.all(Array.from({ length: 100 }, () => openSse(`${base}?access_token=${token}`)))));
    }
    expect(clients.every((c) => c.status === 200)).toBe(true);
    await Promise.all(clients.map((c) => c.waitFor((f) => f.event === 'ready', 20_000)));
    const sent = Date.now();
    const message = {
      kind: 'events',
      at: new Date().toISOString(),
      total: 3,
      severity: { info: 1, warning: 1, high: 1, critical: 0 },
      daily_reports: 0,
      heartbeats: 0,
    };
    await h.redis.publish(h.config.stream.channel, JSON.stringify(message));
    const got = await Promise.all(clients.map((c) => c.waitFor((f) => f.event === 'events', 5000)));
    const slowest = Math.max(...got.map((f) => f.at)) - sent;
    expect(got.every((f) => JSON.parse(f.data).total === 3)).toBe(true);
    expect(slowest).toBeLessThan(1000);
    // Not a live message: ignored.
    await h.redis.publish(h.config.stream.channel, 'not json');
    for (const c of clients) c.close();
  }, 90_000);
});

describe('stream processor -> Redis -> SSE', () => {
  let role: RoleHandle;
  let clients: Clients;

  beforeAll(async () => {
    await migrateKafka(h.config);
    clients = new Clients(h.config);
    role = await streamRole({ config: h.config, log: createLogger('silent', 'stream-test'), clients });
  });
  afterAll(async () => {
    await role?.close?.();
    await clients?.close();
  });

  it('pushes event counters, new problems and host status changes', async () => {
    const c = await openSse(`${base}?access_token=${token}`);
    await c.waitFor((f) => f.event === 'ready');
    const producer = clients.kafka.producer();
    await producer.connect();
    try {
      // The new consumer group starts at the latest offset once it has joined: warm up until one arrives.
      const warm = Date.now() + 30_000;
      for (;;) {
        await producer.send({
          topic: h.config.topics.events,
          messages: [{ key: 'warm', value: encodeEnvelope(makeEnvelope({ severity: 'info' })) }],
        });
        try {
          await c.waitFor((f) => f.event === 'events', 500);
          break;
        } catch (err) {
          if (Date.now() > warm) throw err;
        }
      }
      const from = c.frames.length;
      const sent = Date.now();
      await producer.send({
        topic: h.config.topics.events,
        messages: [
          { key: 'h1', value: encodeEnvelope(makeEnvelope({ type: 'ssh.login.failed', severity: 'critical' })) },
          { key: 'h1', value: encodeEnvelope(makeEnvelope({ type: 'ssh.login.failed', severity: 'critical' })) },
        ],
      });
      let critical = 0;
      let arrived = 0;
      while (critical < 2) {
        const f = await c.waitFor((x) => x.event === 'events' && x.at > arrived, 3000, from);
        arrived = f.at;
        critical += JSON.parse(f.data).severity.critical;
      }
      expect(arrived - sent).toBeLessThan(1000);

      const problem = {
        id: '8d7c1f1e-0000-4000-8000-000000000001',
        host: 'web-01',
        type: 'ssh.login.failed',
        title: 'x',
        severity: 'high',
        rdg_flap: false,
        created_at: new Date().toISOString(),
      };
      const pm = { message_id: `${problem.id}:opened`, kind: 'problem.opened', problem };
      // Twice, as the outbox relay may: one live message.
      const pFrom = c.frames.length;
      for (let i = 0; i < 10; i++) {
        await producer.send({ topic: h.config.topics.problems, messages: [{ key: problem.id, value: JSON.stringify(pm) }] });
        try {
          await c.waitFor((f) => f.event === 'problems', 1000, pFrom);
          break;
        } catch {
          // the problems consumer may still be joining its group
        }
      }
      const pf = await c.waitFor((f) => f.event === 'problems', 1000, pFrom);
      expect(JSON.parse(pf.data)).toMatchObject({
        kind: 'problems',
        action: 'opened',
        problem: { id: problem.id, severity: 'high' },
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(c.frames.slice(pFrom).filter((f) => f.event === 'problems')).toHaveLength(1);

      await h.stores.pg.query(
        `INSERT INTO hosts (hostname, os_family, product, product_version, first_seen, last_seen, last_heartbeat)
         VALUES ('live-01', 'linux', 'ssh-monitor', '1.0', now(), now(), now())`,
      );
      const hf = await c.waitFor((f) => f.event === 'hosts' && JSON.parse(f.data).hostname === 'live-01', 3000);
      expect(JSON.parse(hf.data)).toMatchObject({ status: 'online', previous: null, counts: { total: 1, online: 1, stale: 0 } });
      await h.stores.pg.query(
        `UPDATE hosts SET last_heartbeat = now() - interval '1 day', first_seen = now() - interval '1 day' WHERE hostname = 'live-01'`,
      );
      const sf = await c.waitFor((f) => f.event === 'hosts' && JSON.parse(f.data).status === 'stale', 3000);
      expect(JSON.parse(sf.data)).toMatchObject({
        hostname: 'live-01',
        previous: 'online',
        counts: { total: 1, online: 0, stale: 1 },
      });
    } finally {
      await producer.disconnect();
      c.close();
    }
  }, 90_000);
});
