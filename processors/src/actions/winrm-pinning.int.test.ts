// WinRM over HTTPS sends credentials only to a certificate an admin accepted or the operator's CA issued
// (issues 21 and 33): API route -> actions worker -> the WS-Management double over TLS (self-signed, so
// the public CA check is off). No action pins a certificate: the first one, like any other, is refused
// after the TLS handshake and before any request (no Authorization header reaches it), leaving a pending
// winrm_certificate change with its fingerprint, subject, issuer and validity that an admin accepts in
// the host-changes API; then the action works. A host no admin confirmed gets no connection at all.
// Over plain HTTP Basic is never sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startRemoteActionScenario,
  startWsmanDouble,
  type RemoteActionScenario,
  type WsmanDouble,
} from '@watchpost/testkit/actions';

const USER = 'CORP\\svc-watchpost';
const PASSWORD = 'pin-Pa55word-1';

let s: RemoteActionScenario;
let win: WsmanDouble;
const ids = { adminFirst: 0, monitorFirst: 0 };

const call: RemoteActionScenario['call'] = (...args) => s.call(...args);
const pinned = async (id: number) =>
  (await s.h.stores.pg.query<{ c: string | null }>('SELECT winrm_cert_sha256 AS c FROM hosts WHERE id = $1', [id])).rows[0]!.c;
const pendingCertChanges = async (hostId: number) =>
  (await call('GET', `/host-changes?kind=winrm_certificate&host_id=${hostId}`)).body.items as {
    id: number;
    proposed: { cert_sha256?: string };
    current: { cert_sha256?: string | null };
    status: string;
  }[];

beforeAll(async () => {
  win = await startWsmanDouble({ username: USER, password: PASSWORD, tls: true });
  s = await startRemoteActionScenario('actions_winrm_pinning', {
    winrm: { double: win, username: USER, password: PASSWORD },
    env: { SERVICE_ACTION_TIMEOUT_MS: '10000' },
  });
  ids.adminFirst = await s.windowsHost('win-pin-a');
  ids.monitorFirst = await s.windowsHost('win-pin-m');
});

afterAll(async () => {
  await s?.close();
  await win?.close();
});

describe('WinRM certificate pinning', () => {
  it("an action, an admin's included, is refused after the handshake and before any request; the certificate awaits acceptance", async () => {
    expect((await call('POST', `/hosts/${ids.monitorFirst}/actions/winrm-test`, s.monitor)).status).toBe(403); // admin only
    for (const id of [ids.monitorFirst, ids.adminFirst]) {
      const r = await call('POST', `/hosts/${id}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'ACTION_FAILED',
        message: expect.stringMatching(
          new RegExp(
            `^WinRM on win-pin-[am]: the host's certificate \\(SHA-256 ${win.certSha256}, subject CN=127\\.0\\.0\\.1, issuer CN=127\\.0\\.0\\.1\\) is not yet accepted by an admin, so no credentials were sent`,
          ),
        ),
      });
      expect(await pinned(id)).toBeNull(); // never pinned as a side effect of an action (issue 33)
      // What the admin compares before accepting: the fingerprint, subject, issuer and validity.
      expect(await pendingCertChanges(id)).toEqual([
        expect.objectContaining({
          status: 'pending',
          proposed: {
            cert_sha256: win.certSha256,
            cert_subject: 'CN=127.0.0.1',
            cert_issuer: 'CN=127.0.0.1',
            cert_valid_from: expect.stringMatching(/GMT$/),
            cert_valid_to: expect.stringMatching(/GMT$/),
          },
          current: { cert_sha256: null },
        }),
      ]);
    }
    expect(win.connections).toBeGreaterThan(0); // the TLS handshake happened
    expect(win.seen).toEqual([]); // no request, so no Authorization header
  });

  it('accepted by an admin in the host-changes API, the certificate is pinned and the action works', async () => {
    const [change] = await pendingCertChanges(ids.adminFirst);
    expect((await call('POST', `/host-changes/${change!.id}/accept`, s.monitor)).status).toBe(403);
    expect((await call('POST', `/host-changes/${change!.id}/accept`)).status).toBe(200);
    const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({ ok: true, endpoint: win.url, remote_hostname: 'WIN-SRV01' });
    expect(await pinned(ids.adminFirst)).toBe(win.certSha256);
    expect(win.seen.every((q) => q.authorization?.startsWith('Basic '))).toBe(true);
    expect(await pendingCertChanges(ids.adminFirst)).toEqual([]);
  });

  it('another certificate is refused before any Authorization header reaches the host; a pending change appears', async () => {
    const old = win.certSha256!;
    const next = await win.rotateCertificate();
    win.seen.length = 0;
    const connectionsBefore = win.connections;
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(
        `WinRM on win-pin-a: the host presented a certificate (SHA-256 ${next}) other than the accepted one (${old}), so no credentials were sent; if the host really has a new certificate, an admin accepts the host's pending certificate change (Hosts → Pending changes)`,
      );
    }
    expect(win.connections).toBeGreaterThan(connectionsBefore);
    expect(win.seen).toEqual([]);
    expect(await pinned(ids.adminFirst)).toBe(old); // an admin's action does not re-pin a changed certificate
    const changes = await pendingCertChanges(ids.adminFirst);
    expect(changes).toEqual([
      expect.objectContaining({
        status: 'pending',
        proposed: expect.objectContaining({ cert_sha256: next }),
        current: { cert_sha256: old },
      }),
    ]);
  });

  it('accepted by an admin in the host-changes API, the new certificate works', async () => {
    const [change] = await pendingCertChanges(ids.adminFirst);
    expect((await call('POST', `/host-changes/${change!.id}/accept`, s.monitor)).status).toBe(403);
    const acc = await call('POST', `/host-changes/${change!.id}/accept`);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(await pinned(ids.adminFirst)).toBe(win.certSha256);
    const r = await call('POST', `/hosts/${ids.adminFirst}/actions/winrm-test`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(win.seen.at(-1)?.authorization).toMatch(/^Basic /);
  });

  it('a host no admin has confirmed gets no connection at all, whatever its certificate', async () => {
    const unconfirmed = await s.windowsHost('win-new', { confirmed: false });
    await s.h.stores.pg.query('UPDATE hosts SET winrm_cert_sha256 = $2 WHERE id = $1', [unconfirmed, win.certSha256]);
    const before = win.connections;
    const r = await call('POST', `/hosts/${unconfirmed}/actions/winrm-test`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(
      'host win-new is not confirmed: an admin has not yet accepted its addresses (Hosts → Pending changes), so no credentials were sent to it',
    );
    expect(win.connections).toBe(before);
  });

  it("with the operator's CA (SERVICE_WINRM_CA_FILE), a certificate it issued for the host passes without a pin", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchpost-winrm-ca-'));
    writeFileSync(join(dir, 'ca.pem'), win.certPem!);
    const onCa = await s.windowsHost('win-ca');
    await s.stopWorker();
    const actions = { ...s.h.config.actions, winrm: { ...s.h.config.actions.winrm, caFile: join(dir, 'ca.pem') } };
    await s.startWorker({ ...s.h.config, actions });
    try {
      const r = await call('POST', `/hosts/${onCa}/actions/winrm-test`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await pinned(onCa)).toBeNull();
      expect(await pendingCertChanges(onCa)).toEqual([]);
      // A certificate the CA did not issue falls back to the pin: refused, and left for an admin.
      const other = await win.rotateCertificate();
      const refused = await call('POST', `/hosts/${onCa}/actions/winrm-test`);
      expect(refused.status).toBe(400);
      expect(await pendingCertChanges(onCa)).toEqual([
        expect.objectContaining({ proposed: expect.objectContaining({ cert_sha256: other }) }),
      ]);
    } finally {
      await s.stopWorker();
      await s.startWorker();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('over plain HTTP Basic is never sent, allowed or not', async () => {
    const put = await call('PUT', '/settings/winrm', s.admin, { transport: 'http', allow_unencrypted: true });
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
      await call('PUT', '/settings/winrm', s.admin, { transport: 'https', allow_unencrypted: false });
    }
  });
});
