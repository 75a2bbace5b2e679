// The latest agent version as the agent repositories state it, read with real git from local bare
// repositories (file:// URLs): version.txt at the branch head (rdp-login-monitor has no tags), the
// script's version variable (ssh-monitor: SSH_MONITOR_VERSION, newer than its only tag), tags last.
// The Linux updater script computes the same version on a checkout.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRdpAgentRepo, createTestGitRepo, rdpAgentFiles, type TestGitRepo } from '@watchpost/testkit/actions';
import { readLatestVersion } from './git.ts';
import { isPowerShellFile, withUtf8Bom } from './bundle.ts';
import { LINUX_UPDATER_SCRIPT } from './linux-updater.ts';

const repos: TestGitRepo[] = [];
const opts = { allowFile: true, timeoutMs: 20_000 };
afterAll(() => repos.forEach((r) => r.close()));
const track = (r: TestGitRepo) => (repos.push(r), r);

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
  const run = (repo: TestGitRepo) => {
    const prefix = mkdtempSync(join(tmpdir(), 'watchpost-updater-'));
    try {
      mkdirSync(join(prefix, 'sbin'));
      const updater = join(prefix, 'sbin', 'watchpost-agent-update');
      writeFileSync(updater, LINUX_UPDATER_SCRIPT, { mode: 0o755 });
      execFileSync(updater, ['update', repo.url, 'main'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      });
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
});
