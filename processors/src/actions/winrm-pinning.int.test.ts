// WinRM over HTTPS sends credentials only to the host's pinned certificate (issue 21): API route ->
// actions worker -> the WS-Management double over TLS (self-signed, so the CA check is off and the pin
// is the only check). The first connection an admin started pins the certificate's SHA-256; a
// monitor's first action is refused; a host presenting another certificate is refused after the TLS
// handshake and before any request (no Authorization header reaches it), leaving a pending
// winrm_certificate change that an admin accepts in the host-changes API; then the action works.
// Over plain HTTP Basic is never sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { insertHost, startActionsWorker, startWsmanDouble, wsmanDoubleEnv, type WsmanDouble } from '@watchpost/testkit/actions';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'pin-Pa55word-1';

let h: ApiHarness;
let win: WsmanDouble;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let admin: string;
let monitor: string;
const ids = { adminFirst: 0, monitorFirst: 0 };

async function call(method: 'GET' | 'POST' | 'PUT', path: string, token = admin, payload?: object) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` }, payload });
  return { status: r.statusCode, body: r.json() };
}
const pinned = async (id: number) =>
  (await h.stores.pg.query<{ c: string | null }>('SELECT winrm_cert_sha256 AS c FROM hosts WHERE id = $1', [id])).rows[0]!.c;
const pendingCertChanges = async (hostId: number) =>
  (await call('GET', `/host-changes?kind=winrm_certificate&host_id=${hostId}`)).body.items as {
    id: number;
    proposed: { cert_sha256?: string };
    current: { cert_sha256?: string | null };
    status: string;
  }[];

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, tls: true });
  h = await createApiHarness('actions_winrm_pinning', {
    env: {
      SERVICE_WINRM_USERNAME: USER,
      SERVICE_WINRM_PASSWORD: PASSWORD,
      ...wsmanDoubleEnv(win),
      SERVICE_ACTION_TARGET_NETWORKS: '127.0.0.0/8',
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_ACTION_TIMEOUT_MS: '10000',
    },
  });
  worker = await startActionsWorker(h.config);
  await addUser(h, 'ada', 'admin');
  await addUser(h, 'max', 'monitor');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  monitor = (await login(h, 'max', 'pw-max-secret')).json().access_token;
  ids.adminFirst = await insertHost(h.stores.pg, {
    hostname: 'win-pin-a',
    product: 'rdp-login-monitor',
    version: '3.0.0',
    address: '127.0.0.1',
  });
  ids.monitorFirst = await insertHost(h.stores.pg, {
    hostname: 'win-pin-m',
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

describe('WinRM certificate pinning', () => {
  it("a monitor's first action is refused after the handshake, before any request; the certificate awaits an admin", async () => {
    const r = await call('POST', `/hosts/${ids.monitorFirst}/actions/winrm-test`, monitor);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringMatching(
        new RegExp(
          `^WinRM on win-pin-m: the host's certificate \\(SHA-256 ${win.certSha256}\\) is not yet approved by an admin, so no credentials were sent`,
        ),
      ),
    });
    expect(win.connections).toBeGreaterThan(0); // the TLS handshake happened
    expect(win.seen).toEqual([]); // no request, so no Authorization header
    expect(await pinned(ids.monitorFirst)).toBeNull();
    expect(await pendingCertChanges(ids.monitorFirst)).toEqual([
      expect.objectContaining({ status: 'pending', proposed: { cert_sha256: win.certSha256 }, current: { cert_sha256: null } }),
    ]);
  });

  it("an admin's first action pins the certificate; later actions (a monitor's too) pass the pin", async () => {
    const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({ ok: true, endpoint: win.url, remote_hostname: 'WIN-SRV01' });
    expect(await pinned(ids.adminFirst)).toBe(win.certSha256);
    expect(win.seen.every((q) => q.authorization?.startsWith('Basic '))).toBe(true);
    const byMonitor = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`, monitor);
    expect(byMonitor.status, JSON.stringify(byMonitor.body)).toBe(200);
    expect(await pendingCertChanges(ids.adminFirst)).toEqual([]);
  });

  it('another certificate is refused before any Authorization header reaches the host; a pending change appears', async () => {
    const old = win.certSha256!;
    const next = await win.rotateCertificate();
    win.seen.length = 0;
    const connectionsBefore = win.connections;
    for (const token of [admin, monitor]) {
      const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`, token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(
        `WinRM on win-pin-a: the host presented a certificate (SHA-256 ${next}) other than the pinned one (${old}), so no credentials were sent; if the host really has a new certificate, an admin accepts the pending certificate change of the host`,
      );
    }
    expect(win.connections).toBeGreaterThan(connectionsBefore);
    expect(win.seen).toEqual([]);
    expect(await pinned(ids.adminFirst)).toBe(old); // an admin's action does not re-pin a changed certificate
    const changes = await pendingCertChanges(ids.adminFirst);
    expect(changes).toEqual([
      expect.objectContaining({ status: 'pending', proposed: { cert_sha256: next }, current: { cert_sha256: old } }),
    ]);
  });

  it('accepted by an admin in the host-changes API, the new certificate works', async () => {
    const [change] = await pendingCertChanges(ids.adminFirst);
    expect((await call('POST', `/host-changes/${change!.id}/accept`, monitor)).status).toBe(403);
    const acc = await call('POST', `/host-changes/${change!.id}/accept`);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(await pinned(ids.adminFirst)).toBe(win.certSha256);
    const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`, monitor);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(win.seen.at(-1)?.authorization).toMatch(/^Basic /);
  });

  it('over plain HTTP Basic is never sent, allowed or not', async () => {
    const put = await call('PUT', '/settings/winrm', admin, { transport: 'http', allow_unencrypted: true });
    expect(put.status).toBe(200);
    win.seen.length = 0;
    const connectionsBefore = win.connections;
    try {
      const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/WinRM Basic authentication over HTTP would send the administrator password/);
      expect(win.connections).toBe(connectionsBefore);
      expect(win.seen).toEqual([]);
    } finally {
      await call('PUT', '/settings/winrm', admin, { transport: 'https', allow_unencrypted: false });
    }
  });
});
