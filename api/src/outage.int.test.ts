// Outages and out-of-range values are answered 503 (with Retry-After) and 400/404, never 500 or a hang:
// the API's stores behind TCP proxies that the test cuts, on the real servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { createClickhouse, createPostgres, loadConfig, type Pool, type Redis } from '@watchpost/runtime';
import { startTcpProxy, type TcpProxy } from '@watchpost/testkit';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import type { ClickHouseClient } from '@watchpost/runtime';

let h: ApiHarness;
let token: string;
const proxies: Record<'pg' | 'redis' | 'ch', TcpProxy> = {} as never;
let pg: Pool;
let redis: Redis;
let ch: ClickHouseClient;

beforeAll(async () => {
  const base = loadConfig(process.env);
  const pgUrl = new URL(base.databaseUrl);
  const rUrl = new URL(base.redisUrl);
  const cUrl = new URL(base.clickhouseUrl);
  proxies.pg = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port));
  proxies.redis = await startTcpProxy(rUrl.hostname, Number(rUrl.port));
  proxies.ch = await startTcpProxy(cUrl.hostname, Number(cUrl.port));
  // The test's own databases, reached through the proxies.
  h = await createApiHarness('outage', {
    stores: (config) => {
      const viaPg = new URL(config.databaseUrl);
      viaPg.port = String(proxies.pg.port);
      pg = createPostgres(viaPg.toString(), 5);
      // A bounded command time, as the service's own Redis client has (REDIS timeouts in the README).
      redis = new IORedis(`redis://127.0.0.1:${proxies.redis.port}`, { commandTimeout: 2000, maxRetriesPerRequest: 1 });
      redis.on('error', () => {});
      ch = createClickhouse(`http://127.0.0.1:${proxies.ch.port}`, config.clickhouseDatabase);
      return { pg, redis, clickhouse: ch };
    },
  });
  await addUser(h, 'oncall', 'admin');
  token = (await login(h, 'oncall', 'pw-oncall-secret')).json().access_token;
}, 120_000);

afterAll(async () => {
  for (const p of Object.values(proxies)) p.restore();
  await h?.close();
  await pg?.end().catch(() => {});
  redis?.disconnect();
  await ch?.close();
  for (const p of Object.values(proxies)) await p.close();
});

const get = (url: string) => h.app.inject({ url: `/api/v1${url}`, headers: { authorization: `Bearer ${token}` } });

describe('outages', () => {
  it('Postgres away: 503 with Retry-After within a bounded time, then normal again', async () => {
    proxies.pg.cut();
    const t0 = Date.now();
    const r = await get('/hosts');
    expect([r.statusCode, r.json().error.code, r.headers['retry-after']]).toEqual([503, 'UNAVAILABLE', '5']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    proxies.pg.restore();
    expect((await get('/hosts')).statusCode).toBe(200);
  });

  it('ClickHouse away: 503 with Retry-After, then normal again', async () => {
    proxies.ch.cut();
    const r = await get('/events');
    expect([r.statusCode, r.json().error.code]).toEqual([503, 'UNAVAILABLE']);
    expect(r.headers['retry-after']).toBe('5');
    proxies.ch.restore();
    expect((await get('/events')).statusCode).toBe(200);
  });

  it('Redis away: a login is answered 503, not 500', async () => {
    proxies.redis.cut();
    const t0 = Date.now();
    const r = await login(h, 'oncall', 'pw-oncall-secret');
    expect([r.statusCode, r.json().error.code]).toEqual([503, 'UNAVAILABLE']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    proxies.redis.restore();
    await new Promise((res) => setTimeout(res, 500));
    expect((await login(h, 'oncall', 'pw-oncall-secret')).statusCode).toBe(200);
  });
});

describe('out-of-range values', () => {
  it.each([
    ['/hosts/99999999999999999999', 400],
    ['/audit?before_id=99999999999999999999', 400],
    ['/hosts/1e3', 404],
    ['/problems/00000000-0000-0000-0000-000000000000', 404],
    ['/problems/not-a-uuid', 400],
    ['/events?from=99999-01-01T00:00:00Z', 400],
  ])('%s -> %i', async (url, status) => {
    expect((await get(url)).statusCode).toBe(status);
  });
});

describe('security headers', () => {
  it('every API answer carries them, errors included', async () => {
    for (const r of [await get('/hosts'), await h.app.inject({ url: '/api/v1/nope' }), await get('/problems/nope')]) {
      expect([r.statusCode, r.headers['x-content-type-options']]).toEqual([r.statusCode, 'nosniff']);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toContain("default-src 'none'");
      expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(r.headers['strict-transport-security']).toContain('max-age=31536000');
      expect(r.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });
});
