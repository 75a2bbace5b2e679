// A reinstalled Linux host, end to end on two real OpenSSH servers (testkit/src/sshd.ts) at the same
// address: the first pins its key; "reinstalling" (the service now reaches the second server, another
// host key) makes SSH actions fail before any command runs; an admin resets the pinned key (audited,
// admins only) and the next SSH action succeeds and pins the new key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRemoteActionScenario, startTestSshd, type RemoteActionScenario, type TestSshd } from '@watchpost/testkit/actions';

let s: RemoteActionScenario;
let before: TestSshd;
let after: TestSshd;
let hostId: number;

const call: RemoteActionScenario['call'] = (...args) => s.call(...args);
const pinned = async () =>
  (await s.h.stores.pg.query('SELECT ssh_host_key_sha256 FROM hosts WHERE id = $1', [hostId])).rows[0].ssh_host_key_sha256 as
    string | null;

beforeAll(async () => {
  before = await startTestSshd();
  after = await startTestSshd();
  // The reinstalled host still trusts the service's key: only its own host key is new.
  appendFileSync(join(after.dir, 'authorized_keys'), readFileSync(join(before.dir, 'client_ed25519.pub')));
  s = await startRemoteActionScenario('actions_ssh_key_reset', { ssh: before, env: { SERVICE_ACTION_TIMEOUT_MS: '20000' } });
  hostId = await s.linuxHost('lnx-re');
});

afterAll(async () => {
  await s?.close();
  await before?.close();
  await after?.close();
});

describe('POST /api/v1/hosts/{id}/ssh-host-key/reset', () => {
  it('a reinstalled host is refused until an admin resets its pinned key; then the new key is pinned', async () => {
    const first = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const oldKey = first.body.result.host_key_sha256 as string;
    expect(await pinned()).toBe(oldKey);

    // The host is reinstalled: same address and user, a new host key.
    expect((await call('PUT', '/settings/ssh', s.admin, { port: after.port })).status).toBe(200);
    const refused = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/host key changed/);
    expect(await pinned()).toBe(oldKey);

    // Admins only.
    const byMonitor = await call('POST', `/hosts/${hostId}/ssh-host-key/reset`, s.monitor);
    expect(byMonitor.status).toBe(403);
    expect(await pinned()).toBe(oldKey);
    expect((await call('POST', '/hosts/999999/ssh-host-key/reset')).status).toBe(404);

    const reset = await call('POST', `/hosts/${hostId}/ssh-host-key/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ id: hostId, hostname: 'lnx-re', previous_sha256: oldKey });
    expect(await pinned()).toBeNull();
    const audit = await s.h.stores.pg.query(
      "SELECT actor, target, details FROM audit_log WHERE action = 'host.ssh_host_key.reset'",
    );
    expect(audit.rows).toEqual([{ actor: 'ada', target: 'lnx-re', details: { id: hostId, previous_sha256: oldKey } }]);

    const again = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const newKey = again.body.result.host_key_sha256 as string;
    expect(newKey).not.toBe(oldKey);
    expect(await pinned()).toBe(newKey);

    // The new key is pinned in turn: the old server (the old key) is now the stranger.
    expect((await call('PUT', '/settings/ssh', s.admin, { port: before.port })).status).toBe(200);
    const stranger = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.message).toMatch(/host key changed/);
  });
});
