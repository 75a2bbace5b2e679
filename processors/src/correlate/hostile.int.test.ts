// Hostile but schema-valid values through the correlate processor and the real Postgres, in one batch
// with ordinary events: every event is applied, each hostile value is stored in its documented safe
// form (core/src/pg-safe.ts), and the batch replays to the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSafeKey } from '@watchpost/core';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { dumpCorrelateTables, envelope } from '@watchpost/testkit/correlate';
import { processBatch, type CorrelateSettings } from './processor.ts';

let stores: TestStores;
const settings: CorrelateSettings = { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' };
const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

beforeAll(async () => {
  stores = await createTestStores(testConfig('correlate_hostile'), { kafka: false });
});
afterAll(async () => stores?.drop());

function deep(n: number): Record<string, unknown> {
  let x: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 0; i < n; i++) x = { d: x };
  return x;
}
const wide = (n: number, v: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i === 0 ? v : i]));

describe('hostile values in the correlate path', () => {
  it('are stored in their safe form, next to ordinary events of the same batch', async () => {
    const longHost = 'h'.repeat(5000);
    const longType = `t.${'y'.repeat(5000)}`;
    const batch = [
      envelope({ host: 'ordinary-1', type: 'agent.heartbeat', severity: 'info', receivedAt: at(0) }),
      envelope({ host: 'nul', severity: 'high', title: 'bad\u0000title', receivedAt: at(1) }),
      envelope({ host: 'sur\ud800rogate', severity: 'high', title: 'x\udfffy', receivedAt: at(2) }),
      envelope({ host: longHost, severity: 'high', receivedAt: at(3) }),
      envelope({ host: 'long-type', type: longType, severity: 'high', receivedAt: at(4) }),
      envelope({ host: 'rule', severity: 'high', details: { rule: 'r\u0000\ud800' }, receivedAt: at(5) }),
      envelope({ host: 'long-rule', severity: 'high', details: { rule: 'r'.repeat(3000) }, receivedAt: at(6) }),
      envelope({
        host: 'gw',
        type: 'rdg.connection.success',
        details: { event_code: 302, session_id: 's\u0000\udc00' },
        occurredAt: at(0),
        receivedAt: at(7),
      }),
      envelope({
        host: 'gw',
        type: 'rdg.connection.disconnected',
        details: { event_code: 303, session_id: 's\u0000\udc00' },
        occurredAt: at(2000),
        receivedAt: at(8),
      }),
      envelope({
        host: 'inv-deep',
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: deep(200), software: { 'k\u0000': 'v\ud800' } },
        receivedAt: at(9),
      }),
      envelope({
        host: 'inv-wide',
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: wide(5000, 0) },
        receivedAt: at(10),
      }),
      envelope({
        host: 'inv-wide',
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: wide(5000, 1) },
        receivedAt: at(11),
      }),
      envelope({ host: 'ordinary-2', severity: 'warning', receivedAt: at(12) }),
    ];
    const out = await processBatch(stores.pg, batch, settings, () => new Date());
    expect(out).toMatchObject({ applied: batch.length, skipped: 0 });

    const hosts = (await stores.pg.query<{ hostname: string }>('SELECT hostname FROM hosts ORDER BY hostname')).rows.map(
      (r) => r.hostname,
    );
    expect(hosts).toEqual(
      [
        'gw',
        longHost,
        'inv-deep',
        'inv-wide',
        'long-rule',
        'long-type',
        'nul',
        'ordinary-1',
        'ordinary-2',
        'rule',
        'sur\ud800rogate',
      ]
        .map(pgSafeKey)
        .sort(),
    );
    expect(hosts).toContain('sur\ufffdrogate');
    const problems = (
      await stores.pg.query<{ host: string; type: string; rule: string; title: string; fingerprint: string }>(
        'SELECT host, type, rule, title, fingerprint FROM problems',
      )
    ).rows;
    const by = (h: string) => problems.find((p) => p.host === pgSafeKey(h));
    expect(by('nul')?.title).toBe('bad\ufffdtitle');
    expect(by('sur\ud800rogate')?.title).toBe('x\ufffdy');
    expect(by(longHost)?.host.length).toBeLessThanOrEqual(200);
    expect(by('long-type')?.type).toBe(pgSafeKey(longType));
    expect(by('rule')?.rule).toBe('r\ufffd\ufffd');
    expect(by('long-rule')?.rule).toBe('severity');
    expect(by('ordinary-2')).toBeDefined();
    const flap = (await stores.pg.query('SELECT session_id FROM rdg_flap_events ORDER BY role')).rows;
    expect(flap).toEqual([{ session_id: 's\ufffd\ufffd' }, { session_id: 's\ufffd\ufffd' }]);

    const inv = (
      await stores.pg.query<{ hostname: string; leaf: string | null; keys: number; sw: unknown }>(
        `SELECT hostname, jsonb_path_query_first(inventory_hardware, 'strict $.**.leaf') #>> '{}' AS leaf,
                (SELECT count(*)::int FROM jsonb_object_keys(CASE WHEN jsonb_typeof(inventory_hardware) = 'object'
                   THEN inventory_hardware ELSE '{}' END)) AS keys, inventory_software AS sw
           FROM hosts WHERE hostname LIKE 'inv-%' ORDER BY hostname`,
      )
    ).rows;
    expect(inv).toEqual([
      { hostname: 'inv-deep', leaf: 'bottom', keys: 1, sw: { 'k\ufffd': 'v\ufffd' } },
      { hostname: 'inv-wide', leaf: null, keys: 5000, sw: null },
    ]);
    const change = problems.find((p) => p.host === 'inv-wide');
    expect(change?.type).toBe('agent.inventory');

    // The same batch again (a redelivery) leaves every row as it was.
    const before = await dumpCorrelateTables(stores.pg);
    await processBatch(stores.pg, batch, settings, () => new Date());
    expect(await dumpCorrelateTables(stores.pg)).toEqual(before);
  });
});
