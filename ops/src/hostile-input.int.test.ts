// Hostile but schema-valid events among ordinary ones, through the real ingest, store and correlate
// roles on the real servers (issue: "no valid event can stall a processor"). Every ordinary host must
// be correlated, every hostile event stored (in Postgres in its documented safe form), and no partition stuck.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { queryRows, sql } from '@watchpost/runtime';
import {
  createTestStores,
  eventsGroupLag,
  readAll,
  sampleEvent,
  startRolesApp,
  testConfig,
  waitFor,
  type RolesApp,
  type TestStores,
} from '@watchpost/testkit';
import type { EventV1 } from '@watchpost/schemas';
import { pgSafeKey } from '@watchpost/core';
import { roleStarters } from './role-registry.ts';

const KEY = `wpk_${randomBytes(32).toString('base64url')}`;
let stores: TestStores;
let roles: RolesApp;

beforeAll(async () => {
  stores = await createTestStores(
    testConfig('hostile', { KAFKA_PARTITIONS: '4', SERVICE_BOOTSTRAP_API_KEY: KEY, CORRELATE_BATCH_SIZE: '200' }),
  );
  roles = await startRolesApp(stores.config, ['ingest', 'store', 'correlate'], roleStarters);
}, 120_000);

afterAll(async () => {
  await roles?.close();
  await stores?.drop();
});

function deep(n: number): Record<string, unknown> {
  let x: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 0; i < n; i++) x = { d: x };
  return x;
}

const event = (hostname: string, over: Partial<EventV1> = {}): EventV1 =>
  sampleEvent({
    event_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    host: { hostname, os_family: 'linux' },
    ...over,
  });

describe('hostile input among ordinary events', () => {
  it('correlates every ordinary host and every hostile event (in its safe form), dead-letters nothing, and leaves no partition stuck', async () => {
    const hostile: { name: string; event: EventV1 }[] = [
      { name: 'NUL in title', event: event('hostile-nul', { severity: 'high', title: 'bad\u0000title' }) },
      {
        name: 'lone surrogate in details',
        event: event('hostile-surrogate', { severity: 'critical', details: { user: 'x\ud800y', note: '\udfff' } }),
      },
      { name: '5,000-character hostname', event: event('h'.repeat(5000), { severity: 'high' }) },
      { name: '5,000-character type', event: event('hostile-type', { severity: 'high', type: `t.${'y'.repeat(5000)}` }) },
      { name: '200-deep details', event: event('hostile-deep', { severity: 'high', details: deep(200) }) },
      {
        name: '5,000-key details',
        event: event('hostile-wide', {
          severity: 'high',
          details: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])),
        }),
      },
      { name: 'NUL in hostname', event: event('hostile\u0000host', { type: 'agent.heartbeat', severity: 'info' }) },
    ];
    const ordinaryHosts = Array.from({ length: 24 }, (_, i) => `ordinary-${String(i).padStart(2, '0')}`);
    const ordinary = ordinaryHosts.flatMap((h) => [
      event(h, { type: 'agent.heartbeat', category: 'agent', severity: 'info', title: 'heartbeat' }),
      event(h, { type: 'ssh.login.failed', category: 'auth', severity: 'high', title: 'failed login' }),
    ]);
    // Hostile events first and between the ordinary ones, so each partition meets one early.
    const all = [...hostile.map((h) => h.event), ...ordinary, ...hostile.map((h) => ({ ...h.event, event_id: randomUUID() }))];
    for (const e of all) {
      const r = await roles.app.inject({ method: 'POST', url: '/api/v1/events', headers: { 'x-api-key': KEY }, payload: e });
      expect([r.statusCode, e.host.hostname.slice(0, 40)]).toEqual([201, e.host.hostname.slice(0, 40)]);
    }

    const started = Date.now();
    await waitFor(
      'every ordinary host correlated (heartbeat and a problem)',
      async () =>
        (
          await stores.pg.query<{ n: number }>(
            `SELECT count(DISTINCT h.hostname)::int AS n FROM hosts h JOIN problems p ON p.host = h.hostname
              WHERE h.hostname = ANY($1::text[]) AND h.last_heartbeat IS NOT NULL`,
            [ordinaryHosts],
          )
        ).rows[0]!.n,
      (n) => n === ordinaryHosts.length,
      60_000,
      250,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    await waitFor(
      'correlate lag 0',
      () => eventsGroupLag(stores.config, stores.config.consumerGroups.correlate),
      (n) => n === 0,
      60_000,
    );
    await waitFor(
      'store lag 0',
      () => eventsGroupLag(stores.config, stores.config.consumerGroups.store),
      (n) => n === 0,
      60_000,
    );

    // The store keeps every event as the agent sent it.
    const stored = await queryRows<{ n: string }>(stores.ch, sql`SELECT count(DISTINCT event_id) AS n FROM events`);
    expect(Number(stored[0]!.n)).toBe(all.length);

    // Each hostile event is correlated in its documented safe form (core/src/pg-safe.ts): nothing was dead-lettered.
    const dlq = (await readAll(stores.config, stores.config.topics.deadLetter, 1000, 3000)).map(
      (m) => JSON.parse(m.value) as { reason: string },
    );
    expect(dlq.map((d) => d.reason)).toEqual([]);
    for (const h of hostile) {
      const row = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM hosts WHERE hostname = $1', [
        pgSafeKey(h.event.host.hostname),
      ]);
      expect([h.name, row.rows[0]!.n]).toEqual([h.name, 1]);
    }
    const problems = await stores.pg.query<{ title: string; type: string }>(
      `SELECT title, type FROM problems WHERE host IN ('hostile-nul', 'hostile-type') ORDER BY host`,
    );
    expect(problems.rows.map((r) => r.title)).toContain('bad\ufffdtitle');
    expect(problems.rows.find((r) => r.type.startsWith('t.y'))?.type).toHaveLength(197);
  }, 180_000);
});
