// WinRM over NTLM end to end: API route -> actions worker -> the WS-Management double with NTLM
// (`Negotiate` carrying NTLMSSP, NTLMv2 response verified against the password; testkit ntlm-server.ts).
// The authentication setting comes from the database over the environment; one handshake authenticates
// the connection every request of a command then uses; a wrong password is a 400 with the reason. The
// double speaks plain HTTP: NTLM may go there only with unencrypted WinRM allowed (a lab), Basic never.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { insertHost, startActionsWorker, startWsmanDouble, wsmanDoubleEnv, type WsmanDouble } from '@watchpost/testkit/actions';
import { ACTIONS, WinrmClient, ntlmAccount } from './winrm.ts';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'Ünïcode-p@ss"w<rd\u2019';

let h: ApiHarness;
let win: WsmanDouble;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let admin: string;
let hostId: number;

async function call(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${admin}` }, payload });
  return { status: r.statusCode, body: r.json() };
}

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
  h = await createApiHarness('actions_winrm_ntlm', {
    env: {
      SERVICE_WINRM_USERNAME: USER,
      SERVICE_WINRM_PASSWORD: PASSWORD,
      ...wsmanDoubleEnv(win),
      SERVICE_WINRM_AUTH: 'basic',
      SERVICE_ACTION_TARGET_NETWORKS: '127.0.0.0/8',
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_ACTION_TIMEOUT_MS: '3000',
      SERVICE_ACTION_WAIT_MS: '5000',
    },
  });
  worker = await startActionsWorker(h.config);
  await addUser(h, 'ada', 'admin');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  hostId = await insertHost(h.stores.pg, {
    hostname: 'win-ntlm',
    product: 'rdp-login-monitor',
    version: '3.0.0',
    address: '127.0.0.1',
  });
});

afterAll(async () => {
  await worker?.close();
  await h?.close();
  await win?.close();
});

describe('WinRM with NTLM', () => {
  it('Basic over plain HTTP is refused before anything reaches the host', async () => {
    // Issue 21: over HTTP no peer is verified, so the password itself never goes there.
    const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/WinRM Basic authentication over HTTP would send the administrator password/);
    expect(win.authLog).toEqual([]);
    expect(win.connections).toBe(0);
  });

  it('NTLM over plain HTTP is refused unless unencrypted WinRM is allowed', async () => {
    await call('PUT', '/settings/winrm', { auth: 'ntlm', allow_unencrypted: false });
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/WinRM over HTTP would send the administrator credentials unencrypted/);
      expect(win.connections).toBe(0);
    } finally {
      await call('PUT', '/settings/winrm', { auth: 'basic', allow_unencrypted: true });
    }
  });

  it('the ntlm setting (database over environment) runs the test over one authenticated connection', async () => {
    const s = await call('PUT', '/settings/winrm', { auth: 'ntlm' });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ auth: 'ntlm', password_set: true, password_source: 'environment' });
    win.requests.length = 0;
    const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({ ok: true, endpoint: win.url, remote_hostname: 'WIN-SRV01' });
    // One NEGOTIATE/CHALLENGE/AUTHENTICATE; the five requests after it ride the authenticated socket.
    expect(win.authLog).toEqual(['challenge', 'authenticated CORP\\svc-watchpost']);
    expect(win.requests.map((q) => q.action)).toEqual([
      ACTIONS.create,
      ACTIONS.command,
      ACTIONS.receive,
      ACTIONS.receive,
      ACTIONS.signal,
      ACTIONS.delete,
    ]);
    expect(win.shells.size).toBe(0);
  });

  it('sessions and logoff over NTLM', async () => {
    const list = await call('POST', `/hosts/${hostId}/actions/sessions`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.result.sessions.map((s: { username: string }) => s.username)).toContain('bob');
    const off = await call('POST', `/hosts/${hostId}/actions/sessions/3/logoff`);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.result).toEqual({ session_id: 3, logged_off: true });
    expect(win.sessions.map((s) => s.username)).not.toContain('bob');
  });

  it('a wrong password is refused by the host: 400 with the reason, nothing runs', async () => {
    await call('PUT', '/settings/winrm', { password: 'not-the-password' });
    const before = win.requests.length;
    win.authLog.length = 0;
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'ACTION_FAILED',
        message: expect.stringMatching(
          /WinRM at http:\/\/127\.0\.0\.1:\d+\/wsman: authentication refused \(HTTP 401\) for CORP\\svc-watchpost/,
        ),
      });
      expect(win.authLog).toEqual(['challenge', 'refused: wrong password']);
      expect(win.requests.length).toBe(before);
    } finally {
      await call('PUT', '/settings/winrm', { password: null });
    }
    expect((await call('POST', `/hosts/${hostId}/actions/winrm-test`)).status).toBe(200);
  });

  it('a local account (no domain) authenticates with the domain the host names', async () => {
    const local = await startWsmanDouble({
      username: 'Administrator',
      password: 'local-secret-1',
      auth: 'ntlm',
      hostname: 'WS01',
    });
    try {
      const client = new WinrmClient(
        {
          address: '127.0.0.1',
          port: local.port,
          transport: 'http',
          username: 'Administrator',
          password: 'local-secret-1',
          verifyTls: true,
          auth: 'ntlm',
        },
        AbortSignal.timeout(3000),
      );
      const r = await client.run('hostname');
      expect(r).toMatchObject({ exitCode: 0, stdout: 'WS01\r\n' });
      // a second command: a fresh connection, authenticated again
      await client.run('qwinsta');
      expect(local.authLog).toEqual([
        'challenge',
        'authenticated WORKGROUP\\Administrator',
        'challenge',
        'authenticated WORKGROUP\\Administrator',
      ]);
    } finally {
      await local.close();
    }
  });

  it('splits DOMAIN\\user; a UPN travels whole with an empty domain', () => {
    expect(ntlmAccount('CORP\\alice')).toEqual({ user: 'alice', domain: 'CORP' });
    expect(ntlmAccount('alice@corp.example')).toEqual({ user: 'alice@corp.example', domain: '' });
    expect(ntlmAccount('Administrator')).toEqual({ user: 'Administrator', domain: undefined });
  });
});
