// The dashboard's window is exact: "last 24 hours" is [now - 24 h, now] to the second, and every figure
// equals the events list over the same from/to, with events placed just inside and just outside the
// window's edges, before the hourly rollup ran (every hour read from `events`) and after it (whole hours
// from `events_hourly`, the partial edge hours from `events`). Real ClickHouse 18.16 and Postgres through
// the real app; the same queries on a current engine (chDB).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { applyClickhouseMigrations } from '@watchpost/core/migrate';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { addUser, createApiHarness, fixtureEnvelope, insertEnvelopes, login, runHourlyRollup } from '@watchpost/testkit/api';
import type { ApiHarness, FixtureEvent } from '@watchpost/testkit/api';
import { dashboardSummary, summaryWindow } from '../queries/dashboard.ts';
import { listEvents } from '../queries/events.ts';
import { pendingHours } from '../queries/hourly.ts';
import { NO_TYPE_SETTINGS } from '../queries/type-settings.ts';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
let h: ApiHarness;
let token: string;
// A whole second (the stored precision); the events are placed relative to it.
const base = new Date(Math.floor(Date.now() / SEC) * SEC);

const EVENTS: FixtureEvent[] = [
  { key: 'OUT1', host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 24 * HOUR + 30 * MIN },
  { key: 'OUT2', host: 'beta', type: 'rdp.login.success', severity: 'high', ago: 24 * HOUR + SEC },
  { key: 'EDGE', host: 'alpha', type: 'ssh.login.failed', severity: 'critical', ago: 24 * HOUR },
  { key: 'IN1', host: 'beta', type: 'ssh.login.failed', severity: 'high', ago: 23 * HOUR + 59 * MIN },
  { key: 'IN2', host: 'gamma', type: 'agent.heartbeat', severity: 'info', ago: 20 * HOUR },
  { key: 'IN3', host: 'alpha', type: 'privilege.sudo.command', severity: 'high', ago: 13 * HOUR + 17 * MIN },
  { key: 'IN4', host: 'beta', type: 'agent.heartbeat', severity: 'info', ago: 2 * HOUR },
  { key: 'IN5', host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 10 * MIN },
  { key: 'NOW', host: 'gamma', type: 'ssh.login.failed', severity: 'critical', ago: 0 },
  { key: 'FUTURE', host: 'gamma', type: 'ssh.login.failed', severity: 'warning', ago: -2 * SEC },
];
const envelopes = EVENTS.map((e) => fixtureEnvelope(e, base));
const at = (e: FixtureEvent) => base.getTime() - e.ago;

async function get(path: string) {
  const r = await h.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` } });
  return { status: r.statusCode, body: r.json() };
}

interface Summary {
  window: { from: string; to: string; hours: number };
  events_24h: number;
  severity: Record<string, number>;
  events_by_hour: { hour: string; events: number }[];
  top_hosts: { hostname: string; events: number }[];
  top_event_types: { type: string; events: number }[];
  heartbeats: { events_24h: number; hosts_24h: number };
  recent_events: { event_id: string }[];
}

/** The summary of ?from&to and the events list's totals over the same from/to agree on every figure. */
async function expectSameAsList(from: string, to: string, expectedTotal: number) {
  const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  const s = await get(`/dashboards/summary?${q}`);
  expect(s.status).toBe(200);
  const sum = s.body as Summary;
  const total = async (extra = '') => (await get(`/events?${q}${extra}`)).body.total as number;
  expect({ from, to, n: sum.events_24h }).toEqual({ from, to, n: expectedTotal });
  expect(await total()).toBe(expectedTotal);
  for (const sev of ['info', 'warning', 'high', 'critical'])
    expect([sev, sum.severity[sev]]).toEqual([sev, await total(`&severity=${sev}`)]);
  for (const host of sum.top_hosts)
    expect([host.hostname, host.events]).toEqual([host.hostname, await total(`&hostname=${host.hostname}`)]);
  for (const t of sum.top_event_types) expect([t.type, t.events]).toEqual([t.type, await total(`&type=${t.type}`)]);
  expect(sum.heartbeats.events_24h).toBe(await total('&type=agent.heartbeat'));
  // Each hour bar is the events list over that hour cut to the window.
  const f = Date.parse(sum.window.from);
  const t = Date.parse(sum.window.to);
  for (const b of sum.events_by_hour) {
    const bf = Math.max(Date.parse(b.hour), f);
    const bt = Math.min(Date.parse(b.hour) + HOUR, t) - SEC; // the list's `to` is inclusive to the second
    const n = (await get(`/events?from=${new Date(bf).toISOString()}&to=${new Date(bt).toISOString()}`)).body.total;
    expect([b.hour, b.events]).toEqual([b.hour, n]);
  }
  return sum;
}

beforeAll(async () => {
  h = await createApiHarness('dashwindow');
  await addUser(h, 'mon', 'monitor');
  token = (await login(h, 'mon', 'pw-mon-secret')).json().access_token;
  await insertEnvelopes(h.stores.ch, envelopes);
});
afterAll(async () => {
  await h?.close();
});

const last24 = () => {
  const from = base.getTime() - 24 * HOUR;
  return EVENTS.filter((e) => at(e) >= from && at(e) <= base.getTime());
};

describe('dashboard summary window', () => {
  it('the default window is exactly the last 24 hours to the second', () => {
    const w = summaryWindow(new Date(base.getTime() + 999));
    expect(w.from.getTime()).toBe(base.getTime() - 24 * HOUR);
    expect(w.toExclusive.getTime()).toBe(base.getTime() + SEC);
    // 24 h 30 min and 24 h + 1 s ago do not count; exactly 24 h and 23 h 59 min ago do; so does now.
    expect(last24().map((e) => e.key)).toEqual(['EDGE', 'IN1', 'IN2', 'IN3', 'IN4', 'IN5', 'NOW']);
  });

  for (const phase of ['before the rollup (every hour from events)', 'after the rollup (whole hours from events_hourly)']) {
    it(`equals the events list at the edges, ${phase}`, async () => {
      if (phase.startsWith('after')) {
        await new Promise((r) => setTimeout(r, 1100));
        const r = await runHourlyRollup(h.stores.ch, h.config.clickhouseDatabase, { overlapSeconds: 0 });
        expect(r.hours).toBeGreaterThanOrEqual(5);
        expect(await pendingHours(h.stores.ch)).toEqual([]); // every hour now served rolled up
      }
      const day = (ago: number) => new Date(base.getTime() - ago).toISOString();
      const s = await expectSameAsList(day(24 * HOUR), base.toISOString(), 7);
      expect(s.severity).toEqual({ info: 2, warning: 1, high: 2, critical: 2 });
      expect(s.window).toEqual({ from: day(24 * HOUR), to: day(-SEC), hours: 24 });
      // Every hour the window touches, empty ones as 0: 25 buckets (the first and last partial).
      expect(s.events_by_hour).toHaveLength(25);
      const starts = s.events_by_hour.map((b) => Date.parse(b.hour));
      starts.forEach((x, i) => i > 0 && expect(x - starts[i - 1]!).toBe(HOUR));
      expect(starts[0]).toBe(Math.floor((base.getTime() - 24 * HOUR) / HOUR) * HOUR);
      expect(s.events_by_hour.filter((b) => b.events === 0).length).toBeGreaterThanOrEqual(17);
      expect(s.top_hosts.map((x) => [x.hostname, x.events])).toEqual([
        ['alpha', 3],
        ['beta', 2],
        ['gamma', 2],
      ]);
      expect(s.heartbeats).toMatchObject({ events_24h: 2, hosts_24h: 2 });
      // Windows cutting hours anywhere: shifted by a second, a minute, half an hour, 23 h 59 min.
      await expectSameAsList(day(24 * HOUR - SEC), base.toISOString(), 6); // EDGE drops out
      await expectSameAsList(day(24 * HOUR + SEC), day(SEC), 7); // OUT2 in, NOW out
      await expectSameAsList(day(24 * HOUR + 31 * MIN), day(9 * MIN), 8); // OUT1, OUT2 in; IN5, NOW out
      await expectSameAsList(day(23 * HOUR + 59 * MIN), day(23 * HOUR + 59 * MIN), 1); // one second: IN1
      await expectSameAsList(day(3 * HOUR), day(-5 * SEC), 4); // IN4, IN5, NOW and FUTURE (2 s ahead)
    });
  }

  it('the rolling default and presets take the server clock; a past window lists its own newest events', async () => {
    const d = (await get('/dashboards/summary')).body as Summary;
    // The request runs within seconds of `base`: the edges 24 h 30 min / 23 h 59 min ago are far enough.
    const expected = EVENTS.filter((e) => at(e) >= Date.parse(d.window.from) && at(e) < Date.parse(d.window.to)).length;
    expect(d.events_24h).toBe(expected);
    expect(d.window.hours).toBe(24);
    const list = await get(`/events?from=${d.window.from}&to=${new Date(Date.parse(d.window.to) - SEC).toISOString()}`);
    expect(list.body.total).toBe(d.events_24h);
    const hour = (await get('/dashboards/summary?range=1h')).body as Summary;
    expect(hour.window.hours).toBe(1);
    expect(hour.events_24h).toBe(
      EVENTS.filter((e) => at(e) >= Date.parse(hour.window.from) && at(e) < Date.parse(hour.window.to)).length,
    );
    expect(hour.events_by_hour.length).toBeGreaterThanOrEqual(1);
    expect(hour.events_by_hour.length).toBeLessThanOrEqual(2);
    // A window 13 to 25 hours ago: its newest events are its own, not the newest overall.
    const past = (
      await get(
        `/dashboards/summary?from=${new Date(base.getTime() - 25 * HOUR).toISOString()}&to=${new Date(base.getTime() - 13 * HOUR).toISOString()}`,
      )
    ).body as Summary;
    expect(past.events_24h).toBe(6); // OUT1, OUT2, EDGE, IN1, IN2, IN3
    expect(past.recent_events.map((e) => e.event_id)).toEqual(
      ['IN3', 'IN2', 'IN1', 'EDGE', 'OUT2', 'OUT1'].map((k) => envelopes[EVENTS.findIndex((e) => e.key === k)]!.event.event_id),
    );
  });

  it('refuses a bad window', async () => {
    const iso = (ago: number) => new Date(base.getTime() - ago).toISOString();
    expect((await get(`/dashboards/summary?range=24h&from=${iso(HOUR)}`)).status).toBe(400);
    expect((await get(`/dashboards/summary?to=${iso(HOUR)}`)).status).toBe(400);
    expect((await get(`/dashboards/summary?from=${iso(HOUR)}&to=${iso(2 * HOUR)}`)).status).toBe(400);
    expect((await get(`/dashboards/summary?from=${iso(32 * 24 * HOUR)}&to=${iso(0)}`)).status).toBe(400);
    expect((await get('/dashboards/summary?range=2h')).status).toBe(400);
    expect((await get(`/dashboards/summary?from=${iso(31 * 24 * HOUR)}&to=${iso(0)}`)).status).toBe(200);
  });
});

describe('on a current engine (chDB)', () => {
  let ch: ClickHouseClient;
  beforeAll(async () => {
    ch = createChdbClient();
    await applyClickhouseMigrations(ch);
    await insertEnvelopes(ch, envelopes);
  });
  afterAll(async () => {
    await ch?.close();
  });

  it('the summary equals the events list at the edges, before and after the rollup', async () => {
    const check = async () => {
      for (const [fromAgo, toAgo, n] of [
        [24 * HOUR, 0, 7],
        [24 * HOUR - SEC, 0, 6],
        [24 * HOUR + 31 * MIN, 9 * MIN, 8],
      ] as const) {
        const w = { from: new Date(base.getTime() - fromAgo), toExclusive: new Date(base.getTime() - toAgo + SEC) };
        const s = await dashboardSummary(ch, h.stores.pg, NO_TYPE_SETTINGS, { now: base, window: w, staleMinutes: 60 });
        const list = await listEvents(ch, h.stores.pg, NO_TYPE_SETTINGS, w, 1, 50);
        expect([fromAgo, toAgo, s.events_24h, list.total]).toEqual([fromAgo, toAgo, n, n]);
        expect(s.events_by_hour.reduce((a, b) => a + b.events, 0)).toBe(n);
      }
    };
    await check();
    await new Promise((r) => setTimeout(r, 1100));
    expect((await runHourlyRollup(ch, 'default', { overlapSeconds: 0 })).hours).toBeGreaterThanOrEqual(5);
    expect(await pendingHours(ch)).toEqual([]);
    await check();
  });
});
