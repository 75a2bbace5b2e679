// Events, hosts, problems and the dashboard summary against a known dataset on the real ClickHouse and
// Postgres (testkit/src/reads-fixtures.ts), through the real app with real logins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { correlate, FIXTURE_EVENTS, fixtureEnvelope, insertEnvelopes, loadFixture, type Fixture } from '@watchpost/testkit/api';
import { dashboardSummary, summaryWindow } from '../queries/dashboard.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';

let h: ApiHarness;
let fx: Fixture;
let admin: string;
let monitor: string;

const MIN = 60_000;
const HOUR = 60 * MIN;

async function get(path: string, token = monitor) {
  const r = await h.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` } });
  if (r.statusCode >= 500) console.log(path, r.body);
  return { status: r.statusCode, body: r.json() };
}
async function post(path: string, token = monitor) {
  const r = await h.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` } });
  return { status: r.statusCode, body: r.json() };
}
const keysOf = (items: { event_id: string }[]) =>
  items.map((i) => Object.entries(fx.ids).find(([, id]) => id === i.event_id)?.[0]);

beforeAll(async () => {
  h = await createApiHarness('reads', { env: { SERVICE_HEARTBEAT_STALE_MINUTES: '60' } });
  fx = await loadFixture(h.stores.pg, h.stores.ch);
  await addUser(h, 'ada', 'admin');
  await addUser(h, 'max', 'monitor');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  monitor = (await login(h, 'max', 'pw-max-secret')).json().access_token;
});

afterAll(async () => {
  await h?.close();
});

describe('dashboard summary', () => {
  it('has every figure of the dataset (hidden types left out, overrides applied)', async () => {
    const { status, body } = await get('/dashboards/summary');
    expect(status).toBe(200);
    expect(body.events_24h).toBe(12);
    expect(body.severity).toEqual({ info: 7, warning: 3, high: 1, critical: 1 });
    expect(body.daily_reports_24h).toBe(1);
    expect(body.heartbeats.events_24h).toBe(2);
    expect(body.heartbeats.hosts_24h).toBe(2);
    expect(new Date(body.heartbeats.last_heartbeat_at).getTime()).toBe(fx.at(10 * MIN).getTime() + 1000);
    expect(body.top_hosts).toEqual([
      { hostname: 'beta', display_name: 'Beta DC', events: 7 },
      { hostname: 'alpha', display_name: 'Alpha Web', events: 5 },
    ]);
    expect(body.top_event_types.slice(0, 2)).toEqual([
      { type: 'ssh.login.failed', events: 3 },
      { type: 'agent.heartbeat', events: 2 },
    ]);
    expect(body.top_event_types).toHaveLength(9);
    expect(body.top_event_types.map((t: { type: string }) => t.type)).not.toContain('noisy.debug');
    expect(body.hosts).toEqual({ total: 3, online: 2, stale: 1 });
    // open: gamma's sudo problem (30 h old), the flap problem, PA; acknowledged: PB; PD is hidden.
    expect(body.open_problems).toBe(3);
    expect(body.acknowledged_problems).toBe(1);
    // metrics rule: created in 24 h, open + acknowledged only; resolved (PC) apart, PE too old.
    expect(body.problems_24h).toEqual({ open: 2, acknowledged: 1, total: 3, resolved: 1 });
    expect(keysOf(body.recent_events)).toEqual(['E3', 'E8', 'E6', 'E5', 'E12', 'E15', 'E1', 'E2', 'E4', 'E7']);
    expect(body.recent_events.filter((e: { flap: boolean }) => e.flap)).toHaveLength(2);
    expect(body.events_by_hour.reduce((a: number, x: { events: number }) => a + x.events, 0)).toBe(12);
  });

  it('covers exactly the last 24 hours to the second, at any time of the hour', async () => {
    const ts = await loadTypeSettings(h.stores.pg);
    const hidden = new Set(['noisy.debug']);
    // Windows ending at various points around the base; reference count from the dataset itself.
    for (const shift of [0, 7 * MIN, 29 * MIN + 30_000, 31 * MIN, 45 * MIN, -20 * MIN, 66 * MIN, 6.5 * HOUR]) {
      const now = new Date(fx.base.getTime() + shift);
      const w = summaryWindow(now);
      expect(now.getTime() - w.from.getTime()).toBe(24 * HOUR);
      const at = (e: { ago: number }) => fx.base.getTime() - e.ago;
      const expected = FIXTURE_EVENTS.filter(
        (e) => !hidden.has(e.type) && at(e) >= w.from.getTime() && at(e) < w.toExclusive.getTime(),
      ).length;
      const s = await dashboardSummary(h.stores.ch, h.stores.pg, ts, { now, staleMinutes: 60 });
      expect({ shift, n: s.events_24h }).toEqual({ shift, n: expected });
    }
  });
});

describe('events', () => {
  it('lists newest first with actor user, agent version and exact total; hidden types left out', async () => {
    const { status, body } = await get('/events?page_size=100');
    expect(status).toBe(200);
    expect(body.total).toBe(14);
    expect(keysOf(body.items)).toEqual([
      'E3',
      'E8',
      'E6',
      'E5',
      'E12',
      'E15',
      'E1',
      'E2',
      'E4',
      'E7',
      'E11',
      'E13',
      'E14',
      'E10',
    ]);
    const e1 = body.items.find((i: { event_id: string }) => i.event_id === fx.ids.E1);
    expect(e1).toMatchObject({
      hostname: 'alpha',
      display_name: 'Alpha Web',
      actor_user: 'root',
      agent_version: '2.4.1',
      severity: 'warning',
      flap: false,
    });
    expect(body.items.find((i: { event_id: string }) => i.event_id === fx.ids.E7).actor_user).toBe('bob');
    expect(body.items.find((i: { event_id: string }) => i.event_id === fx.ids.E11)).toMatchObject({
      severity: 'critical',
      stored_severity: 'high',
    });
  });

  it('filters by hostname, severity (after override), type prefix and date range', async () => {
    const count = async (q: string) => (await get(`/events?page_size=100&${q}`)).body;
    expect(keysOf((await count('hostname=alpha')).items)).toEqual(['E3', 'E1', 'E2', 'E4', 'E11', 'E14']);
    expect(keysOf((await count('severity=critical')).items)).toEqual(['E11', 'E10']);
    expect(keysOf((await count('severity=high')).items)).toEqual(['E7']);
    expect((await count('severity=high,critical')).total).toBe(3);
    expect(keysOf((await count('type=rdg.connection')).items)).toEqual(['E6', 'E5', 'E15']);
    expect(keysOf((await count('type=rdg.connection.success')).items)).toEqual(['E5']);
    expect((await count('type=ssh.login.failed')).total).toBe(4);
    expect((await count('type=ssh')).total).toBe(5);
    expect((await count('type=noisy.debug')).total).toBe(0);
    // inclusive bounds at second precision: E2 at -2h and E1 at -1h (E9 at -1h is hidden)
    const from = fx.at(2 * HOUR).toISOString();
    const to = fx.at(1 * HOUR).toISOString();
    expect(keysOf((await count(`from=${from}&to=${to}`)).items)).toEqual(['E1', 'E2']);
    const dayOfE10 = fx
      .at(30 * HOUR)
      .toISOString()
      .slice(0, 10);
    const expected = FIXTURE_EVENTS.filter(
      (e) => e.type !== 'noisy.debug' && fx.at(e.ago).toISOString().slice(0, 10) === dayOfE10,
    ).length;
    expect((await count(`from=${dayOfE10}&to=${dayOfE10}`)).total).toBe(expected);
    expect((await count(`hostname=beta&severity=info&type=rdg`)).total).toBe(4);
    expect((await get('/events?from=2025-02-01&to=2025-01-01')).status).toBe(400);
    expect((await get('/events?severity=urgent')).status).toBe(400);
  });

  it('pages with a stable order', async () => {
    const p2 = (await get('/events?page=2&page_size=5')).body;
    expect(p2).toMatchObject({ total: 14, page: 2, page_size: 5 });
    expect(keysOf(p2.items)).toEqual(['E15', 'E1', 'E2', 'E4', 'E7']);
    expect((await get('/events?page=4&page_size=5')).body.items).toEqual([]);
  });

  it('stays exact when an event was stored twice', async () => {
    await insertEnvelopes(h.stores.ch, [fx.envelopes.E1!, fx.envelopes.E5!]);
    const raw = await queryRows<{ n: string }>(h.stores.ch, sql`SELECT count() AS n FROM events`);
    expect(Number(raw[0]!.n)).toBe(17);
    const { body } = await get('/events?page_size=100');
    expect(body.total).toBe(14);
    expect(new Set(body.items.map((i: { event_id: string }) => i.event_id)).size).toBe(14);
    expect((await get('/events?hostname=alpha')).body.total).toBe(6);
  });

  it('badges both events of a flap pair and returns one event with its JSON', async () => {
    const e5 = await get(`/events/${fx.ids.E5}`);
    expect(e5.status).toBe(200);
    expect(e5.body).toMatchObject({ flap: true, type: 'rdg.connection.success', hidden: false });
    expect(e5.body.event.details).toEqual({ event_code: 302, session_id: 'S1', user: 'carol' });
    expect((await get(`/events/${fx.ids.E6}`)).body.flap).toBe(true);
    expect((await get(`/events/${fx.ids.E15}`)).body.flap).toBe(false);
    expect((await get(`/events/${fx.ids.E9}`)).body.hidden).toBe(true);
    expect((await get(`/events/${fx.ids.E11}`)).body.severity).toBe('critical');
    expect((await get('/events/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // Found through events_by_id whatever the case of the id (E5 is stored twice by now: one answer).
    const upper = await get(`/events/${fx.ids.E5!.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body.event_id).toBe(e5.body.event_id);
    expect((await get('/events/not-a-uuid')).status).toBe(400);
  });

  it('honours a visibility change at once', async () => {
    await h.stores.pg.query(`UPDATE event_type_settings SET visible = true WHERE type = 'noisy.debug'`);
    expect((await get('/events')).body.total).toBe(15);
    expect((await get('/dashboards/summary')).body.events_24h).toBe(13); // E9 now visible; the duplicates of E1 and E5 count once
    await h.stores.pg.query(`UPDATE event_type_settings SET visible = false WHERE type = 'noisy.debug'`);
  });

  it('requires a login', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/api/v1/events' })).statusCode).toBe(401);
  });
});

describe('problems', () => {
  it('lists with filters and counts by status; hidden types left out', async () => {
    const all = (await get('/problems')).body;
    expect(all.total).toBe(6);
    expect(all.counts).toEqual({ open: 3, acknowledged: 1, resolved: 2 });
    expect(all.items.map((p: { type: string }) => p.type)).not.toContain('noisy.debug');
    expect((await get('/problems?status=open')).body.total).toBe(3);
    expect((await get('/problems?status=open,acknowledged')).body.total).toBe(4);
    expect((await get('/problems?host=alpha')).body.total).toBe(3);
    expect((await get('/problems?type=ssh')).body.total).toBe(3);
    expect((await get('/problems?type=ssh.login.failed')).body.total).toBe(2);
    const flap = (await get('/problems?type=rdg.connection')).body;
    expect(flap.total).toBe(1);
    expect(flap.items[0]).toMatchObject({ rdg_flap: true, host: 'beta' });
    const crit = (await get('/problems?severity=critical')).body;
    expect(crit.items.map((p: { host: string; type: string }) => `${p.host}|${p.type}`).sort()).toEqual([
      'alpha|ssh.bruteforce.mass',
      'gamma|privilege.sudo.command',
    ]);
  });

  it('applies the metrics rule with created_within_hours', async () => {
    const r = (await get('/problems?created_within_hours=24')).body;
    expect(r.items.map((p: { status: string }) => p.status).sort()).toEqual(['acknowledged', 'open', 'open']);
    expect(r.total).toBe(3);
    expect(r.counts).toEqual({ open: 2, acknowledged: 1, resolved: 1 });
    expect((await get('/problems?created_within_hours=24&status=resolved')).body.items.map((p: { id: string }) => p.id)).toEqual([
      fx.problemIds.PC,
    ]);
    expect((await get('/problems?created_within_hours=48')).body.counts).toEqual({ open: 3, acknowledged: 1, resolved: 2 });
  });

  it('returns one problem with its timeline', async () => {
    const flapId = (await get('/problems?type=rdg.connection')).body.items[0].id;
    const p = (await get(`/problems/${flapId}`)).body;
    expect(p.timeline.map((e: { event_id: string }) => e.event_id)).toEqual([fx.ids.E5, fx.ids.E6]);
    expect(p.timeline.every((e: { flap: boolean }) => e.flap)).toBe(true);
    expect((await get('/problems/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('acknowledges and resolves through the state machine, 409 when refused', async () => {
    const id = fx.problemIds.PA!;
    const ack = await post(`/problems/${id}/acknowledge`);
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ status: 'acknowledged', acknowledged_by: 'max' });
    const again = await post(`/problems/${id}/acknowledge`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'ALREADY_ACKNOWLEDGED', status: 'acknowledged' },
    });
    const res = await post(`/problems/${id}/resolve`, admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'resolved', resolved_by: 'manual', resolved_by_user: 'ada' });
    expect((await post(`/problems/${id}/resolve`)).body.error.details.reason).toBe('ALREADY_RESOLVED');
    expect((await post(`/problems/${id}/acknowledge`)).status).toBe(409);
    expect((await post('/problems/00000000-0000-4000-8000-000000000000/resolve')).status).toBe(404);
  });
});

describe('hosts', () => {
  it('lists with search over hostname and display name, status and agent version', async () => {
    const all = (await get('/hosts')).body;
    expect(all.items.map((x: { hostname: string; status: string }) => `${x.hostname}:${x.status}`)).toEqual([
      'alpha:online',
      'beta:online',
      'gamma:stale',
    ]);
    expect(all.items[0]).toMatchObject({ display_name: 'Alpha Web', agent_version: '2.4.1', os_family: 'linux' });
    expect((await get('/hosts?search=ALP')).body.items.map((x: { hostname: string }) => x.hostname)).toEqual(['alpha']);
    expect((await get('/hosts?search=dc')).body.items.map((x: { hostname: string }) => x.hostname)).toEqual(['beta']);
    expect((await get('/hosts?search=%25')).body.total).toBe(0);
    expect((await get('/hosts?status=stale')).body.items.map((x: { hostname: string }) => x.hostname)).toEqual(['gamma']);
    const alpha = await get(`/hosts/${all.items[0].id}`);
    expect(alpha.body).toMatchObject({ hostname: 'alpha', live_problems: 1 }); // PB (PA was resolved above)
    expect(new Date(alpha.body.last_heartbeat).getTime()).toBe(fx.at(10 * MIN).getTime() + 1000);
    expect((await get('/hosts/999999')).status).toBe(404);
  });

  it('deletes a host with its problems and events (admin only); the host comes back at its next ingest', async () => {
    const alphaId = (await get('/hosts?search=alpha')).body.items[0].id;
    expect(
      (await h.app.inject({ method: 'DELETE', url: `/api/v1/hosts/${alphaId}`, headers: { authorization: `Bearer ${monitor}` } }))
        .statusCode,
    ).toBe(403);
    const del = await h.app.inject({
      method: 'DELETE',
      url: `/api/v1/hosts/${alphaId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ hostname: 'alpha', problems_deleted: 3, events: 'deletion_submitted' });
    expect((await get(`/hosts/${alphaId}`)).status).toBe(404);
    expect((await h.stores.pg.query(`SELECT count(*)::int AS n FROM problems WHERE host = 'alpha'`)).rows[0].n).toBe(0);
    const audit = await h.stores.pg.query(`SELECT actor, action, target FROM audit_log WHERE action = 'host.delete'`);
    expect(audit.rows).toEqual([{ actor: 'ada', action: 'host.delete', target: 'alpha' }]);
    // ClickHouse applies the mutation in the background.
    const deadline = Date.now() + 30_000;
    let left = -1;
    while (Date.now() < deadline) {
      const r = await queryRows<{ e: string; hr: string; id: string; dn: string }>(
        h.stores.ch,
        sql`SELECT (SELECT count() FROM events WHERE hostname = 'alpha') AS e, (SELECT count() FROM events_hourly WHERE hostname = 'alpha') AS hr,
                   (SELECT count() FROM events_by_id WHERE hostname = 'alpha') AS id,
                   (SELECT count() FROM events_host_names WHERE hostname = 'alpha') AS dn`,
      );
      left = Number(r[0]!.e) + Number(r[0]!.hr) + Number(r[0]!.id) + Number(r[0]!.dn);
      if (left === 0) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    expect(left).toBe(0);
    expect((await get('/events?hostname=alpha')).body.total).toBe(0);
    expect((await get('/events')).body.total).toBe(8);
    // The next event from its agent: stored and correlated like any other -> the host is back.
    const hb = fixtureEnvelope({ key: 'E16', host: 'alpha', type: 'agent.heartbeat', severity: 'info', ago: 0 }, new Date());
    await insertEnvelopes(h.stores.ch, [hb]);
    await correlate(h.stores.pg, [hb]);
    const back = (await get('/hosts?search=alpha')).body.items;
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ hostname: 'alpha', status: 'online', live_problems: 0 });
    expect(back[0].id).not.toBe(alphaId);
    expect((await get('/events?hostname=alpha')).body.total).toBe(1);
  });
});
