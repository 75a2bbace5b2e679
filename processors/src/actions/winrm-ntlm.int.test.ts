// WinRM over NTLM end to end: API route -> actions worker -> the WS-Management double with NTLM
// (`Negotiate` carrying NTLMSSP, NTLMv2 response verified against the password; testkit ntlm-server.ts).
// The authentication setting comes from the database over the environment; one handshake authenticates
// the connection every request of a command then uses; a wrong password is a 400 with the reason. The
// double speaks plain HTTP as Windows ships it (`winrm quickconfig`: AllowUnencrypted=false): every
// message travels sealed with NTLM session security and is verified on the wire; an unsealed or
// altered message is refused, and so is an altered reply. NTLM may go over HTTP only with plain HTTP
// allowed by the service (no host can be verified there), Basic never. The double checks what a host
// with Extended Protection checks (MIC, target name HTTP/127.0.0.1, over HTTPS the channel binding to
// its certificate), and the client refuses a CHALLENGE without 128-bit keys or without a timestamp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import {
  startRemoteActionScenario,
  startWsmanDouble,
  type RemoteActionScenario,
  type WsmanDouble,
} from '@watchpost/testkit/actions';
import {
  ACTIONS,
  CMD_SHELL_URI,
  ENCRYPTED_CONTENT_TYPE,
  WinrmClient,
  envelope,
  ntlmAccount,
  openedBody,
  sealedBody,
  type WinrmTarget,
} from './winrm.ts';
import { NtlmSessionSecurity, authenticateMessage, negotiateMessage, readChallenge } from './ntlm-session.ts';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'Ünïcode-p@ss"w<rd\u2019';

let s: RemoteActionScenario;
let win: WsmanDouble;
let hostId: number;

/** Every API request of this file is the admin's. */
const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => s.call(method, path, s.admin, payload);

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
  s = await startRemoteActionScenario('actions_winrm_ntlm', {
    winrm: { double: win, username: USER, password: PASSWORD },
    monitor: false,
    env: { SERVICE_WINRM_AUTH: 'basic', SERVICE_ACTION_TIMEOUT_MS: '3000', SERVICE_ACTION_WAIT_MS: '5000' },
  });
  hostId = await s.windowsHost('win-ntlm');
});

afterAll(async () => {
  await s?.close();
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
      expect(r.body.error.message).toMatch(/WinRM over HTTP cannot verify the host/);
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
    // every SOAP message came sealed, was opened and its signature verified by the double
    expect(win.requests.every((q) => q.sealed)).toBe(true);
    expect(win.refused).toEqual([]);
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
    expect(off.body.result).toEqual({ session_id: 3, logged_off: true, sessions_left: expect.any(Array) });
    expect(off.body.result.sessions_left.map((s: { username: string }) => s.username)).not.toContain('bob');
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
        target(local.port, { username: 'Administrator', password: 'local-secret-1' }),
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

/** A hand-driven NTLM connection to a double (no WinrmClient): what another client would send. */
async function rawNtlm(port: number, account: { user: string; domain: string; password: string }) {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const post = (body: Buffer, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/wsman',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/soap+xml;charset=UTF-8', 'content-length': body.length, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const negotiate = negotiateMessage();
  const first = await post(Buffer.alloc(0), { authorization: `Negotiate ${negotiate.toString('base64')}` });
  const token = /Negotiate (\S+)/.exec(String(first.headers['www-authenticate']))![1]!;
  const a = authenticateMessage({
    negotiate,
    challenge: readChallenge(Buffer.from(token, 'base64')),
    ...account,
    workstation: 'RAW',
    targetName: 'HTTP/127.0.0.1',
    channelBindings: undefined, // plain HTTP
  });
  const second = await post(Buffer.alloc(0), { authorization: `Negotiate ${a.message.toString('base64')}` });
  expect(second.status).toBe(200);
  return { post, security: new NtlmSessionSecurity(a.exportedSessionKey, a.flags, 'client'), close: () => agent.destroy() };
}

/** The service's account against a double on loopback, NTLM over plain HTTP; `over` is what a case changes. */
const target = (port: number, over: Partial<WinrmTarget> = {}): WinrmTarget => ({
  address: '127.0.0.1',
  port,
  transport: 'http',
  username: USER,
  password: PASSWORD,
  verifyTls: true,
  auth: 'ntlm',
  ...over,
});

const createShell = (url: string) =>
  Buffer.from(
    envelope({
      to: url,
      action: ACTIONS.create,
      body: '<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>',
    }),
    'utf8',
  );

describe('WinRM over HTTP as Windows ships it (NTLM sealing)', () => {
  const account = { user: 'svc-watchpost', domain: 'CORP', password: PASSWORD };

  it('qwinsta and logoff run sealed: the SOAP never travels readable, each reply is opened and verified', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
    try {
      const client = new WinrmClient(target(d.port), AbortSignal.timeout(5000));
      expect(client.sealed).toBe(true);
      const q = await client.run('qwinsta');
      expect(q.stdout).toContain('rdp-tcp#12');
      expect((await client.run('logoff', ['2'])).exitCode).toBe(0);
      expect(d.sessions.map((s) => s.id)).not.toContain(2);
      const bad = await client.run('logoff', ['99']);
      expect(bad).toMatchObject({ exitCode: 1, stderr: 'Invalid session identifier 99.\r\n' });
      expect(d.requests.length).toBe(18);
      expect(d.requests.every((r) => r.sealed)).toBe(true);
      // on the wire: the two handshake legs (empty bodies), then only multipart/encrypted bodies
      const bodies = d.seen.filter((x) => !x.authorization);
      expect(bodies.length).toBe(18);
      expect(bodies.every((x) => x.contentType === ENCRYPTED_CONTENT_TYPE)).toBe(true);
      expect(d.refused).toEqual([]);
    } finally {
      await d.close();
    }
  });

  it('a client that authenticates but does not seal is refused (HTTP 401), as AllowUnencrypted=false does', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
    const lab = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm', allowUnencrypted: true });
    try {
      const c = await rawNtlm(d.port, account);
      const r = await c.post(createShell(d.url), {});
      c.close();
      expect(r.status).toBe(401);
      expect(d.refused).toEqual(['unencrypted']);
      expect(d.requests).toEqual([]);
      expect(d.shells.size).toBe(0);
      // the same message to a host that allows unencrypted WinRM (a lab) is served
      const l = await rawNtlm(lab.port, account);
      const ok = await l.post(createShell(lab.url), {});
      l.close();
      expect(ok.status).toBe(200);
      expect(lab.shells.size).toBe(1);
      expect(lab.requests.map((q) => q.sealed)).toEqual([false]);
    } finally {
      await d.close();
      await lab.close();
    }
  });

  it('a sealed request with one byte flipped on the way is refused (HTTP 400) and does nothing', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
    try {
      const c = await rawNtlm(d.port, account);
      // first a good one: the framing and keys are right
      const good = await c.post(sealedBody(c.security, createShell(d.url)), { 'content-type': ENCRYPTED_CONTENT_TYPE });
      expect(good.status).toBe(200);
      expect(openedBody(c.security, good.body).toString()).toContain('<rsp:ShellId>');
      const framed = sealedBody(c.security, createShell(d.url));
      framed[framed.length - 40]! ^= 0x04; // inside the sealed SOAP
      const r = await c.post(framed, { 'content-type': ENCRYPTED_CONTENT_TYPE });
      c.close();
      expect(r.status).toBe(400);
      expect(d.refused).toEqual(['signature']);
      expect(d.requests.length).toBe(1);
      expect(d.shells.size).toBe(1);
    } finally {
      await d.close();
    }
  });

  it('a reply altered on the way fails its signature check: the client uses nothing of it', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
    try {
      const client = new WinrmClient(target(d.port), AbortSignal.timeout(5000));
      d.tamperNextReply();
      await expect(client.run('hostname')).rejects.toThrow(
        /WinRM at http:\/\/127\.0\.0\.1:\d+\/wsman: the host's reply fails its NTLM signature check/,
      );
      expect(d.requests.map((q) => q.action)).toEqual([ACTIONS.create]);
      // the next command authenticates a fresh connection and works
      expect((await client.run('hostname')).stdout).toBe('WIN-SRV01\r\n');
    } finally {
      await d.close();
    }
  });

  it('Basic: the host refuses it over HTTP (401), and the client sends it only to a pinned HTTPS certificate', async () => {
    const d = await startWsmanDouble({ username: 'Administrator', password: 'local-secret-1' });
    try {
      const basic = `Basic ${Buffer.from('Administrator:local-secret-1').toString('base64')}`;
      const r = await fetch(d.url, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/soap+xml;charset=UTF-8' },
        body: createShell(d.url).toString('utf8'),
      });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Negotiate');
      expect(d.authLog).toEqual(['refused: Basic over HTTP (AllowUnencrypted=false)']);
      expect(d.requests).toEqual([]);
      const signal = AbortSignal.timeout(1000);
      expect(() => new WinrmClient(target(d.port, { auth: 'basic' }), signal)).toThrow(/never sent over plain HTTP/);
      expect(() => new WinrmClient(target(d.port, { auth: 'basic', transport: 'https' }), signal)).toThrow(
        /sent only to the host's pinned certificate/,
      );
      expect(
        () => new WinrmClient(target(d.port, { auth: 'basic', transport: 'https', verifyPeer: async () => {} }), signal),
      ).not.toThrow();
      expect(d.connections).toBe(1); // only the fetch above
    } finally {
      await d.close();
    }
  });

  it('the shell resource URI travels inside the sealed body only', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm' });
    try {
      const c = await rawNtlm(d.port, account);
      const framed = sealedBody(c.security, createShell(d.url));
      c.close();
      expect(framed.includes(Buffer.from(CMD_SHELL_URI))).toBe(false);
      expect(framed.includes(Buffer.from('OriginalContent: type=application/soap+xml;charset=UTF-8;Length='))).toBe(true);
    } finally {
      await d.close();
    }
  });
});

describe('NTLM hardening: 128-bit keys, the MIC, the target name and the channel binding', () => {
  const client = (port: number, over: Partial<WinrmTarget> = {}) =>
    new WinrmClient(target(port, over), AbortSignal.timeout(5000));

  it('over HTTPS the handshake names HTTP/<host> and binds the certificate: a host with Extended Protection (Strict) accepts it', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm', tls: true });
    try {
      const r = await client(d.port, { transport: 'https', verifyTls: false, verifyPeer: async () => {} }).run('hostname');
      expect(r).toMatchObject({ exitCode: 0, stdout: 'WIN-SRV01\r\n' });
      expect(d.authLog).toEqual(['challenge', 'authenticated CORP\\svc-watchpost']);
      expect(d.requests.length).toBeGreaterThan(0);
      expect(d.requests.every((q) => !q.sealed)).toBe(true); // TLS protects them
    } finally {
      await d.close();
    }
  });

  it('a host that knows itself by another name refuses the target name (service binding)', async () => {
    const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm', spn: 'HTTP/win-srv01.corp.example' });
    try {
      await expect(client(d.port).run('hostname')).rejects.toThrow(/authentication refused \(HTTP 401\)/);
      expect(d.authLog).toEqual(['challenge', 'refused: target name HTTP/127.0.0.1 is not HTTP/win-srv01.corp.example']);
      expect(d.requests).toEqual([]);
    } finally {
      await d.close();
    }
  });

  it('a CHALLENGE without 128-bit keys or without a timestamp is refused before any AUTHENTICATE goes out', async () => {
    const cases: [{ key128?: boolean; timestamp?: boolean }, RegExp][] = [
      [{ key128: false }, /NTLM: the host grants only 40-bit NTLM session keys \(no NTLMSSP_NEGOTIATE_128 in its CHALLENGE\)/],
      [
        { timestamp: false },
        /NTLM: the host's CHALLENGE carries no timestamp \(MsvAvTimestamp; it offered AV pairs 2, 1, 4, 3\)/,
      ],
    ];
    for (const [ntlmChallenge, why] of cases) {
      const d = await startWsmanDouble({ username: USER, password: PASSWORD, auth: 'ntlm', ntlmChallenge });
      try {
        await expect(client(d.port).run('hostname')).rejects.toThrow(why);
        expect(d.authLog).toEqual(['challenge']);
        expect(d.seen.length).toBe(1); // the NEGOTIATE alone
      } finally {
        await d.close();
      }
    }
  });
});
