// The events list (total, and which rows each page holds) is the same whether its hours are counted
// from `events` (pending) or from the hourly rollup, for every filter, for ranges that start and end
// inside an hour, and with events stored twice; so are the top hosts and types. Checked against a brute-force answer computed here.
// Real ClickHouse and Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import type { Severity } from '@watchpost/schemas';
import type { EventEnvelope } from '@watchpost/schemas';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { runHourlyRollup } from '@watchpost/testkit/api';
import { fixtureEnvelope, insertEnvelopes, type FixtureEvent } from '@watchpost/testkit/api';
import { eventFacets, listEvents, pageBound, type EventFilters } from './events.ts';
import type { TypeSettings } from './type-settings.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
let s: TestStores;
const base = new Date(Math.floor(Date.now() / HOUR) * HOUR - 30 * MIN);
const hosts: FixtureEvent['host'][] = ['alpha', 'beta', 'gamma'];
const types = ['ssh.login.failed', 'rdg.connection.success', 'rdg.connection.failed', 'rdg.connectionx', 'agent.heartbeat'];
const sevs: Severity[] = ['info', 'warning', 'high', 'critical'];
// 120 events over ~6 hours, spread over hosts, types and severities; distinct occurred_at seconds.
const envs: EventEnvelope[] = Array.from({ length: 120 }, (_, i) =>
  fixtureEnvelope(
    { key: `L${i}`, host: hosts[i % 3]!, type: types[i % 5]!, severity: sevs[(i * 7) % 4]!, ago: i * 3 * MIN + 17_000 },
    base,
  ),
);
const ts: TypeSettings = { overrides: new Map([['agent.heartbeat', 'high']]), hidden: new Set(['rdg.connection.failed']) };

/** What the list must answer, computed from the events themselves. */
function expected(f: EventFilters): EventEnvelope[] {
  return envs
    .filter((e) => {
      const ev = e.event;
      const at = Date.parse(ev.occurred_at);
      const sev = ts.overrides.get(ev.type) ?? ev.severity;
      if (ts.hidden.has(ev.type)) return false;
      if (f.hostname !== undefined && ev.host.hostname !== f.hostname) return false;
      if (f.typePrefix !== undefined && ev.type !== f.typePrefix && !ev.type.startsWith(`${f.typePrefix}.`)) return false;
      if (f.severities && !f.severities.includes(sev)) return false;
      if (f.from && at < f.from.getTime()) return false;
      if (f.toExclusive && at >= f.toExclusive.getTime()) return false;
      return true;
    })
    .sort((a, b) => Date.parse(b.event.occurred_at) - Date.parse(a.event.occurred_at));
}

const filters: [string, EventFilters][] = [
  ['no filter', {}],
  ['hostname', { hostname: 'beta' }],
  ['type prefix', { typePrefix: 'rdg.connection' }],
  ['severity after the override', { severities: ['high', 'critical'] }],
  [
    'range inside hours at both ends',
    { from: new Date(base.getTime() - 4 * HOUR - 7 * MIN), toExclusive: new Date(base.getTime() - HOUR + 11 * MIN) },
  ],
  ['range on whole hours', { from: new Date(base.getTime() - 3.5 * HOUR), toExclusive: new Date(base.getTime() - 0.5 * HOUR) }],
  [
    'range within one hour',
    { from: new Date(base.getTime() - 2 * HOUR - 20 * MIN), toExclusive: new Date(base.getTime() - 2 * HOUR - 2 * MIN) },
  ],
  [
    'everything combined',
    { hostname: 'alpha', severities: ['info', 'warning', 'high'], from: new Date(base.getTime() - 5 * HOUR - 1000) },
  ],
];

async function check(label: string) {
  for (const [name, f] of filters) {
    const want = expected(f).map((e) => e.event.event_id);
    for (const [page, size] of [
      [1, 7],
      [2, 7],
      [3, 11],
      [1, 200],
      [50, 10],
    ] as const) {
      const r = await listEvents(s.ch, s.pg, ts, f, page, size);
      expect({ label, name, page, total: r.total, ids: r.items.map((x) => x.event_id) }).toEqual({
        label,
        name,
        page,
        total: want.length,
        ids: want.slice((page - 1) * size, page * size),
      });
    }
  }
}

/** Top hosts and types (distinct events, most first, ties by value) against the brute-force answer. */
async function checkFacets(label: string) {
  for (const [name, f] of filters) {
    const top = (pick: (e: EventEnvelope) => string) => {
      const n = new Map<string, number>();
      for (const e of expected(f)) n.set(pick(e), (n.get(pick(e)) ?? 0) + 1);
      return [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value, events]) => ({ value, events }));
    };
    const r = await eventFacets(s.ch, ts, f, 10);
    expect({ label, name, hostname: r.hostname.map(({ value, events }) => ({ value, events })), type: r.type }).toEqual({
      label,
      name,
      hostname: top((e) => e.event.host.hostname),
      type: top((e) => e.event.type),
    });
  }
}

beforeAll(async () => {
  s = await createTestStores(testConfig('listrollup'), { kafka: false });
  await insertEnvelopes(s.ch, envs);
  await insertEnvelopes(s.ch, envs.slice(0, 40)); // stored twice (a replay): still counted once
});
afterAll(async () => {
  await s?.drop();
});

describe('events list over the hourly rollup', () => {
  it('answers the same before the rollup (every hour pending) and after it (hours from events_hourly)', async () => {
    await check('pending');
    await checkFacets('pending');
    await new Promise((r) => setTimeout(r, 1100));
    await runHourlyRollup(s.ch, s.config.clickhouseDatabase, { overlapSeconds: 0 });
    const pending = await queryRows<{ n: string }>(
      s.ch,
      sql`SELECT count() AS n FROM events_changed_hours WHERE changed_at >= (SELECT max(watermark) FROM events_hourly_state)`,
    );
    expect(Number(pending[0]!.n)).toBe(0);
    await check('rolled up');
    await checkFacets('rolled up');
  });

  it('pageBound: the start of the newest hours holding n events', () => {
    const byHour = new Map([
      [7200, 5],
      [3600, 4],
      [0, 10],
    ]);
    expect(pageBound(byHour, 5)).toEqual(new Date(7200 * 1000));
    expect(pageBound(byHour, 6)).toEqual(new Date(3600 * 1000));
    expect(pageBound(byHour, 19)).toEqual(new Date(0));
    expect(pageBound(byHour, 20)).toBeUndefined();
  });
});
