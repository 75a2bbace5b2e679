// SSH actions end to end: API route -> actions queue -> actions worker -> a real OpenSSH server (Debian's
// sshd on a loopback port, its own host key and the test's authorized key, logged into as an
// unprivileged user with the documented sudo rule) -> the actions row, the
// audit log and the hosts row. The "managed host" is this machine, so the updater goes to a temporary
// prefix (SERVICE_AGENT_UPDATER_PATH) and the agent repository is a local bare repository.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestGitRepo,
  SSH_TEST_USER,
  startRemoteActionScenario,
  startTestSshd,
  type RemoteActionScenario,
  type TestGitRepo,
  type TestSshd,
} from '@watchpost/testkit/actions';

let s: RemoteActionScenario;
let sshd: TestSshd;
let repo: TestGitRepo;
let hostId: number;
let prefix: string;
const SUDOERS_PATH = `/etc/sudoers.d/${SSH_TEST_USER}`;

const installSh = { content: '#!/bin/sh\nset -e\necho "installed from $(pwd)" > ../../install-marker\n', mode: 0o755 };

const call: RemoteActionScenario['call'] = (...args) => s.call(...args);

beforeAll(async () => {
  prefix = mkdtempSync(join(tmpdir(), 'watchpost-prefix-'));
  chmodSync(prefix, 0o755); // the service user looks for the updater there before using sudo
  const updaterPath = join(prefix, 'sbin', 'watchpost-agent-update');
  // An unprivileged service user with the sudo rule api/ACTIONS.md gives operators (paths of this test).
  sshd = await startTestSshd({
    serviceUser: {
      sudoCommands: [
        '/usr/bin/true',
        updaterPath,
        `/usr/bin/tee ${updaterPath}`,
        `/usr/bin/mkdir -p ${join(prefix, 'sbin')}`,
        `/usr/bin/chmod 0755 ${updaterPath}`,
      ],
    },
  });
  repo = createTestGitRepo();
  repo.commit({ 'install.sh': installSh, README: 'agent 1.2.0\n' }, { tag: 'v1.2.0' });
  s = await startRemoteActionScenario('actions_ssh', {
    ssh: sshd,
    env: {
      SERVICE_AGENT_UPDATER_PATH: updaterPath,
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
      SERVICE_AGENT_UPDATE_LINUX_GIT_URL: repo.url,
      SERVICE_AGENT_UPDATE_LINUX_BRANCH: 'main',
      SERVICE_ACTION_TIMEOUT_MS: '20000',
    },
  });
  hostId = await s.linuxHost('lnx-01');
});

afterAll(async () => {
  await s?.close();
  await sshd?.close();
  repo?.close();
  if (prefix) rmSync(prefix, { recursive: true, force: true });
});

describe('SSH administration check', () => {
  it('connects as the service user, finds its sudo rule, persists ssh_admin_ok and pins the host key; recorded in actions and audit', async () => {
    const before = await s.h.stores.pg.query('SELECT ssh_admin_ok FROM hosts WHERE id = $1', [hostId]);
    expect(before.rows[0].ssh_admin_ok).toBe(false);
    const r = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ kind: 'ssh.check', status: 'succeeded', actor: 'ada', hostname: 'lnx-01' });
    expect(r.body.result).toMatchObject({ ssh_admin_ok: true, via: 'sudo' });
    expect(r.body.duration_ms).toBeGreaterThanOrEqual(0);
    const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(sshd.dir, 'host_ed25519.pub')], {
      encoding: 'utf8',
    });
    const expectedB64 = /SHA256:(\S+)/.exec(fingerprint)![1];
    expect(Buffer.from(r.body.result.host_key_sha256, 'hex').toString('base64').replace(/=+$/, '')).toBe(expectedB64);
    const host = await s.h.stores.pg.query(
      'SELECT ssh_admin_ok, ssh_admin_checked_at, ssh_host_key_sha256 FROM hosts WHERE id = $1',
      [hostId],
    );
    expect(host.rows[0]).toMatchObject({ ssh_admin_ok: true, ssh_host_key_sha256: r.body.result.host_key_sha256 });
    expect(host.rows[0].ssh_admin_checked_at).not.toBeNull();
    const audit = await s.h.stores.pg.query("SELECT actor, target, details FROM audit_log WHERE action = 'action.ssh.check'");
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]).toMatchObject({
      actor: 'ada',
      target: 'lnx-01',
      details: { action_id: r.body.id, status: 'succeeded', result: { ssh_admin_ok: true, via: 'sudo' } },
    });
    const listed = await call('GET', `/actions?host_id=${hostId}`, s.monitor);
    expect(listed.body.items.map((a: { id: number }) => a.id)).toContain(r.body.id);
  });

  it('a user without the sudo rule is not administrable: ssh_admin_ok false', async () => {
    const rule = readFileSync(SUDOERS_PATH, 'utf8');
    rmSync(SUDOERS_PATH);
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.result).toMatchObject({ ssh_admin_ok: false, via: null });
      expect((await s.h.stores.pg.query('SELECT ssh_admin_ok FROM hosts WHERE id = $1', [hostId])).rows[0].ssh_admin_ok).toBe(
        false,
      );
    } finally {
      writeFileSync(SUDOERS_PATH, rule, { mode: 0o440 });
    }
    expect((await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`)).body.result).toMatchObject({
      ssh_admin_ok: true,
    });
  });

  it('is for admins only', async () => {
    expect((await call('POST', `/hosts/${hostId}/actions/ssh-check`, s.monitor)).status).toBe(403);
  });

  it('queued by default: 202, then the status to poll', async () => {
    const r = await call('POST', `/hosts/${hostId}/actions/ssh-check`);
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('queued');
    expect(await s.waitForAction(r.body.id)).toMatchObject({ status: 'succeeded', result: { ssh_admin_ok: true } });
  });

  it('a changed host key is refused with 400 and the reason', async () => {
    const pinned = await s.h.stores.pg.query('SELECT ssh_host_key_sha256 FROM hosts WHERE id = $1', [hostId]);
    await s.h.stores.pg.query("UPDATE hosts SET ssh_host_key_sha256 = 'deadbeef' WHERE id = $1", [hostId]);
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('ACTION_FAILED');
      expect(r.body.error.message).toMatch(/host key changed/);
      const host = await s.h.stores.pg.query('SELECT ssh_admin_ok FROM hosts WHERE id = $1', [hostId]);
      expect(host.rows[0].ssh_admin_ok).toBe(false);
      expect((await call('GET', `/actions/${r.body.error.details.action_id}`)).body.status).toBe('failed');
    } finally {
      await s.h.stores.pg.query('UPDATE hosts SET ssh_host_key_sha256 = $2 WHERE id = $1', [
        hostId,
        pinned.rows[0].ssh_host_key_sha256,
      ]);
    }
  });
});

describe('Linux agent update over SSH', () => {
  const updater = () => join(prefix, 'sbin', 'watchpost-agent-update');

  it('installs the missing updater, passes the git URL and branch, reads the version back', async () => {
    expect(existsSync(updater())).toBe(false);
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update`);
    expect(r.status).toBe(202);
    const done = await s.waitForAction(r.body.id);
    expect(done.status, done.error).toBe('succeeded');
    expect(done.result).toMatchObject({
      agent: 'linux',
      installed_updater: true,
      version: '1.2.0',
      git_url: repo.url,
      branch: 'main',
    });
    expect(existsSync(updater())).toBe(true);
    expect(readFileSync(join(prefix, 'lib', 'watchpost-agent', 'ssh-monitor', 'VERSION'), 'utf8').trim()).toBe('1.2.0');
    expect(readFileSync(join(prefix, 'lib', 'watchpost-agent', 'install-marker'), 'utf8')).toMatch(/installed from/);
    const host = await s.h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(host.rows[0].product_version).toBe('1.2.0');
  });

  it('a second update keeps the updater and moves to the new tag', async () => {
    repo.commit({ README: 'agent 1.3.0\n' }, { tag: 'v1.3.0' });
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toMatchObject({ installed_updater: false, previous_version: '1.2.0', version: '1.3.0' });
  });

  it('a failing command on the host is answered 400 with its exit code and stderr', async () => {
    const put = await call('PUT', '/settings/agent-updates', s.admin, { linux: { branch: 'no-such-branch' } });
    expect(put.status).toBe(200);
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('ACTION_FAILED');
      expect(r.body.error.message).toMatch(/the agent update failed with exit code \d+: .*no-such-branch/);
      const a = (await call('GET', `/actions/${r.body.error.details.action_id}`)).body;
      expect(a).toMatchObject({ status: 'failed', kind: 'agent.update' });
      expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    } finally {
      await call('PUT', '/settings/agent-updates', s.admin, { linux: { branch: 'main' } });
    }
  });

  const adminOk = async () =>
    (await s.h.stores.pg.query<{ ssh_admin_ok: boolean }>('SELECT ssh_admin_ok FROM hosts WHERE id = $1', [hostId])).rows[0]!;

  it('a key the server does not accept is answered 400 (database setting over environment, stored encrypted)', async () => {
    expect((await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`)).status).toBe(200);
    expect((await adminOk()).ssh_admin_ok).toBe(true);
    const other = mkdtempSync(join(tmpdir(), 'watchpost-key-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(other, 'k')]);
    const key = readFileSync(join(other, 'k'), 'utf8');
    rmSync(other, { recursive: true, force: true });
    const put = await call('PUT', '/settings/ssh', s.admin, { private_key: key });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ username: sshd.username, private_key_set: true, private_key_source: 'database', port: sshd.port });
    const stored = await s.h.stores.pg.query("SELECT value::text AS v FROM settings WHERE key = 'actions.ssh'");
    expect(stored.rows[0].v).not.toContain('PRIVATE KEY');
    try {
      const r = await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/authentication refused/);
      // The host no longer lets the service in: no longer shown as administrable.
      expect((await adminOk()).ssh_admin_ok).toBe(false);
    } finally {
      await call('PUT', '/settings/ssh', s.admin, { private_key: null });
    }
    expect((await call('POST', `/hosts/${hostId}/actions/ssh-check?wait=true`)).status).toBe(200);
    expect((await adminOk()).ssh_admin_ok).toBe(true);
  });
});
