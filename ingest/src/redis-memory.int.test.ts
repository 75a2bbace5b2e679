// The ingest role on a claims Redis of its own (SERVICE_CLAIMS_REDIS_URL): a redis-server with a small
// maxmemory. Filled past SERVICE_REDIS_MEMORY_WARN_RATIO, /health's `claims_redis_memory` check turns
// `down` (status degraded), the gauges show used vs max memory, and one warning is logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Redis as IORedis } from 'ioredis';
import { Clients, metrics, type Logger, type RoleHandle } from '@watchpost/runtime';
import { createTestStores, startRedisServer, testConfig, type OwnRedis, type TestStores } from '@watchpost/testkit';
import { ingestRole } from './index.ts';

let own: OwnRedis;
let stores: TestStores;
let clients: Clients;
let role: RoleHandle;
let fill: IORedis;
const lines: { msg: string; redis?: string }[] = [];

beforeAll(async () => {
  own = await startRedisServer({ maxmemory: '4mb' });
  stores = await createTestStores(
    testConfig('claims_redis', { SERVICE_CLAIMS_REDIS_URL: own.url, SERVICE_REDIS_MEMORY_WARN_RATIO: '0.8' }),
  );
  expect(stores.config.claimsRedisUrl).toBe(own.url);
  clients = new Clients(stores.config);
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(JSON.parse(chunk.toString()) as { msg: string });
        cb();
      },
    }),
  ) as unknown as Logger;
  role = await ingestRole({ config: stores.config, log, clients });
  fill = new IORedis(own.url);
}, 60_000);

afterAll(async () => {
  await role?.close?.();
  fill?.disconnect();
  await clients?.close();
  await stores?.drop();
  await own?.stop();
});

const gaugeOf = async (name: string, redis: string) =>
  (await metrics.getMetricsAsJSON()).find((m) => m.name === name)?.values.find((v) => v.labels.redis === redis)?.value;

describe('claims Redis memory warning', () => {
  it('reports used vs max memory and warns past the ratio', async () => {
    const checks = role.checks!;
    expect(Object.keys(checks).sort()).toEqual(['claims_redis', 'claims_redis_memory', 'kafka', 'main_redis_memory']);
    expect(await checks.claims_redis!()).toBe(true);
    expect(await checks.claims_redis_memory!()).toBe(true);
    expect(await gaugeOf('watchpost_redis_maxmemory_bytes', 'claims')).toBe(4 * 1024 * 1024);
    expect(lines.some((l) => /filling/.test(l.msg))).toBe(false);

    // Fill to about 90 % of maxmemory (noeviction: writes beyond it would fail).
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; ; i++) {
      const info = await fill.info('memory');
      const used = Number(/^used_memory:(\d+)/m.exec(info)![1]);
      if (used > 0.9 * 4 * 1024 * 1024) break;
      await fill.set(`fill:${i}`, chunk);
    }
    expect(await checks.claims_redis_memory!()).toBe(false);
    expect(await checks.main_redis_memory!()).toBe(true);
    const used = (await gaugeOf('watchpost_redis_used_memory_bytes', 'claims'))!;
    expect(used).toBeGreaterThan(0.8 * 4 * 1024 * 1024);
    expect(await gaugeOf('watchpost_redis_memory_ratio', 'claims')).toBeGreaterThan(0.8);
    const warnings = lines.filter((l) => /Redis memory is filling/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.redis).toBe('claims');
    await checks.claims_redis_memory!(); // still over: no second warning
    expect(lines.filter((l) => /Redis memory is filling/.test(l.msg))).toHaveLength(1);

    await fill.flushall();
    expect(await checks.claims_redis_memory!()).toBe(true);
  }, 60_000);
});
