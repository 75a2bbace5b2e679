// The live stream survives a Redis outage: the hub's subscriber reconnects and resubscribes, and
// messages published after Redis is back reach the clients that stayed connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { Redis as IORedis } from 'ioredis';
import { loadConfig, type Redis } from '@watchpost/runtime';
import { startTcpProxy, type TcpProxy } from '@watchpost/testkit';
import { addUser, createApiHarness, login, openSse, type ApiHarness } from '@watchpost/testkit/api';

let h: ApiHarness;
let proxy: TcpProxy;
let viaProxy: Redis;
let direct: Redis;
let base: string;

beforeAll(async () => {
  const r = new URL(loadConfig(process.env).redisUrl);
  proxy = await startTcpProxy(r.hostname, Number(r.port));
  h = await createApiHarness('hub_recovery', {
    env: { SERVICE_STREAM_KEEPALIVE_SECONDS: '1' },
    stores: () => {
      viaProxy = new IORedis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: 1 });
      viaProxy.on('error', () => {});
      return { redis: viaProxy };
    },
  });
  direct = new IORedis(r.toString());
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1/stream/events`;
});

afterAll(async () => {
  proxy?.restore();
  await h?.close();
  viaProxy?.disconnect();
  direct?.disconnect();
  await proxy?.close();
});

describe('live stream across a Redis outage', () => {
  // Runs first: the hub has not subscribed yet, so the first stream meets Redis down.
  it('recovers from a first subscription made while Redis was down', async () => {
    const u = await addUser(h, 'early', 'monitor');
    const token = (await login(h, 'early', u.password)).json().access_token;
    proxy.cut();
    const failed = await openSse(base, { authorization: `Bearer ${token}` });
    // The request fails (no subscription), it does not hang as an open stream that never gets data.
    expect(failed.status).toBeGreaterThanOrEqual(500);
    failed.close();
    proxy.restore();

    // A later stream subscribes anew (the failure was not memoised) and gets what is published.
    const c = await openSse(base, { authorization: `Bearer ${token}` });
    expect(c.status).toBe(200);
    await c.waitFor((f) => f.event === 'ready');
    const channel = h.config.stream.channel;
    const deadline = Date.now() + 10_000;
    let got = false;
    for (let n = 1; !got && Date.now() < deadline; n++) {
      await direct.publish(
        channel,
        JSON.stringify({
          kind: 'events',
          at: new Date().toISOString(),
          total: 1000 + n,
          severity: {},
          daily_reports: 0,
          heartbeats: 0,
        }),
      );
      got = await c
        .waitFor((f) => f.event === 'events' && JSON.parse(f.data).total === 1000 + n, 500)
        .then(() => true)
        .catch(() => false);
    }
    expect(got).toBe(true);
    c.close();
  });

  it('keeps the client connected and delivers what is published once Redis is back', async () => {
    const u = await addUser(h, 'watcher', 'monitor');
    const token = (await login(h, 'watcher', u.password)).json().access_token;
    const c = await openSse(base, { authorization: `Bearer ${token}` });
    await c.waitFor((f) => f.event === 'ready');
    const channel = h.config.stream.channel;
    const msg = (n: number) =>
      JSON.stringify({ kind: 'events', at: new Date().toISOString(), total: n, severity: {}, daily_reports: 0, heartbeats: 0 });
    await direct.publish(channel, msg(1));
    await c.waitFor((f) => f.event === 'events' && JSON.parse(f.data).total === 1);

    proxy.cut();
    await new Promise((r) => setTimeout(r, 1500));
    proxy.restore();
    // Publish until the resubscribed hub forwards one (ioredis reconnects with a short backoff).
    const deadline = Date.now() + 15_000;
    let got = false;
    for (let n = 2; !got && Date.now() < deadline; n++) {
      await direct.publish(channel, msg(n));
      got = await c
        .waitFor((f) => f.event === 'events' && JSON.parse(f.data).total === n, 500)
        .then(() => true)
        .catch(() => false);
    }
    expect(got).toBe(true);
    expect(c.endedAt).toBe(0);
    c.close();
  });
});
