// A reinstalled Linux host, end to end on two real OpenSSH servers (testkit/src/sshd.ts) at the same
// address: the first pins its key; "reinstalling" (the service now reaches the second server, another
// host key) makes SSH actions fail before any command runs; an admin resets the pinned key (audited,
// admins only) and the next SSH action succeeds and pins the new key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { insertHost, startActionsWorker, startTestSshd, type TestSshd } from '@watchpost/testkit/actions';

let h: ApiHarness;
let before: TestSshd;
let after: TestSshd;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let admin: string;
let monitor: string;
let hostId: number;

async function call(method: 'GET' | 'POST' | 'PUT', path: string, token = admin, payload?: object) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` }, payload });
  return { status: r.statusCode, body: r.json() };
}
const pinned = async () =>
  (await h.stores.pg.query('SELECT ssh_host_key_sha256 FROM hosts WHERE id = $1', [hostId])).rows[0].ssh_host_key_sha256 as
    string | null;

beforeAll(async () => {
  before = await startTestSshd();
  after = await startTestSshd();
  // The reinstalled host still trusts the service's key: only its own host key is new.
  appendFileSync(join(after.dir, 'authorized_keys'), readFileSync(join(before.dir, 'client_ed25519.pub')));
  h = await createApiHarness('actions_ssh_key_reset', {
    env: {
      SERVICE_SSH_USERNAME: before.username,
      SERVICE_SSH_PORT: String(before.port),
      SERVICE_SSH_PRIVATE_KEY_FILE: before.privateKeyFile,
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_ACTION_TIMEOUT_MS: '20000',
      SERVICE_ACTION_TARGET_NETWORKS: '127.0.0.0/8',
    },
  });
  worker = await startActionsWorker(h.config);
  await addUser(h, 'ada', 'admin');
  await addUser(h, 'max', 'monitor');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  monitor = (await login(h, 'max', 'pw-max-secret')).json().access_token;
  hostId = await insertHost(h.stores.pg, { hostname: 'lnx-re', product: 'ssh-monitor', version: '1.0.0', address: '127.0.0.1' });
});

afterAll(async () => {
  await worker?.close();
  await h?.close();
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
    expect((await call('PUT', '/settings/ssh', admin, { port: after.port })).status).toBe(200);
    const refused = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/host key changed/);
    expect(await pinned()).toBe(oldKey);

    // Admins only.
    const byMonitor = await call('POST', `/hosts/${hostId}/ssh-host-key/reset`, monitor);
    expect(byMonitor.status).toBe(403);
    expect(await pinned()).toBe(oldKey);
    expect((await call('POST', '/hosts/999999/ssh-host-key/reset')).status).toBe(404);

    const reset = await call('POST', `/hosts/${hostId}/ssh-host-key/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ id: hostId, hostname: 'lnx-re', previous_sha256: oldKey });
    expect(await pinned()).toBeNull();
    const audit = await h.stores.pg.query(
      "SELECT actor, target, details FROM audit_log WHERE action = 'host.ssh_host_key.reset'",
    );
    expect(audit.rows).toEqual([{ actor: 'ada', target: 'lnx-re', details: { id: hostId, previous_sha256: oldKey } }]);

    const again = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const newKey = again.body.result.host_key_sha256 as string;
    expect(newKey).not.toBe(oldKey);
    expect(await pinned()).toBe(newKey);

    // The new key is pinned in turn: the old server (the old key) is now the stranger.
    expect((await call('PUT', '/settings/ssh', admin, { port: before.port })).status).toBe(200);
    const stranger = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.message).toMatch(/host key changed/);
  });
});
