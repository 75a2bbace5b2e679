// The dashboard's event figures stay exact under the store's at-least-once delivery: a batch inserted
// twice (what a crash between insert and offset commit replays) counts once, before the hourly rollup
// ran (pending hours read from `events`) and after (rolled-up hours read from `events_hourly`), and a
// late re-insert into an hour already rolled up is corrected by the next rollup. Real ClickHouse and
// Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { runHourlyRollup } from '@watchpost/testkit/api';
import { fixtureEnvelope, insertEnvelopes, type FixtureEvent } from '@watchpost/testkit/api';
import { dashboardSummary } from './dashboard.ts';
import { NO_TYPE_SETTINGS } from './type-settings.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
let s: TestStores;
// Half past an hour: the events' few-minute offsets below never cross an hour boundary, whatever the
// time the test runs (which hours a batch touches is what these tests count).
const base = new Date(Math.floor(Date.now() / HOUR) * HOUR - 30 * MIN);

const ev = (key: string, host: FixtureEvent['host'], type: string, severity: FixtureEvent['severity'], ago: number) =>
  fixtureEnvelope({ key, host, type, severity, ago }, base);
// One batch over three hours: 3 h ago, 2 h ago, now-ish.
const batch = [
  ev('A1', 'alpha', 'ssh.login.failed', 'warning', 3 * HOUR),
  ev('A2', 'alpha', 'ssh.login.failed', 'warning', 3 * HOUR + MIN),
  ev('A3', 'beta', 'agent.heartbeat', 'info', 2 * HOUR),
  ev('A4', 'gamma', 'privilege.sudo.command', 'high', 2 * HOUR + 5 * MIN),
  ev('A5', 'beta', 'agent.heartbeat', 'info', 10_000),
];

async function summary() {
  const r = await dashboardSummary(s.ch, s.pg, NO_TYPE_SETTINGS, { now: new Date(base.getTime() + 1000), staleMinutes: 60 });
  return {
    events: r.events_24h,
    severity: r.severity,
    hosts: r.top_hosts.map((h) => [h.hostname, h.events]),
    heartbeatHosts: r.heartbeats.hosts_24h,
    heartbeats: r.heartbeats.events_24h,
    hours: r.events_by_hour.reduce((a, x) => a + x.events, 0),
  };
}

/** Hours the dashboard reads from `events` (logged at or after the rollup watermark). */
async function pendingHours(): Promise<number> {
  const r = await queryRows<{ n: string }>(
    s.ch,
    sql`SELECT uniqExact(hour) AS n FROM events_changed_hours WHERE changed_at >= (SELECT max(watermark) FROM events_hourly_state)`,
  );
  return Number(r[0]!.n);
}

/** The rollup table as readers see it (FINAL: the latest recount of every key). */
async function rolledUp(): Promise<Record<string, number>> {
  const rows = await queryRows<{ hostname: string; type: string; n: string }>(
    s.ch,
    sql`SELECT hostname, type, toString(sum(events)) AS n FROM events_hourly FINAL GROUP BY hostname, type`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.hostname} ${r.type}`, Number(r.n)]));
}

/** Rolls up with no overlap once the inserts' second has passed, so every hour is served rolled up. */
async function rollupAll() {
  await new Promise((r) => setTimeout(r, 1100));
  const r = await runHourlyRollup(s.ch, s.config.clickhouseDatabase, { overlapSeconds: 0 });
  expect(await pendingHours()).toBe(0);
  return r;
}

beforeAll(async () => {
  s = await createTestStores(testConfig('dashrollup'), { kafka: false });
});
afterAll(async () => {
  await s?.drop();
});

describe('dashboard over the exact hourly rollup', () => {
  const expected = {
    events: 5,
    severity: { info: 2, warning: 2, high: 1, critical: 0 },
    hosts: [
      ['alpha', 2],
      ['beta', 2],
      ['gamma', 1],
    ],
    heartbeatHosts: 1,
    heartbeats: 2,
    hours: 5,
  };

  it('a batch inserted twice counts once before and after the rollup', async () => {
    await insertEnvelopes(s.ch, batch);
    await insertEnvelopes(s.ch, batch); // the crash replay
    const raw = await queryRows<{ n: string }>(s.ch, sql`SELECT count() AS n FROM events`);
    expect(Number(raw[0]!.n)).toBe(10);
    expect(await pendingHours()).toBeGreaterThanOrEqual(3);
    expect(await summary()).toEqual(expected); // pending hours, counted from `events`

    const r = await rollupAll();
    expect(r.hours).toBeGreaterThanOrEqual(3);
    expect(await rolledUp()).toEqual({
      'alpha ssh.login.failed': 2,
      'beta agent.heartbeat': 2,
      'gamma privilege.sudo.command': 1,
    });
    expect(await summary()).toEqual(expected); // every hour from `events_hourly`
  });

  it('a late re-insert into a rolled-up hour is exact at once and corrected by the next rollup', async () => {
    const late = ev('A6', 'gamma', 'ssh.login.failed', 'critical', 3 * HOUR + 2 * MIN);
    await insertEnvelopes(s.ch, [batch[0]!, batch[3]!, late]); // a replay plus one new event, 3 h and 2 h ago
    const after = {
      ...expected,
      events: 6,
      severity: { ...expected.severity, critical: 1 },
      hosts: [
        ['alpha', 2],
        ['beta', 2],
        ['gamma', 2],
      ],
      hours: 6,
    };
    expect(await pendingHours()).toBe(2);
    expect(await summary()).toEqual(after); // the two touched hours come from `events`
    expect((await rolledUp())['gamma ssh.login.failed']).toBeUndefined(); // not rolled up yet

    const r = await rollupAll();
    expect(r.hours).toBe(2); // only the hours logged since the last run
    expect(await rolledUp()).toEqual({
      'alpha ssh.login.failed': 2,
      'beta agent.heartbeat': 2,
      'gamma privilege.sudo.command': 1,
      'gamma ssh.login.failed': 1,
    });
    expect(await summary()).toEqual(after);
    // A run with nothing new recomputes nothing and changes nothing.
    expect((await rollupAll()).hours).toBe(0);
    expect(await summary()).toEqual(after);
  });
});
