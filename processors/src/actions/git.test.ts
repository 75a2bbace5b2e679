// The latest agent version as the agent repositories state it, read with real git from local bare
// repositories (file:// URLs): version.txt at the branch head (rdp-login-monitor has no tags), the
// script's version variable (ssh-monitor: SSH_MONITOR_VERSION, newer than its only tag), tags last.
// The Linux updater script computes the same version on a checkout.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRdpAgentRepo, createTestGitRepo, rdpAgentFiles, type TestGitRepo } from '@watchpost/testkit/actions';
import { loadConfig } from '@watchpost/runtime';
import { cloneAtRef, gitAllow, pinnedConnection, readLatestVersion, refKind, runGit } from './git.ts';
import { installedCommit } from './handlers/agent-update.ts';
import { isPowerShellFile, withUtf8Bom } from './bundle.ts';
import { LINUX_UPDATER_SCRIPT } from './linux-updater.ts';

const repos: TestGitRepo[] = [];
const opts = { allowFile: true, timeoutMs: 20_000 };
afterAll(() => repos.forEach((r) => r.close()));
const track = (r: TestGitRepo) => (repos.push(r), r);
const headOf = (repo: TestGitRepo, ref = 'main') =>
  execFileSync('git', ['--git-dir', repo.bare, 'rev-parse', `${ref}^{commit}`], { encoding: 'utf8' }).trim();

// ssh-monitor as PTah/ssh-monitor ships it: the version in the script (line 10 of `ssh-monitor`), one
// older tag v1.0.0.
const sshMonitor = (version: string) =>
  `#!/bin/bash\nset -Eeuo pipefail\nCONFIG_FILE="/etc/ssh-monitor.conf"\nSSH_MONITOR_VERSION="${version}"\n`;

describe('latest version of a repository', () => {
  it('rdp-login-monitor: the $ScriptVersion the agent reports, at the branch head, no tags; version.txt when the script states none', async () => {
    const repo = track(createRdpAgentRepo('2.1.7-SAC'));
    const r = await readLatestVersion(repo.url, 'main', opts);
    expect(r).toMatchObject({ version: '2.1.7-SAC', source: 'Login_Monitor.ps1', tags: [] });
    expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    // version.txt running ahead (a hotfix label) is not what the agent will report (issue 31).
    repo.commit({ 'version.txt': '2.1.7.1\r\n' });
    expect(await readLatestVersion(repo.url, 'main', opts)).toMatchObject({ version: '2.1.7-SAC', source: 'Login_Monitor.ps1' });
    repo.commit({ 'version.txt': '2.1.8-SAC\r\n', 'Login_Monitor.ps1': rdpAgentFiles('2.1.8-SAC')['Login_Monitor.ps1']! });
    expect((await readLatestVersion(repo.url, 'main', opts)).version).toBe('2.1.8-SAC');
    repo.commit({ 'Login_Monitor.ps1': '# no version here\n' });
    expect(await readLatestVersion(repo.url, 'main', opts)).toMatchObject({ version: '2.1.8-SAC', source: 'version.txt' });
  });

  it('a branch is read at its own head', async () => {
    const repo = track(createRdpAgentRepo('2.1.7-SAC'));
    repo.commit(
      { 'version.txt': '2.2.0-SAC\n', 'Login_Monitor.ps1': rdpAgentFiles('2.2.0-SAC')['Login_Monitor.ps1']! },
      { branch: 'next' },
    );
    expect((await readLatestVersion(repo.url, 'next', opts)).version).toBe('2.2.0-SAC');
    expect((await readLatestVersion(repo.url, 'main', opts)).version).toBe('2.1.7-SAC');
    await expect(readLatestVersion(repo.url, 'nope', opts)).rejects.toThrow(/no branch nope/);
  });

  it('ssh-monitor: SSH_MONITOR_VERSION wins over an older tag', async () => {
    const repo = track(createTestGitRepo());
    repo.commit({ 'ssh-monitor': sshMonitor('1.0.0') }, { tag: 'v1.0.0' });
    repo.commit({ 'ssh-monitor': sshMonitor('1.1.2-ipset') });
    expect(await readLatestVersion(repo.url, 'main', opts)).toMatchObject({
      version: '1.1.2-ipset',
      source: 'ssh-monitor',
      tags: ['v1.0.0'],
    });
  });

  it('tags only when the head states no version; none at all is null', async () => {
    const repo = track(createTestGitRepo());
    repo.commit({ README: 'x' }, { tag: 'v1.2.0' });
    repo.commit({ README: 'y' }, { tag: 'v1.10.0-SAC' });
    expect(await readLatestVersion(repo.url, 'main', opts)).toMatchObject({ version: '1.10.0-SAC', source: 'tag' });
    const bare = track(createTestGitRepo());
    bare.commit({ README: 'x' });
    expect(await readLatestVersion(bare.url, 'main', opts)).toMatchObject({ version: null, source: null });
  });

  it('a version.txt that holds no version is an error, not a silent fallback', async () => {
    const repo = track(createTestGitRepo());
    repo.commit({ 'version.txt': 'latest\n' }, { tag: 'v1.0.0' });
    await expect(readLatestVersion(repo.url, 'main', opts)).rejects.toThrow(/version\.txt .* "latest", which is not a version/);
  });

  it('file URLs only when allowed', async () => {
    const repo = track(createRdpAgentRepo());
    await expect(readLatestVersion(repo.url, 'main', { ...opts, allowFile: false })).rejects.toThrow();
  });
});

describe('PowerShell files get a UTF-8 BOM (Windows PowerShell 5.1 reads one without as ANSI)', () => {
  it('adds one when missing, keeps UTF-8 and UTF-16 BOMs', () => {
    const plain = Buffer.from('# Версия\n');
    expect([...withUtf8Bom(plain).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(withUtf8Bom(plain).subarray(3).equals(plain)).toBe(true);
    const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x23]);
    expect(withUtf8Bom(bom)).toBe(bom);
    const utf16 = Buffer.from([0xff, 0xfe, 0x23, 0x00]);
    expect(withUtf8Bom(utf16)).toBe(utf16);
    expect(withUtf8Bom(Buffer.alloc(0)).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(true);
    expect(['a.ps1', 'B.PS1', 'm.psm1', 'd.psd1', 'version.txt', 'x.ps1.bak'].map(isPowerShellFile)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('the Linux updater states the same version', () => {
  const run = (repo: TestGitRepo, ref = 'main', out?: { stdout?: string; commit?: string }) => {
    const prefix = mkdtempSync(join(tmpdir(), 'watchpost-updater-'));
    try {
      mkdirSync(join(prefix, 'sbin'));
      const updater = join(prefix, 'sbin', 'watchpost-agent-update');
      writeFileSync(updater, LINUX_UPDATER_SCRIPT, { mode: 0o755 });
      const stdout = execFileSync(updater, ['update', repo.url, ref], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      });
      if (out) {
        out.stdout = stdout;
        out.commit = readFileSync(join(prefix, 'lib/watchpost-agent/ssh-monitor/COMMIT'), 'utf8').trim();
      }
      const printed = execFileSync(updater, ['version'], { encoding: 'utf8' }).trim();
      expect(readFileSync(join(prefix, 'lib/watchpost-agent/ssh-monitor/VERSION'), 'utf8').trim()).toBe(printed);
      return printed;
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  };

  it('SSH_MONITOR_VERSION over the older tag; version.txt first; the tag last', () => {
    const ssh = track(createTestGitRepo());
    ssh.commit({ 'ssh-monitor': sshMonitor('1.0.0') }, { tag: 'v1.0.0' });
    ssh.commit({ 'ssh-monitor': sshMonitor('1.1.2-ipset') });
    expect(run(ssh)).toBe('1.1.2-ipset');
    ssh.commit({ 'version.txt': '\uFEFF1.2.0-ipset \r\n' });
    expect(run(ssh)).toBe('1.2.0-ipset');
    const tagged = track(createTestGitRepo());
    tagged.commit({ README: 'x' }, { tag: 'v3.4.5' });
    expect(run(tagged)).toBe('3.4.5');
  });

  it('the Linux updater installs the tag or commit named, and says which commit it installed', () => {
    const repo = track(createTestGitRepo());
    repo.commit({ 'ssh-monitor': sshMonitor('1.1.0') }, { tag: 'v1.1.0' });
    const pinned = headOf(repo);
    repo.commit({ 'ssh-monitor': sshMonitor('1.2.0') });
    const out: { stdout?: string; commit?: string } = {};
    expect(run(repo, pinned, out)).toBe('1.1.0');
    expect(out.commit).toBe(pinned);
    expect(installedCommit(out.stdout!)).toBe(pinned);
    expect(run(repo, 'v1.1.0', out)).toBe('1.1.0');
    expect(out.commit).toBe(pinned);
    expect(run(repo, 'main', out)).toBe('1.2.0');
    expect(out.commit).toBe(headOf(repo));
    expect(installedCommit('updated to 1.2.0')).toBeNull();
  });
});

describe('pinning what updates install: the ref is a branch, a tag or a full commit id', () => {
  it('readLatestVersion reads a tag or a commit where it points, not the branch head; says which it was', async () => {
    const repo = track(createTestGitRepo());
    repo.commit({ 'ssh-monitor': sshMonitor('1.1.0') }, { tag: 'v1.1.0' });
    const pinned = headOf(repo);
    repo.commit({ 'ssh-monitor': sshMonitor('1.2.0') });
    const head = headOf(repo);
    expect(await readLatestVersion(repo.url, 'main', opts)).toMatchObject({ version: '1.2.0', commit: head, ref: 'branch' });
    expect(await readLatestVersion(repo.url, 'v1.1.0', opts)).toMatchObject({ version: '1.1.0', commit: pinned, ref: 'tag' });
    expect(await readLatestVersion(repo.url, pinned, opts)).toMatchObject({ version: '1.1.0', commit: pinned, ref: 'commit' });
    await expect(readLatestVersion(repo.url, 'f'.repeat(40), opts)).rejects.toThrow(/no commit f{40} on its branches or tags/);
    // An abbreviated id is no commit pin (it could be a branch name): refused as an unknown branch.
    await expect(readLatestVersion(repo.url, pinned.slice(0, 12), opts)).rejects.toThrow(/no branch .* full id/);
  });

  it('cloneAtRef: a full clone at a pinned commit, HEAD on it', async () => {
    const repo = track(createTestGitRepo());
    repo.commit({ README: 'one' });
    const first = headOf(repo);
    repo.commit({ README: 'two' });
    const dir = mkdtempSync(join(tmpdir(), 'watchpost-ref-'));
    try {
      expect(await cloneAtRef(repo.url, first, 'commit', join(dir, 'c'), { allowFile: true })).toBe(first);
      expect(execFileSync('git', ['-C', join(dir, 'c'), 'show', 'HEAD:README'], { encoding: 'utf8' })).toBe('one');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refKind: a branch before a tag of the same name, a commit only as a full id', () => {
    const refs = { heads: ['main', 'v1'], tags: ['v1', 'v2'] };
    expect(refKind(refs, 'main')).toBe('branch');
    expect(refKind(refs, 'v1')).toBe('branch');
    expect(refKind(refs, 'v2')).toBe('tag');
    expect(refKind(refs, 'a'.repeat(40))).toBe('commit');
    expect(refKind(refs, 'b'.repeat(64))).toBe('commit');
    expect(refKind(refs, 'abc1234')).toBeNull();
    expect(refKind(refs, 'A'.repeat(40))).toBeNull();
  });
});

describe('git connects only where the SSRF guard of webhooks lets it (resolve, check, connect to the checked address)', () => {
  const none = { environment: [], admin: [], variable: 'SERVICE_AGENT_UPDATE_ALLOW' };

  it.each([
    ['https://127.0.0.1/x.git', /loopback/],
    ['https://localhost/x.git', /loopback/],
    ['https://[::1]/x.git', /loopback/],
    ['ssh://git@127.0.0.1/x.git', /loopback/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal/],
    ['ssh://git@[fe80::1]/x.git', /linkLocal/],
    ['https://0.0.0.0/x.git', /unspecified/],
    ['https://224.0.0.1/x.git', /multicast/],
    ['https://[::ffff:127.0.0.1]/x.git', /loopback/],
    ['https://100.100.100.200/x.git', /only SERVICE_AGENT_UPDATE_ALLOW can allow it/],
  ])('refuses %s', async (url, why) => {
    const err = await pinnedConnection(url, none).catch((e: unknown) => e);
    expect((err as Error).name).toBe('RemoteError');
    expect((err as Error).message).toMatch(/^git: refused by the SSRF guard: /);
    expect((err as Error).message).toMatch(why);
  });

  it('public and private hosts pass; git is told the checked address; file:// connects nowhere', async () => {
    expect(await pinnedConnection('https://10.1.2.3/x.git', none)).toEqual({ config: ['-c', 'http.followRedirects=false'] });
    expect(await pinnedConnection('https://93.184.216.34:8443/x.git', none)).toEqual({
      config: ['-c', 'http.followRedirects=false'],
    });
    expect(await pinnedConnection('ssh://git@192.168.1.5/x.git', none)).toEqual({
      env: {
        GIT_SSH_COMMAND: "ssh -o BatchMode=yes -o ConnectTimeout=10 -o HostName='192.168.1.5' -o HostKeyAlias='192.168.1.5'",
      },
    });
    expect(await pinnedConnection('file:///srv/git/x.git', none)).toEqual({});
  });

  it('a name is pinned to the address checked: curl resolve entry (https), HostName with the name as host key alias (ssh)', async () => {
    const allow = { environment: ['127.0.0.1'], admin: [], variable: 'SERVICE_AGENT_UPDATE_ALLOW' };
    expect(await pinnedConnection('https://localhost:3000/x.git', allow)).toEqual({
      config: ['-c', 'http.followRedirects=false', '-c', 'http.curloptResolve=localhost:3000:127.0.0.1'],
    });
    expect(await pinnedConnection('ssh://git@localhost:2222/x.git', allow)).toEqual({
      env: {
        GIT_SSH_COMMAND: "ssh -o BatchMode=yes -o ConnectTimeout=10 -o HostName='127.0.0.1' -o HostKeyAlias='[localhost]:2222'",
      },
    });
  });

  it("gitAllow: SERVICE_AGENT_UPDATE_ALLOW and the hosts of the environment's own git URLs", () => {
    const cfg = loadConfig({
      SERVICE_AGENT_UPDATE_ALLOW: '127.0.0.1, 169.254.0.0/16',
      SERVICE_AGENT_UPDATE_LINUX_GIT_URL: 'https://git.internal.example/agents/ssh-monitor.git',
      SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL: 'ssh://git@[fd00::5]:2222/agents/rdp.git',
    }).actions.agentUpdate;
    expect(gitAllow(cfg)).toEqual({
      environment: ['127.0.0.1', '169.254.0.0/16', 'git.internal.example', 'fd00::5'],
      admin: [],
      variable: 'SERVICE_AGENT_UPDATE_ALLOW',
    });
  });

  describe('against a listening socket', () => {
    const connections: Socket[] = [];
    const server = createServer((c) => {
      connections.push(c);
      c.destroy();
    });
    let port = 0;
    afterAll(() => new Promise<void>((r) => server.close(() => r())));
    const read = (url: string, allow: string[]) =>
      readLatestVersion(url, 'main', { allowFile: false, timeoutMs: 20_000, allow: { environment: allow, admin: [] } });

    it('a refused host gets no connection; an allowed one does, at the checked address', async () => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
      for (const url of [`https://127.0.0.1:${port}/x.git`, `https://localhost:${port}/x.git`])
        await expect(read(url, [])).rejects.toThrow(/SSRF guard/);
      expect(connections).toHaveLength(0);
      // Allowed by the environment: git connects (and fails the TLS handshake with this socket).
      await expect(read(`https://localhost:${port}/x.git`, ['127.0.0.1'])).rejects.toThrow(/git ls-remote/);
      expect(connections.length).toBeGreaterThan(0);
    });

    it('git connects where the pin says, not where the name resolves (this name resolves nowhere)', async () => {
      const before = connections.length;
      const url = `https://pinned.invalid:${port}/x.git`;
      const pin = ['-c', `http.curloptResolve=pinned.invalid:${port}:127.0.0.1`];
      await expect(runGit(['ls-remote', '--', url], { allowFile: false, timeoutMs: 20_000, config: pin })).rejects.toThrow();
      expect(connections.length).toBeGreaterThan(before);
    });
  });
});
