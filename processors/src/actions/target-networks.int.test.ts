// Remote actions connect only inside the admin's target networks (issue 21): API route -> actions
// worker -> a real OpenSSH server and the WS-Management double (HTTPS), both on loopback. Without
// networks nothing is queued; a host whose confirmed address (an IP or a name resolved by the worker)
// lies outside them, or on loopback without 127.0.0.0/8 listed, is refused before any connection
// reaches the server; listed, the action runs. The API cannot widen the list to every address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startRemoteActionScenario,
  startTestSshd,
  startWsmanDouble,
  type RemoteActionScenario,
  type TestSshd,
  type WsmanDouble,
} from '@watchpost/testkit/actions';

const WIN_USER = 'Administrator';
const WIN_PASSWORD = 'target-net-pw-1';

let s: RemoteActionScenario;
let sshd: TestSshd;
let win: WsmanDouble;
const ids = { lin: 0, linByName: 0, win: 0 };

const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, token = s.admin) =>
  s.call(method, path, token, payload);
const setNetworks = (networks: string[] | null) => call('PUT', '/settings/target-networks', { networks });

beforeAll(async () => {
  sshd = await startTestSshd();
  win = await startWsmanDouble({ username: WIN_USER, password: WIN_PASSWORD, tls: true });
  s = await startRemoteActionScenario('actions_target_networks', {
    ssh: sshd,
    winrm: { double: win, username: WIN_USER, password: WIN_PASSWORD },
    targetNetworks: null, // none set: what the first test checks
    env: { SERVICE_ACTION_TIMEOUT_MS: '20000' },
  });
  ids.lin = await s.linuxHost('lnx-loop');
  // A confirmed address that is a DNS name: the worker resolves it (localhost -> 127.0.0.1).
  ids.linByName = await s.linuxHost('lnx-name', { address: 'localhost' });
  ids.win = await s.windowsHost('win-loop', { winrmCertSha256: win.certSha256 }); // accepted by an admin (issue 33)
}, 60_000);

afterAll(async () => {
  await s?.close();
  await sshd?.close();
  await win?.close();
});

describe('target networks of remote actions', () => {
  it('none set: every host action is ACTION_NOT_POSSIBLE, nothing is queued and nothing connects', async () => {
    expect((await call('GET', '/settings/target-networks')).body).toEqual({ networks: [], source: null, environment: [] });
    const sshBefore = sshd.connections();
    for (const path of [`/hosts/${ids.lin}/actions/ssh-check?wait=true`, `/hosts/${ids.win}/actions/winrm-test`]) {
      const r = await call('POST', path);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'ACTION_NOT_POSSIBLE',
        message: expect.stringMatching(/no target networks are set.*Settings → Remote access/),
      });
    }
    expect((await s.h.stores.pg.query('SELECT count(*)::int AS n FROM actions')).rows[0].n).toBe(0);
    expect(sshd.connections()).toBe(sshBefore);
    expect(win.connections).toBe(0);
  });

  it('the API refuses what is not a network and every-address lists; only admins set them', async () => {
    expect((await call('PUT', '/settings/target-networks', { networks: ['10.0.0.0/8'] }, s.monitor)).status).toBe(403);
    expect((await call('GET', '/settings/target-networks', undefined, s.monitor)).status).toBe(403);
    for (const [networks, why] of [
      [['0.0.0.0/0'], /"0\.0\.0\.0\/0" would let remote actions connect to every address/],
      [['10.0.0.0/8', '::/0'], /"::\/0" would let remote actions connect to every address/],
      [['corp.example'], /"corp\.example" is not a network/],
      [['10.0.0.0/40'], /"10\.0\.0\.0\/40" is not a network/],
    ] as const) {
      const r = await setNetworks([...networks]);
      expect(r.status, networks.join()).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(why) });
    }
    expect((await call('GET', '/settings/target-networks')).body.networks).toEqual([]);
  });

  it('a loopback address outside the networks is refused before anything connects (SSH and WinRM)', async () => {
    const put = await setNetworks(['10.0.0.0/8', ' 10.0.0.0/8 ']);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ networks: ['10.0.0.0/8'], source: 'database', environment: [] });
    const sshBefore = sshd.connections();
    const ssh = await call('POST', `/hosts/${ids.lin}/actions/ssh-check?wait=true`);
    expect(ssh.status).toBe(400);
    expect(ssh.body.error).toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringMatching(
        /^host lnx-loop: 127\.0\.0\.1 lies outside the target networks \(10\.0\.0\.0\/8\): nothing was sent/,
      ),
    });
    const winrm = await call('POST', `/hosts/${ids.win}/actions/winrm-test`);
    expect(winrm.status).toBe(400);
    expect(winrm.body.error.message).toMatch(/^host win-loop: 127\.0\.0\.1 lies outside the target networks/);
    expect(sshd.connections()).toBe(sshBefore);
    expect(win.connections).toBe(0);
    expect(win.seen).toEqual([]);
  });

  it('a name resolving outside the networks is refused, naming what it resolved to', async () => {
    const sshBefore = sshd.connections();
    const r = await call('POST', `/hosts/${ids.linByName}/actions/ssh-check?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /^host lnx-name: localhost resolves to 127\.0\.0\.1, which lies outside the target networks/,
    );
    expect(sshd.connections()).toBe(sshBefore);
  });

  it('loopback inside a wide network is still refused unless a network inside 127.0.0.0/8 is listed', async () => {
    expect((await setNetworks(['0.0.0.0/1'])).status).toBe(200);
    const sshBefore = sshd.connections();
    const r = await call('POST', `/hosts/${ids.lin}/actions/ssh-check?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /127\.0\.0\.1 is a loopback address, allowed only when a target network lists it explicitly/,
    );
    expect(sshd.connections()).toBe(sshBefore);
  });

  it('listed, the actions run: SSH by address and by name, WinRM over HTTPS', async () => {
    expect((await setNetworks(['10.0.0.0/8', '127.0.0.0/8'])).status).toBe(200);
    const sshBefore = sshd.connections();
    const ssh = await call('POST', `/hosts/${ids.lin}/actions/ssh-check?wait=true`);
    expect(ssh.status, JSON.stringify(ssh.body)).toBe(200);
    expect(ssh.body.result).toMatchObject({ ssh_admin_ok: true });
    const byName = await call('POST', `/hosts/${ids.linByName}/actions/ssh-check?wait=true`);
    expect(byName.status, JSON.stringify(byName.body)).toBe(200);
    expect(sshd.connections()).toBeGreaterThanOrEqual(sshBefore + 2);
    const winrm = await call('POST', `/hosts/${ids.win}/actions/winrm-test`);
    expect(winrm.status, JSON.stringify(winrm.body)).toBe(200);
    expect(winrm.body.result).toMatchObject({ ok: true, remote_hostname: 'WIN-SRV01' });
    const audit = await s.h.stores.pg.query(
      "SELECT actor, details FROM audit_log WHERE action = 'setting.target_networks' ORDER BY id",
    );
    expect(audit.rows.at(-1)).toMatchObject({ actor: 'ada', details: { networks: ['10.0.0.0/8', '127.0.0.0/8'] } });
  });

  it('removing the saved list falls back to the environment (none here): nothing connects again', async () => {
    const r = await setNetworks(null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ networks: [], source: null, environment: [] });
    const again = await call('POST', `/hosts/${ids.lin}/actions/ssh-check?wait=true`);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('ACTION_NOT_POSSIBLE');
  });
});
