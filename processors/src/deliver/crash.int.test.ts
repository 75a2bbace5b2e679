// kill -9 of the deliver role mid-delivery: every notification arrives, and none that was recorded as
// sent arrives twice. Only a delivery in flight at the kill (the receiver got it, the row was not yet
// `sent`) may come again, with the same delivery id header for the receiver to drop the repeat.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, type Config } from '@watchpost/runtime';
import {
  closeDeliveryQueues,
  createDeliveryQueues,
  decide,
  enqueueDeliveries,
  recordDecisions,
  type DecisionInput,
} from '@watchpost/core';
import { Clients } from '@watchpost/runtime';
import { createTestStores, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import { startHttpReceiver, type HttpReceiver } from '@watchpost/testkit/notify';

const N = 60;
let stores: TestStores;
let rx: HttpReceiver;
const children = new Set<ChildProcess>();
let env: Record<string, string>;

beforeAll(async () => {
  rx = await startHttpReceiver();
  rx.delayMs = 150; // deliveries stay in flight long enough to be cut
  env = {
    NOTIFY_WEBHOOK_URL: `${rx.url}/hook`,
    NOTIFY_WEBHOOK_ALLOW: '127.0.0.1',
    NOTIFY_CHANNELS: 'webhook',
    NOTIFY_LOCK_MS: '2000',
    NOTIFY_DELIVERY_CONCURRENCY: '4',
    NOTIFY_BACKOFF_MS: '100',
  };
  stores = await createTestStores(testConfig('deliver_crash', env), { kafka: false });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await rx?.close();
  await stores?.drop();
});

function startDeliver(config: Config): ChildProcess {
  const child = spawn(join(repoRoot, 'node_modules/.bin/node'), ['ops/src/start.ts', 'deliver'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: config.databaseUrl,
      CLICKHOUSE_DATABASE: config.clickhouseDatabase,
      KAFKA_TOPIC_PREFIX: config.topicPrefix,
      BULLMQ_PREFIX: config.queuePrefix,
      REDIS_KEY_PREFIX: config.redisKeyPrefix,
      SERVICE_STATE_DIR: config.stateDir,
      PORT: '0',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

const states = async () =>
  new Map(
    (await stores.pg.query<{ id: string; state: string }>('SELECT id, state FROM notification_deliveries')).rows.map((r) => [
      r.id,
      r.state,
    ]),
  );

describe('deliver role under kill -9', () => {
  it('every delivery arrives; none recorded as sent arrives twice', async () => {
    const config = stores.config;
    const targets = {
      chat: { enabled: true, destinations: [] },
      webhook: { enabled: true, destinations: [{ id: 'default' }] },
      email: { enabled: false, recipients: [] },
      push: { enabled: true, devices: 0 },
    };
    const items: DecisionInput[] = Array.from({ length: N }, (_, i) => ({
      subjectKey: `lockout:user${i}:198.51.100.1:t`,
      subjectKind: 'login_lockout',
      subjectId: `user${i}`,
      // routed as a report (policy channels): the webhook, whose receiver counts arrivals by delivery id
      decision: decide({ kind: 'daily_report', recipients: [] }, { minSeverity: 'high', channels: ['webhook'] }, targets, {
        overrides: new Map(),
        hidden: new Set(),
      }),
    }));
    const clients = new Clients(config);
    const conn = clients.bullmqConnection();
    const queues = createDeliveryQueues(config, conn);
    const queued = await recordDecisions(stores.pg, items);
    expect(queued).toHaveLength(N);
    await enqueueDeliveries(queues, config.notify, queued, (k) => ({
      kind: 'login_lockout',
      username: k,
      address: '198.51.100.1',
      at: 't',
    }));
    await closeDeliveryQueues(queues);
    await conn.quit();
    await clients.close();

    const first = startDeliver(config);
    await waitFor(
      'some deliveries',
      async () => rx.requests.length,
      (n) => n >= 10,
      30_000,
      20,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const sentAtKill = new Set([...(await states())].filter(([, s]) => s === 'sent').map(([id]) => id));
    expect(sentAtKill.size).toBeGreaterThan(0);
    expect(sentAtKill.size).toBeLessThan(N);

    startDeliver(config);
    await waitFor('all sent', states, (m) => m.size === N && [...m.values()].every((s) => s === 'sent'), 60_000, 200);

    const arrivals = new Map<string, number>();
    for (const r of rx.requests) {
      const id = r.headers['x-watchpost-delivery'] as string;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    }
    expect(arrivals.size).toBe(N);
    for (const id of sentAtKill) expect(arrivals.get(id), id).toBe(1);
    const repeats = [...arrivals].filter(([, n]) => n > 1).map(([id]) => id);
    // At most the deliveries in flight at the kill (concurrency 4) came again.
    expect(repeats.length).toBeLessThanOrEqual(4);
    for (const id of repeats) expect(sentAtKill.has(id)).toBe(false);
  });
});
