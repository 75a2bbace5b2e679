// WinRM actions end to end: API route -> actions queue -> actions worker -> a WS-Management test double
// over a real socket (testkit/src/wsman-double.ts: HTTPS with a self-signed certificate, SOAP envelopes
// of the Windows remote shell, Basic authentication, recorded qwinsta/logoff outputs) -> the actions row
// and the audit log. The host's certificate is pinned as an admin's first action would have pinned it
// (that step: winrm-pinning.int.test.ts); the target networks list loopback, where the double runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEnvelopes } from '@watchpost/testkit/api';
import { makeEnvelope } from '@watchpost/testkit';
import { pinWinrmCertificate } from '@watchpost/core';
import {
  startRemoteActionScenario,
  startWsmanDouble,
  type RemoteActionScenario,
  type WsmanDouble,
} from '@watchpost/testkit/actions';
import { ACTIONS } from './winrm.ts';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'p@ss"w<rd&\u2019';

let s: RemoteActionScenario;
let win: WsmanDouble;
let hostId: number;
const ev = { rdp: '', rdpFailed: '', gateway: '', gatewayUnknown: '' };
/** The agent keys win-01's and gw-01's agents are bound to. */
const WIN_KEY = 11;
const GW_KEY = 12;

const call: RemoteActionScenario['call'] = (...args) => s.call(...args);

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, tls: true });
  // No password in the environment: the settings test below stores it.
  s = await startRemoteActionScenario('actions_winrm', {
    winrm: { double: win, username: USER },
    env: { SERVICE_ACTION_TIMEOUT_MS: '2000', SERVICE_ACTION_WAIT_MS: '4000' },
  });
  hostId = await s.windowsHost('win-01', { boundKeyId: WIN_KEY, agentInstanceId: 'w1' });
  await pinWinrmCertificate(s.h.stores.pg, hostId, win.certSha256!, 'ada');
  // The gateway's own agent posted its events (issue 33: only such events drive an action).
  await s.windowsHost('gw-01', { address: '10.20.0.1', boundKeyId: GW_KEY, agentInstanceId: 'g1' });
  const windows = { product: 'rdp-login-monitor' as const, product_version: '3.0.0', agent_instance_id: 'w1' };
  const gateway = { ...windows, agent_instance_id: 'g1' };
  const envs = [
    makeEnvelope({
      type: 'rdp.login.success',
      source: windows,
      host: { hostname: 'win-01', os_family: 'windows' },
      details: { user: 'CORP\\alice' },
    }),
    makeEnvelope({
      type: 'rdp.login.failed',
      source: windows,
      host: { hostname: 'win-01', os_family: 'windows' },
      details: { user: 'bob' },
    }),
    makeEnvelope({
      type: 'rdg.connection.success',
      source: gateway,
      host: { hostname: 'gw-01', os_family: 'windows' },
      details: { user: 'CORP\\bob', internal_address: '127.0.0.1:3389', code: 302 },
    }),
    makeEnvelope({
      type: 'rdg.connection.success',
      source: gateway,
      host: { hostname: 'gw-01', os_family: 'windows' },
      details: { user: 'carol', internal_address: '10.9.9.9' },
    }),
  ];
  await insertEnvelopes(s.h.stores.ch, envs.slice(0, 2), { agentKeyId: WIN_KEY });
  await insertEnvelopes(s.h.stores.ch, envs.slice(2), { agentKeyId: GW_KEY });
  [ev.rdp, ev.rdpFailed, ev.gateway, ev.gatewayUnknown] = envs.map((e) => e.event.event_id) as [string, string, string, string];
});

afterAll(async () => {
  await s?.close();
  await win?.close();
});

describe('WinRM settings and connection test', () => {
  it('without a password the test answers 400 with the reason; a monitor may not run it (it sends the credentials)', async () => {
    expect((await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.monitor)).status).toBe(403);
    const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.admin);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'ACTION_FAILED', message: expect.stringMatching(/WinRM is not configured/) });
  });

  it('the password is stored encrypted, never returned, and its change audited without it', async () => {
    expect((await call('PUT', '/settings/winrm', s.monitor, { password: PASSWORD })).status).toBe(403);
    const r = await call('PUT', '/settings/winrm', s.admin, { password: PASSWORD });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      username: USER,
      password_set: true,
      password_source: 'database',
      transport: 'https',
      port: win.port,
      auth: 'basic',
      verify_tls: false,
      allow_unencrypted: false,
    });
    expect(JSON.stringify((await call('GET', '/settings/winrm')).body)).not.toContain('p@ss');
    const stored = await s.h.stores.pg.query("SELECT value::text AS v FROM settings WHERE key = 'actions.winrm'");
    expect(stored.rows[0].v).not.toContain('p@ss');
    expect(stored.rows[0].v).toMatch(/"password_enc": "v1:/);
    const audit = await s.h.stores.pg.query("SELECT details::text AS d FROM audit_log WHERE action = 'setting.winrm'");
    expect(audit.rows[0].d).toContain('"password": "set"');
    expect(audit.rows[0].d).not.toContain('p@ss');
  });

  it('runs hostname through Create, Command, Receive (until Done), Signal and Delete', async () => {
    win.requests.length = 0;
    const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.admin);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ kind: 'winrm.test', status: 'succeeded', actor: 'ada', hostname: 'win-01' });
    expect(r.body.result).toEqual({ ok: true, endpoint: win.url, remote_hostname: 'WIN-SRV01' });
    expect(win.requests.map((q) => q.action)).toEqual([
      ACTIONS.create,
      ACTIONS.command,
      ACTIONS.receive,
      ACTIONS.receive,
      ACTIONS.signal,
      ACTIONS.delete,
    ]);
    expect(win.shells.size).toBe(0);
    const audit = await s.h.stores.pg.query(
      "SELECT actor, target, details FROM audit_log WHERE action = 'action.winrm.test' AND details->>'status' = 'succeeded'",
    );
    expect(audit.rows[0]).toMatchObject({ actor: 'ada', target: 'win-01' });
  });

  it('Basic over plain HTTP is refused before any request, even with unencrypted WinRM allowed', async () => {
    // Issue 21: no peer can be verified over HTTP, so the password never goes there (NTLM may, in a lab).
    for (const allow of [false, true]) {
      const put = await call('PUT', '/settings/winrm', s.admin, { transport: 'http', allow_unencrypted: allow });
      expect(put.body).toMatchObject({ transport: 'http', allow_unencrypted: allow });
      win.seen.length = 0;
      const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.admin);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/WinRM Basic authentication over HTTP would send the administrator password/);
      expect(win.seen).toEqual([]);
    }
    await call('PUT', '/settings/winrm', s.admin, { transport: 'https', allow_unencrypted: false });
    expect((await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.admin)).status).toBe(200);
  });

  it('HTTPS against an HTTP listener is a 400 that says so', async () => {
    const plain = await startWsmanDouble({ username: USER, password: PASSWORD });
    await call('PUT', '/settings/winrm', s.admin, { transport: 'https', port: plain.port });
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`, s.admin);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/the host does not speak TLS on this port/);
      expect(plain.seen).toEqual([]);
    } finally {
      await call('PUT', '/settings/winrm', s.admin, { transport: 'https', port: win.port });
      await plain.close();
    }
  });

  it('a refused password is a 400 naming the authentication failure', async () => {
    await call('PUT', '/settings/winrm', s.admin, { password: 'wrong' });
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/authentication refused \(HTTP 401\)/);
    } finally {
      await call('PUT', '/settings/winrm', s.admin, { password: PASSWORD });
    }
  });
});

describe('sessions on a host', () => {
  it('lists the sessions (admin only)', async () => {
    expect((await call('POST', `/hosts/${hostId}/actions/sessions`, s.monitor)).status).toBe(403);
    const r = await call('POST', `/hosts/${hostId}/actions/sessions`);
    expect(r.status).toBe(200);
    expect(r.body.result.sessions.map((s: { id: number; username: string }) => [s.id, s.username])).toEqual([
      [0, ''],
      [1, 'Administrator'],
      [2, 'alice'],
      [3, 'bob'],
      [65536, ''],
    ]);
  });

  it('terminates one by id; an unknown id is a 400 with the Windows message', async () => {
    const before = win.requests.length;
    const r = await call('POST', `/hosts/${hostId}/actions/sessions/3/logoff`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({ session_id: 3, logged_off: true, sessions_left: expect.any(Array) });
    expect(win.sessions.map((s) => s.id)).not.toContain(3);
    // The sessions left come with the answer (the UI lists nothing again): qwinsta after the logoff, in
    // the same action
    expect(r.body.result.sessions_left.map((s: { id: number }) => s.id)).toEqual(win.sessions.map((s) => s.id));
    const done = win.requests.slice(before);
    expect(done.filter((q) => q.command).map((q) => q.command)).toEqual([
      { command: 'logoff', args: ['3'] },
      { command: 'qwinsta', args: [] },
    ]);
    const bad = await call('POST', `/hosts/${hostId}/actions/sessions/99/logoff`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/logoff 99 failed with exit code 1: Invalid session identifier 99/);
  });

  it.each(['1;2', 'abc', '-1', '1%20&%20whoami', '99999999'])('session id %j is refused before anything runs', async (id) => {
    const before = win.requests.length;
    const r = await call('POST', `/hosts/${hostId}/actions/sessions/${id}/logoff`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_FAILED');
    expect(win.requests.length).toBe(before);
  });
});

describe('event actions', () => {
  it("terminates the session of an rdp.login.success event's user", async () => {
    expect((await call('POST', `/events/${ev.rdp}/actions/terminate-session`, s.monitor)).status).toBe(403);
    const r = await call('POST', `/events/${ev.rdp}/actions/terminate-session`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({
      user: 'CORP\\alice',
      logged_off: [{ id: 2, session_name: 'rdp-tcp#12', state: 'Active' }],
      sessions_left: expect.any(Array),
    });
    expect(r.body.result.sessions_left.map((s: { id: number }) => s.id)).toEqual(win.sessions.map((s) => s.id));
    expect(win.sessions.find((s) => s.username === 'alice')).toBeUndefined();
    // no session left for that user: a 400 with the reason
    const again = await call('POST', `/events/${ev.rdp}/actions/terminate-session`);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/no session of user CORP\\alice on win-01/);
  });

  it('other event types have no session to terminate', async () => {
    const r = await call('POST', `/events/${ev.rdpFailed}/actions/terminate-session`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('ACTION_NOT_POSSIBLE');
    expect((await call('POST', '/events/6f1c1b7e-1111-4b7e-9c1e-000000000000/actions/terminate-session')).status).toBe(404);
  });

  it('gateway qwinsta and logoff resolve the internal address to the Windows host; a monitor may run them', async () => {
    win.sessions.push({ session_name: 'rdp-tcp#20', username: 'bob', id: 4, state: 'Active' });
    const q = await call('POST', `/events/${ev.gateway}/actions/gateway-qwinsta`, s.monitor);
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(q.body).toMatchObject({ kind: 'winrm.sessions', host_id: hostId, hostname: 'win-01', status: 'succeeded' });
    expect(q.body.result.sessions.some((s: { username: string; id: number }) => s.username === 'bob' && s.id === 4)).toBe(true);
    // A monitor ends the event user's sessions only, never another one (here the console's).
    const notTheirs = await call('POST', `/events/${ev.gateway}/actions/gateway-logoff`, s.monitor, { session_id: 1 });
    expect(notTheirs.status).toBe(400);
    expect(notTheirs.body.error.message).toMatch(/session 1 is not a session of the event's user/);
    expect(win.sessions.map((s) => s.id)).toContain(1);
    win.sessions.push({ session_name: 'rdp-tcp#21', username: 'bob', id: 5, state: 'Disc' });
    const own = await call('POST', `/events/${ev.gateway}/actions/gateway-logoff`, s.monitor, { session_id: 5 });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(win.sessions.map((s) => s.id)).not.toContain(5);
    // an admin may end any session from the event
    const byId = await call('POST', `/events/${ev.gateway}/actions/gateway-logoff`, undefined, { session_id: 1 });
    expect(byId.status).toBe(200);
    expect(win.sessions.map((s) => s.id)).not.toContain(1);
    const byUser = await call('POST', `/events/${ev.gateway}/actions/gateway-logoff`, s.monitor);
    expect(byUser.status, JSON.stringify(byUser.body)).toBe(200);
    expect(byUser.body.result.logged_off).toEqual([{ id: 4, session_name: 'rdp-tcp#20', state: 'Active' }]);
  });

  it('a gateway event whose internal address is no registered Windows host is a 400', async () => {
    const r = await call('POST', `/events/${ev.gatewayUnknown}/actions/gateway-qwinsta`, s.monitor);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'ACTION_NOT_POSSIBLE', message: expect.stringContaining('10.9.9.9') });
    const notGateway = await call('POST', `/events/${ev.rdp}/actions/gateway-qwinsta`, s.monitor);
    expect(notGateway.status).toBe(400);
  });
});

describe('events not from the bound agent (issue 33: provenance)', () => {
  /** Stores an event as ingest would have with `keyId` and returns its id. */
  async function forged(over: Parameters<typeof makeEnvelope>[0], keyId: number): Promise<string> {
    const e = makeEnvelope(over);
    await insertEnvelopes(s.h.stores.ch, [e], { agentKeyId: keyId });
    return e.event.event_id;
  }
  const gatewayEvent = (source: Record<string, string>) => ({
    type: 'rdg.connection.success',
    source: { product: 'rdp-login-monitor' as const, product_version: '3.0.0', ...source },
    host: { hostname: 'gw-01', os_family: 'windows' as const },
    details: { user: 'carol', internal_address: '127.0.0.1' },
  });

  it('refuses gateway and terminate actions on events another key, instance or product posted, before any connection', async () => {
    const before = win.requests.length;
    const cases: [string, string, RegExp][] = [
      // Any fleet key names the gateway and an internal host: not the key gw-01 is bound to.
      [
        await forged(gatewayEvent({ agent_instance_id: 'g1' }), 99),
        'gateway-qwinsta',
        /agent key 99, not with the key host gw-01 is bound to/,
      ],
      // The gateway's key with another agent instance, or with none.
      [await forged(gatewayEvent({ agent_instance_id: 'g2' }), GW_KEY), 'gateway-logoff', /another agent instance/],
      [await forged(gatewayEvent({}), GW_KEY), 'gateway-qwinsta', /another agent instance/],
      // Stored without a verified key (before provenance was recorded).
      [await forged(gatewayEvent({ agent_instance_id: 'g1' }), 0), 'gateway-qwinsta', /without a verified agent key/],
      // A Linux agent's key cannot speak for a gateway.
      [
        await forged({ ...gatewayEvent({}), source: { product: 'ssh-monitor', product_version: '1.1.2' } }, GW_KEY),
        'gateway-qwinsta',
        /sent by ssh-monitor, not by the Windows agent/,
      ],
      [
        await forged(
          {
            type: 'rdp.login.success',
            source: { product: 'rdp-login-monitor', product_version: '3.0.0', agent_instance_id: 'w1' },
            host: { hostname: 'win-01', os_family: 'windows' as const },
            details: { user: 'alice' },
          },
          GW_KEY,
        ),
        'terminate-session',
        /not with the key host win-01 is bound to/,
      ],
    ];
    for (const [id, path, reason] of cases) {
      const r = await call('POST', `/events/${id}/actions/${path}`);
      expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'ACTION_NOT_POSSIBLE', message: expect.stringMatching(reason) });
    }
    expect(win.requests.length).toBe(before);
  });

  it('the event says where it came from; an unconfirmed gateway is not believed until an admin confirms it', async () => {
    const id = await forged(gatewayEvent({ agent_instance_id: 'g1' }), GW_KEY);
    const detail = await call('GET', `/events/${id}`, s.monitor);
    expect(detail.body.provenance).toEqual({ agent_key_id: GW_KEY, verdict: 'bound', reason: expect.any(String) });
    await s.h.stores.pg.query(`UPDATE hosts SET confirmed_at = NULL, confirmed_by = NULL WHERE hostname = 'gw-01'`);
    try {
      expect((await call('GET', `/events/${id}`, s.monitor)).body.provenance.verdict).toBe('unconfirmed_host');
      const r = await call('POST', `/events/${id}/actions/gateway-qwinsta`, s.monitor);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/no admin has confirmed host gw-01/);
    } finally {
      await s.h.stores.pg.query(`UPDATE hosts SET confirmed_at = now(), confirmed_by = 'ada' WHERE hostname = 'gw-01'`);
    }
    const forgedDetail = await call('GET', `/events/${await forged(gatewayEvent({ agent_instance_id: 'g1' }), 99)}`, s.monitor);
    expect(forgedDetail.body.provenance).toMatchObject({ agent_key_id: 99, verdict: 'other_key' });
  });
});

describe('bounded waits', () => {
  it('an unreachable host fails within the action timeout', async () => {
    const down = await s.windowsHost('win-down');
    await s.h.stores.pg.query("UPDATE hosts SET internal_address = '127.0.0.2' WHERE id = $1", [down]);
    const t0 = Date.now();
    const r = await call('POST', `/hosts/${down}/actions/winrm-test`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/WinRM at https:\/\/127\.0\.0\.2/);
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('without a worker the synchronous call answers 504; the late job is then failed as expired, not run', async () => {
    await s.stopWorker();
    const before = win.requests.length;
    const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe('ACTION_TIMEOUT');
    const id = r.body.error.details.action_id;
    await s.startWorker();
    const a = await s.waitForAction(id, { until: (x) => x.status === 'failed', timeoutMs: 10_000 });
    expect(a).toMatchObject({ status: 'failed', error: expect.stringMatching(/^expired/) });
    expect(win.requests.length).toBe(before);
  });
});
