// Skewed agent clocks (README "Agent clocks", core/src/events/window-time.ts): a Windows host whose
// clock runs 3 h ahead and one reset to 2001 post a burst through the real ingest, store, correlate and
// API roles, including an RD Gateway flap (302 then 303 4 s later on the host's clock, posted within
// milliseconds as the agent does). Their events count by receive time in the dashboard's last 24 h and
// the events list, the agent's own time is kept and flagged, the flap fires and the problem's times
// are receive times. A host whose event waited 2 days in the agent's spool keeps its own time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { queryRows, sql } from '@watchpost/runtime';
import type { EventV1 } from '@watchpost/schemas';
import {
  createTestStores,
  rdpMonitor,
  sacOccurredAt,
  startRolesApp,
  testConfig,
  waitFor,
  windowsAgent,
  type AgentIdentity,
  type RolesApp,
  type TestStores,
} from '@watchpost/testkit';
import { roleStarters } from './role-registry.ts';

const KEY = `sac_${randomBytes(24).toString('hex')}`;
const ADMIN_PASSWORD = 'skew-admin-password-0123456789';
const HOUR = 3_600_000;
let stores: TestStores;
let roles: RolesApp;

beforeAll(async () => {
  stores = await createTestStores(
    testConfig('clock_skew', { SERVICE_BOOTSTRAP_API_KEY: KEY, SERVICE_ADMIN_PASSWORD: ADMIN_PASSWORD }),
  );
  roles = await startRolesApp(stores.config, ['ingest', 'store', 'correlate', 'api'], roleStarters);
}, 120_000);

afterAll(async () => {
  await roles?.close();
  await stores?.drop();
});

const post = (e: EventV1) => roles.postSacEvent(KEY, e);
const api = <T>(url: string) => roles.adminGet<T>(ADMIN_PASSWORD, url);

/** The same events from a host whose clock is `offsetMs` off: occurred_at as its agent would write it. */
const onClock = (a: AgentIdentity, offsetMs: number, events: EventV1[]) =>
  events.map((e) => ({ ...e, occurred_at: sacOccurredAt(new Date(Date.parse(e.occurred_at) + offsetMs), a.utcOffsetMinutes) }));

/** A burst as the agent sends it: its start, logins, and an RD Gateway flap (302, 303 4 s later on its clock). */
function burst(a: AgentIdentity, user: string): EventV1[] {
  const t = new Date(Date.now() - 30_000);
  const gw = { user, clientIp: '198.51.100.77', resource: a.hostname };
  return [
    rdpMonitor.lifecycleStarted(a),
    rdpMonitor.loginFailed(a, 'administrator', '203.0.113.50', new Date(t.getTime() - 20_000)),
    rdpMonitor.loginFailed(a, 'administrator', '203.0.113.50', new Date(t.getTime() - 10_000)),
    rdpMonitor.loginSuccess(a, user, '198.51.100.20', new Date(t.getTime() - 5_000)),
    rdpMonitor.gateway(a, { code: 302, ...gw, at: t }),
    rdpMonitor.gateway(a, { code: 303, ...gw, durationSec: 4, at: new Date(t.getTime() + 4000) }),
    rdpMonitor.heartbeat(a),
  ];
}

interface EventRow {
  event_id: string;
  hostname: string;
  occurred_at: string;
  received_at: string;
  agent_occurred_at?: string;
  clock_skew?: boolean;
}
interface ProblemRow {
  id: string;
  host: string;
  type: string;
  rdg_flap: boolean;
  created_at: string;
  last_seen: string;
}

describe('agent clocks far off', () => {
  const ahead = windowsAgent('WS-AHEAD');
  const reset = windowsAgent('WS-2001');
  const spooled = windowsAgent('WS-SPOOL');
  const aheadEvents = onClock(ahead, 3 * HOUR, burst(ahead, 'CORP\\ahead'));
  // A dead CMOS battery: 2001-01-01 plus the time of day (the flap keeps its 4 s spacing).
  const resetClean = onClock(
    reset,
    Date.parse('2001-01-01T00:00:00Z') - Date.parse(new Date().toISOString().slice(0, 10)),
    burst(reset, 'CORP\\reset'),
  );
  const twoDaysAgo = new Date(Date.now() - 48 * HOUR);
  const spooledEvent = rdpMonitor.loginFailed(spooled, 'bob', '203.0.113.9', twoDaysAgo);
  let sentFrom = 0;
  let sentTo = 0;

  it('accepts every event (201), whatever its time', async () => {
    sentFrom = Date.now() - 1000; // received_at has second precision in ClickHouse
    for (const e of [...aheadEvents, ...resetClean, spooledEvent])
      expect([e.type, (await post(e)).statusCode]).toEqual([e.type, 201]);
    sentTo = Date.now() + 1000;
  }, 60_000);

  it('counts the skewed hosts by receive time in the last 24 h and keeps the spooled event at its own time', async () => {
    const from = new Date(Date.now() - 24 * HOUR).toISOString();
    const to = new Date().toISOString();
    const list = await waitFor(
      'the skewed bursts in the last 24 h',
      () => api<{ total: number; items: EventRow[] }>(`/events?page_size=100&from=${from}&to=${to}`),
      (l) => l.total === aheadEvents.length + resetClean.length,
      60_000,
    );
    for (const r of list.items) {
      expect([r.hostname, r.occurred_at]).toEqual([r.hostname, r.received_at]);
      expect(Date.parse(r.occurred_at)).toBeGreaterThanOrEqual(sentFrom);
      expect(Date.parse(r.occurred_at)).toBeLessThanOrEqual(sentTo);
      expect(r.clock_skew).toBe(true);
    }
    const aheadRow = list.items.find((r) => r.event_id === aheadEvents[0]!.event_id)!;
    expect(Date.parse(aheadRow.agent_occurred_at!)).toBe(Math.floor(Date.parse(aheadEvents[0]!.occurred_at) / 1000) * 1000);
    const resetRow = list.items.find((r) => r.event_id === resetClean[0]!.event_id)!;
    expect(resetRow.agent_occurred_at!.slice(0, 10)).toBe('2001-01-01');

    const dash = await api<{ events_24h: number; top_hosts: { hostname: string; events: number }[] }>('/dashboards/summary');
    expect(dash.events_24h).toBe(aheadEvents.length + resetClean.length);
    expect(Object.fromEntries(dash.top_hosts.map((h) => [h.hostname, h.events]))).toEqual({
      'WS-AHEAD': aheadEvents.length,
      'WS-2001': resetClean.length,
    });

    // The spooled event (2 days old: an honest late event within the past bound) keeps its own time.
    const spool = await waitFor(
      'the spooled event',
      () => api<{ total: number; items: EventRow[] }>(`/events?hostname=WS-SPOOL`),
      (l) => l.total === 1,
    );
    expect(Math.abs(Date.parse(spool.items[0]!.occurred_at) - twoDaysAgo.getTime())).toBeLessThan(1000);
    expect(spool.items[0]!.clock_skew).toBe(false);
  }, 90_000);

  it('stores what the agent sent: its time in agent_occurred_at and event_json, flagged', async () => {
    const rows = await queryRows<{ event_id: string; occ: string; agent: string; skewed: number; event_json: string }>(
      stores.ch,
      sql`SELECT event_id, toString(toUnixTimestamp(occurred_at)) AS occ, toString(toUnixTimestamp(agent_occurred_at)) AS agent,
            clock_skewed AS skewed, event_json FROM events FINAL ORDER BY event_id`,
    );
    const sent = new Map([...aheadEvents, ...resetClean, spooledEvent].map((e) => [e.event_id, e]));
    expect(rows.length).toBe(sent.size);
    for (const r of rows) {
      const e = sent.get(r.event_id)!;
      expect(JSON.parse(r.event_json).occurred_at).toBe(e.occurred_at);
      expect(Number(r.agent)).toBe(Math.floor(Date.parse(e.occurred_at) / 1000));
      expect(Number(r.skewed)).toBe(e === spooledEvent ? 0 : 1);
    }
  });

  it.each([
    ['3 h ahead', 'WS-AHEAD'],
    ['reset to 2001', 'WS-2001'],
  ])(
    'a host %s gets its RD Gateway flap, with receive-based problem times',
    async (_name, host) => {
      const problems = await waitFor(
        'flap problem',
        () => api<{ items: ProblemRow[] }>(`/problems?host=${host}`),
        (p) => p.items.some((x) => x.rdg_flap),
        60_000,
      );
      const flap = problems.items.filter((x) => x.rdg_flap);
      expect(flap).toHaveLength(1);
      expect(flap[0]).toMatchObject({ host, type: 'rdg.connection.flap' });
      for (const t of [flap[0]!.created_at, flap[0]!.last_seen]) {
        expect(Date.parse(t)).toBeGreaterThanOrEqual(sentFrom);
        expect(Date.parse(t)).toBeLessThanOrEqual(sentTo);
      }
      const detail = await api<{ timeline: { occurred_at: string; flap: boolean }[]; details?: Record<string, unknown> }>(
        `/problems/${flap[0]!.id}`,
      );
      // The 303 (timed 4 s by the gateway) is the flap; its 302 is no part of it (issue 31).
      expect(detail.timeline).toHaveLength(1);
      for (const e of detail.timeline) {
        expect(e.flap).toBe(true);
        expect(Date.parse(e.occurred_at)).toBeGreaterThanOrEqual(sentFrom);
        expect(Date.parse(e.occurred_at)).toBeLessThanOrEqual(sentTo);
      }
      // The host's last_seen is the receive time too.
      const hosts = await api<{ items: { hostname: string; last_seen: string }[] }>(`/hosts?search=${host}`);
      const h = hosts.items.find((x) => x.hostname === host)!;
      expect(Date.parse(h.last_seen)).toBeGreaterThanOrEqual(sentFrom);
      expect(Date.parse(h.last_seen)).toBeLessThanOrEqual(sentTo);
    },
    90_000,
  );

  it('a flap after the host clock is corrected is placed by its own (receive) time and notified as live', async () => {
    // WS-AHEAD's clock is fixed (NTP): its next flap is 3 h "before" the first one on the host's clock.
    // By window time it is the newest flap, so it extends the live flap problem or opens the next one,
    // never an older problem filed as already superseded (which would never be notified).
    const t = new Date(Date.now() - 2000);
    const gw = { user: 'CORP\\ahead', clientIp: '198.51.100.78', resource: ahead.hostname };
    const fixed = [
      rdpMonitor.gateway(ahead, { code: 302, ...gw, at: t }),
      rdpMonitor.gateway(ahead, { code: 303, ...gw, durationSec: 2, at: new Date(t.getTime() + 2000) }),
    ];
    for (const e of fixed) expect((await post(e)).statusCode).toBe(201);
    const open = await waitFor(
      'the open flap problem holds the new flap',
      async () => {
        const list = await api<{ items: (ProblemRow & { status: string })[] }>(`/problems?host=WS-AHEAD&status=open`);
        const live = list.items.filter((x) => x.rdg_flap);
        if (live.length !== 1) return null;
        const detail = await api<{ timeline: { event_id: string }[] }>(`/problems/${live[0]!.id}`);
        return detail.timeline.map((e) => e.event_id);
      },
      (ids) => ids !== null && ids.includes(fixed[1]!.event_id),
      60_000,
    );
    expect(open).not.toBeNull();
  }, 90_000);
});
