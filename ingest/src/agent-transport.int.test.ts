// Windows session actions through the host's agent (issue 22), end to end on the real stores: API route
// -> actions worker (WinRM not configured, or not reachable) -> agent command -> the Windows agent's GET
// poll (ingest) -> its result POST -> the action's outcome. The agent's calls follow rdp-login-monitor's
// Sac-Client.ps1 (Invoke-SacProcessPendingCommands: Bearer key, GET ?agent_instance_id=, result body
// {status: completed|failed, stdout, stderr}); with WinRM configured, a WS-Management double answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createKafka, createRedis, type Redis } from '@watchpost/runtime';
import { createApiKey, loadSecretsKey, pinWinrmCertificate } from '@watchpost/core';
import { makeEnvelope, memoryLogger, QWINSTA_RECORDED } from '@watchpost/testkit';
import { addUser, createApiHarness, insertEnvelopes, login, type ApiHarness } from '@watchpost/testkit/api';
import {
  advanceAgentActions,
  insertHost,
  startActionsWorker,
  startWsmanDouble,
  wsmanDoubleEnv,
  type WsmanDouble,
} from '@watchpost/testkit/actions';
// qwinsta as Windows prints it; the agent runs the same qwinsta.exe (Invoke-SacAgentCommand) and posts its stdout.
import { buildIngestApp } from './app.ts';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'pw-agent-transport';
const INSTANCE = 'inst-win-ag';

let h: ApiHarness;
let ingest: FastifyInstance;
let redis: Redis;
let win: WsmanDouble;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let admin: string;
let monitor: string;
let key: string;
let otherKey: string;
const ids = { bound: 0, unbound: 0 };
let gatewayEvent = '';
let deps: Parameters<typeof advanceAgentActions>[0];

async function api(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, token = admin) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` }, payload });
  return { status: r.statusCode, body: r.json() };
}
/** The Windows agent's own calls (Sac-Client.ps1 Invoke-SacHttpGet / Invoke-SacHttpPostJson). */
async function agent(method: 'GET' | 'POST', path: string, payload?: object, apiKey = key) {
  const r = await ingest.inject({
    method,
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${apiKey}`, ...(payload ? { 'content-type': 'application/json; charset=utf-8' } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });
  return { status: r.statusCode, body: r.body ? r.json() : null };
}
const poll = async () => (await agent('GET', `/agent/commands?agent_instance_id=${INSTANCE}`)).body.commands as AgentCmd[];
type AgentCmd = { id: number; type: string; params: { session_id: number | null }; run_as: null };
const answer = (id: number, status: 'completed' | 'failed', stdout: string, stderr = '') =>
  agent('POST', `/agent/commands/${id}/result`, { status, stdout, stderr });
const action = async (id: number) => (await api('GET', `/actions/${id}`)).body;

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, tls: true });
  h = await createApiHarness('agent_transport', {
    env: {
      // WinRM: administrator and listener known, no password yet: not configured.
      SERVICE_WINRM_USERNAME: USER,
      ...wsmanDoubleEnv(win),
      SERVICE_ACTION_TARGET_NETWORKS: '127.0.0.0/8',
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_INGEST_KEY_CACHE_SECONDS: '0',
      SERVICE_ACTION_TIMEOUT_MS: '8000',
      SERVICE_ACTION_WAIT_MS: '10000',
    },
  });
  redis = createRedis(h.config.redisUrl);
  ({ app: ingest } = await buildIngestApp({
    config: h.config,
    log: memoryLogger().log,
    redis,
    pg: h.stores.pg,
    kafka: createKafka(h.config.kafkaBrokers, 'agent-transport-test'),
  }));
  worker = await startActionsWorker(h.config);
  deps = {
    pg: h.stores.pg,
    config: h.config,
    secretsKey: await loadSecretsKey(h.config.actions.secretsKey, h.config.stateDir),
    log: memoryLogger().log,
  };
  const k = await createApiKey(h.stores.pg, 'fleet');
  key = k.key;
  const other = await createApiKey(h.stores.pg, 'other-fleet');
  otherKey = other.key;
  await addUser(h, 'ada', 'admin');
  await addUser(h, 'max', 'monitor');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  monitor = (await login(h, 'max', 'pw-max-secret')).json().access_token;
  ids.bound = await insertHost(h.stores.pg, {
    hostname: 'win-ag',
    product: 'rdp-login-monitor',
    version: '2.1.7-SAC',
    address: '127.0.0.1',
    agentInstanceId: INSTANCE,
    boundKeyId: k.id,
  });
  ids.unbound = await insertHost(h.stores.pg, {
    hostname: 'win-nb',
    product: 'rdp-login-monitor',
    version: '2.1.7-SAC',
    address: '127.0.0.2',
  });
  await insertHost(h.stores.pg, {
    hostname: 'win-other',
    product: 'rdp-login-monitor',
    version: '2.1.7-SAC',
    address: '127.0.0.3',
    agentInstanceId: 'inst-other',
    boundKeyId: other.id,
  });
  // An RD Gateway connection to win-ag (the agent's fields: Login_Monitor.ps1 gateway events).
  const gw = makeEnvelope({
    type: 'rdg.connection.success',
    source: { product: 'rdp-login-monitor', product_version: '2.1.7-SAC', agent_instance_id: 'inst-gw' },
    host: { hostname: 'gw-01', os_family: 'windows' },
    details: { user: 'CORP\\bob', internal_ip: '127.0.0.1', external_ip: '203.0.113.7', event_id_windows: 302 },
  });
  // The gateway's own agent (fleet key, its instance), bound and confirmed: only its events drive gateway actions.
  await insertHost(h.stores.pg, {
    hostname: 'gw-01',
    product: 'rdp-login-monitor',
    version: '2.1.7-SAC',
    address: '10.20.0.1',
    agentInstanceId: 'inst-gw',
    boundKeyId: k.id,
  });
  await insertEnvelopes(h.stores.ch, [gw], { agentKeyId: k.id });
  gatewayEvent = gw.event.event_id;
});

afterAll(async () => {
  await worker?.close();
  await ingest?.close();
  await redis?.quit();
  await h?.close();
  await win?.close();
});

describe('WinRM not configured: the bound Windows agent runs the action', () => {
  it('a sessions list: 202 queued for the agent, qwinsta on its poll, the parsed sessions from its result', async () => {
    const r = await api('POST', `/hosts/${ids.bound}/actions/sessions`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ kind: 'winrm.sessions', status: 'queued', transport: 'agent', hostname: 'win-ag' });
    expect(r.body.result.transport_reason).toMatch(/WinRM is not configured/);
    // Another agent (other key, or the same key with another instance) gets nothing.
    expect((await agent('GET', `/agent/commands?agent_instance_id=${INSTANCE}`, undefined, otherKey)).body).toEqual({
      commands: [],
    });
    expect((await agent('GET', '/agent/commands?agent_instance_id=inst-other')).body).toEqual({ commands: [] });
    const cmds = await poll();
    expect(cmds).toEqual([{ id: expect.any(Number), type: 'qwinsta', params: { session_id: null }, run_as: null }]);
    await advanceAgentActions(deps);
    expect(await action(r.body.id)).toMatchObject({ status: 'running', transport: 'agent' });
    // Another host's agent cannot answer it; the bound one can.
    expect(
      (await agent('POST', `/agent/commands/${cmds[0]!.id}/result`, { status: 'completed', stdout: 'x', stderr: '' }, otherKey))
        .status,
    ).toBe(404);
    expect(await answer(cmds[0]!.id, 'completed', QWINSTA_RECORDED)).toEqual({
      status: 200,
      body: { id: cmds[0]!.id, status: 'succeeded' },
    });
    await advanceAgentActions(deps);
    const a = await action(r.body.id);
    expect(a).toMatchObject({ status: 'succeeded', transport: 'agent', error: null });
    expect(a.result.sessions.map((s: { id: number; username: string }) => [s.id, s.username])).toEqual([
      [0, ''],
      [1, 'Administrator'],
      [2, 'alice'],
      [3, 'bob'],
      [65536, ''],
    ]);
    // The command's id, not the delivery handle the agent was given as its id (issue 33).
    const queued = await h.stores.pg.query<{ id: string }>('SELECT id FROM agent_commands WHERE action_id = $1', [r.body.id]);
    expect(a.result).toMatchObject({ raw: QWINSTA_RECORDED, agent_command_ids: queued.rows.map((x) => Number(x.id)) });
    const audit = await h.stores.pg.query(
      "SELECT details FROM audit_log WHERE action = 'action.winrm.sessions' AND (details->>'action_id')::bigint = $1",
      [r.body.id],
    );
    expect(audit.rows[0].details).toMatchObject({ status: 'succeeded', transport: 'agent' });
  });

  it('a logoff: the logoff command with params.session_id; the agent failing is the reason', async () => {
    const r = await api('POST', `/hosts/${ids.bound}/actions/sessions/3/logoff`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ kind: 'winrm.logoff', status: 'queued', transport: 'agent' });
    const [c] = await poll();
    expect(c).toEqual({ id: expect.any(Number), type: 'logoff', params: { session_id: 3 }, run_as: null });
    await answer(c!.id, 'completed', '');
    await advanceAgentActions(deps);
    const a = await action(r.body.id);
    expect(a).toMatchObject({ status: 'succeeded', transport: 'agent' });
    expect(a.result).toMatchObject({ session_id: 3, logged_off: true });

    const bad = await api('POST', `/hosts/${ids.bound}/actions/sessions/99/logoff`);
    const [b] = await poll();
    // logoff.exe's own words for an unknown id (Invoke-SacProcessPendingCommands sends them as stderr)
    await answer(b!.id, 'failed', '', 'Invalid session identifier 99\r\n');
    await advanceAgentActions(deps);
    expect(await action(bad.body.id)).toMatchObject({
      status: 'failed',
      transport: 'agent',
      error: 'logoff 99 on the agent failed: Invalid session identifier 99',
    });
  });

  it("a gateway logoff by a monitor: qwinsta first, the logoff only of the event user's session", async () => {
    const r = await api('POST', `/events/${gatewayEvent}/actions/gateway-logoff`, { session_id: 3 }, monitor);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({
      kind: 'winrm.logoff',
      transport: 'agent',
      hostname: 'win-ag',
      params: { owner: 'CORP\\bob' },
    });
    const [q] = await poll();
    expect(q!.type).toBe('qwinsta');
    await answer(q!.id, 'completed', QWINSTA_RECORDED);
    await advanceAgentActions(deps);
    const [l] = await poll();
    expect(l).toMatchObject({ type: 'logoff', params: { session_id: 3 } });
    await answer(l!.id, 'completed', '');
    await advanceAgentActions(deps);
    expect(await action(r.body.id)).toMatchObject({ status: 'succeeded', result: { session_id: 3, logged_off: true } });

    // Session 1 is the console's (Administrator): refused after qwinsta, nothing logged off.
    const other = await api('POST', `/events/${gatewayEvent}/actions/gateway-logoff`, { session_id: 1 }, monitor);
    const [q2] = await poll();
    await answer(q2!.id, 'completed', QWINSTA_RECORDED);
    await advanceAgentActions(deps);
    expect(await action(other.body.id)).toMatchObject({
      status: 'failed',
      error: "session 1 is not a session of the event's user CORP\\bob",
    });
    expect(await poll()).toEqual([]);
  });

  it('a gateway logoff of the event user: every session of the user, each logged off by the agent', async () => {
    const r = await api('POST', `/events/${gatewayEvent}/actions/gateway-qwinsta`, undefined, monitor);
    expect(r.body).toMatchObject({ kind: 'winrm.sessions', transport: 'agent', status: 'queued' });
    await answer((await poll())[0]!.id, 'completed', QWINSTA_RECORDED);
    const byUser = await api('POST', `/events/${gatewayEvent}/actions/gateway-logoff`, undefined, monitor);
    expect(byUser.body).toMatchObject({ kind: 'winrm.logoff_user', transport: 'agent' });
    const twoUsers = QWINSTA_RECORDED.replace('rdp-tcp#12        alice', 'rdp-tcp#13        bob  ');
    await answer((await poll())[0]!.id, 'completed', twoUsers);
    await advanceAgentActions(deps);
    expect(await action(r.body.id)).toMatchObject({ status: 'succeeded' });
    const logoffs = await poll();
    expect(logoffs.map((c) => [c.type, c.params.session_id])).toEqual([
      ['logoff', 2],
      ['logoff', 3],
    ]);
    for (const c of logoffs) await answer(c.id, 'completed', '');
    await advanceAgentActions(deps);
    expect(await action(byUser.body.id)).toMatchObject({
      status: 'succeeded',
      transport: 'agent',
      result: {
        user: 'CORP\\bob',
        logged_off: [
          { id: 2, session_name: 'rdp-tcp#13', state: 'Active' },
          { id: 3, session_name: '', state: 'Disc' },
        ],
      },
    });
  });

  it('an agent that never answers: the action expires and its command is never delivered later', async () => {
    const r = await api('POST', `/hosts/${ids.bound}/actions/sessions`);
    expect(r.status).toBe(202);
    await advanceAgentActions(deps);
    expect((await action(r.body.id)).status).toBe('queued');
    await h.stores.pg.query("UPDATE agent_commands SET created_at = now() - interval '11 minutes' WHERE action_id = $1", [
      r.body.id,
    ]);
    await advanceAgentActions(deps);
    const a = await action(r.body.id);
    expect(a).toMatchObject({ status: 'failed', transport: 'agent' });
    expect(a.error).toMatch(/^expired: the host's agent did not fetch the qwinsta command within 10 minutes/);
    expect(await poll()).toEqual([]);
    const cmd = await h.stores.pg.query('SELECT status FROM agent_commands WHERE action_id = $1', [r.body.id]);
    expect(cmd.rows).toEqual([{ status: 'expired' }]);
  });

  it('a result for a command its poll never delivered is refused', async () => {
    const r = await api('POST', `/hosts/${ids.bound}/actions/sessions/2/logoff`);
    const c = await h.stores.pg.query<{ id: string }>('SELECT id FROM agent_commands WHERE action_id = $1', [r.body.id]);
    const id = Number(c.rows[0]!.id);
    expect((await answer(id, 'completed', '')).status).toBe(404);
    const delivered = await poll();
    expect(delivered).toMatchObject([{ type: 'logoff', params: { session_id: 2 } }]);
    // Delivered, it is answered by the handle its poll gave (issue 33); its command id still names nothing.
    expect((await answer(id, 'completed', '')).status).toBe(404);
    expect((await answer(delivered[0]!.id, 'completed', '')).status).toBe(200);
  });

  it('a host without a bound agent is refused with the reason, nothing queued', async () => {
    const before = await h.stores.pg.query('SELECT count(*)::int AS n FROM actions');
    const r = await api('POST', `/hosts/${ids.unbound}/actions/sessions`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('ACTION_NOT_POSSIBLE');
    expect(r.body.error.message).toMatch(
      /WinRM is not configured .*host win-nb has no bound Windows agent \(rdp-login-monitor\)/,
    );
    expect((await h.stores.pg.query('SELECT count(*)::int AS n FROM actions')).rows[0].n).toBe(before.rows[0].n);
  });
});

describe('WinRM configured', () => {
  beforeAll(async () => {
    expect((await api('PUT', '/settings/winrm', { password: PASSWORD })).status).toBe(200);
    await pinWinrmCertificate(h.stores.pg, ids.bound, win.certSha256!, 'ada');
  });

  it('runs over WinRM and says so (synchronous 200)', async () => {
    const r = await api('POST', `/hosts/${ids.bound}/actions/sessions`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ status: 'succeeded', transport: 'winrm' });
    expect(r.body.result.endpoint).toBe(win.url);
    expect(await poll()).toEqual([]);
  });

  it('not reachable (nothing listens on the port): the agent runs it, and the reason says why', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    expect((await api('PUT', '/settings/winrm', { port: closed })).status).toBe(200);
    try {
      const r = await api('POST', `/hosts/${ids.bound}/actions/sessions`);
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toMatchObject({ status: 'queued', transport: 'agent' });
      expect(r.body.result.transport_reason).toMatch(
        new RegExp(`WinRM at 127\\.0\\.0\\.1:${closed} is not reachable \\(ECONNREFUSED\\)`),
      );
      const [c] = await poll();
      expect(c!.type).toBe('qwinsta');
      await answer(c!.id, 'completed', QWINSTA_RECORDED);
      // No direct scan here: the worker's maintenance job (every 5 s) finishes it.
      let a = await action(r.body.id);
      for (const end = Date.now() + 15_000; a.status !== 'succeeded' && Date.now() < end; a = await action(r.body.id))
        await new Promise((res) => setTimeout(res, 200));
      expect(a).toMatchObject({ status: 'succeeded', transport: 'agent' });
    } finally {
      await api('PUT', '/settings/winrm', { port: win.port });
    }
  });
});
