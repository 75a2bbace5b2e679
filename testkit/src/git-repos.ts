// Local bare git repositories for agent-update and version-reference tests (file:// URLs).
import { PUBLIC_SETTINGS_EXAMPLE } from './deploy-rules.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestGitRepo {
  /** file:// URL of the bare repository */
  url: string;
  bare: string;
  /** Commits the files (path -> content; `mode` 0755 for executables) on `branch` and tags the commit when `tag` is given. */
  commit(
    files: Record<string, string | Buffer | { content: string | Buffer; mode: number }>,
    opts?: { tag?: string; branch?: string },
  ): void;
  close(): void;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });

export function createTestGitRepo(): TestGitRepo {
  const dir = mkdtempSync(join(tmpdir(), 'watchpost-git-'));
  const bare = join(dir, 'agent.git');
  const work = join(dir, 'work');
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
  git(dir, 'init', '-q', '-b', 'main', work);
  return {
    url: `file://${bare}`,
    bare,
    commit(files, opts = {}) {
      const branch = opts.branch ?? 'main';
      const branches = git(work, 'branch', '--list', branch).trim();
      const hasCommits = git(work, 'rev-list', '--all', '--count').trim() !== '0';
      if (hasCommits) git(work, 'checkout', '-q', ...(branches ? [branch] : ['-b', branch]));
      else if (branch !== 'main') git(work, 'checkout', '-q', '-b', branch);
      for (const [path, f] of Object.entries(files)) {
        const file = join(work, path);
        mkdirSync(dirname(file), { recursive: true });
        const plain = typeof f === 'string' || Buffer.isBuffer(f);
        writeFileSync(file, plain ? f : f.content);
        if (!plain) chmodSync(file, f.mode);
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', `commit ${opts.tag ?? ''}`);
      if (opts.tag) git(work, 'tag', opts.tag);
      git(work, 'push', '-q', '--tags', bare, branch);
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The files of an rdp-login-monitor repository as release 2.1.7-SAC ships them (PTah/RDP-login-monitor),
 * cut down to what its update path touches: `version.txt` (one line, LF, no tag in the repository),
 * `Deploy-LoginMonitor.ps1` (UTF-8 without a BOM, Cyrillic comments: its param block and its version
 * comparison, Compare-VersionStrings, verbatim), `Login_Monitor.ps1` (`$ScriptVersion`), `Sac-Client.ps1`,
 * `login_monitor.settings.example.ps1`, `RdpMonitor-TaskQuery.ps1` and a tool under `tools/`. One file
 * here carries a BOM already (as a file saved by Windows tools would) to show a bundle leaves it alone.
 */
export function rdpAgentFiles(version = '2.1.7-SAC'): Record<string, string | Buffer> {
  return {
    'version.txt': `${version}\n`,
    'Deploy-LoginMonitor.ps1': [
      '<#',
      '.SYNOPSIS',
      '    Доставка Login_Monitor.ps1 с файловой шары по версии (домен: ПК и серверы).',
      '#>',
      '[CmdletBinding()]',
      'param(',
      '    [string]$SourceShareRoot = "",',
      '    [switch]$WhatIf,',
      '    [switch]$SkipStartMonitorAfterUpdate,',
      '    [switch]$AllowDowngrade',
      ')',
      'function Compare-VersionStrings {',
      '    param([string]$Left, [string]$Right)',
      '    $lt = Normalize-DeployVersionLabel -Text $Left',
      '    $rt = Normalize-DeployVersionLabel -Text $Right',
      '    if ($lt.Equals($rt, [StringComparison]::OrdinalIgnoreCase)) { return 0 }',
      '    $a = Normalize-VersionOrNull -Text $Left',
      '    $b = Normalize-VersionOrNull -Text $Right',
      '    if ($null -eq $a -or $null -eq $b) { return $null }',
      '    return $a.CompareTo($b)',
      '}',
      '',
    ].join('\n'),
    'Login_Monitor.ps1': `# Версия: пишется в лог и в Telegram.\n$ScriptVersion = "${version}"\n`,
    'Sac-Client.ps1':
      '# Ожидает: $UseSAC, $SacUrl, $SacApiKey, $ScriptVersion\nfunction Get-SacAgentCommandsUrl { return "$base/api/v1/agent/commands" }\n',
    'login_monitor.settings.example.ps1': PUBLIC_SETTINGS_EXAMPLE,
    'RdpMonitor-TaskQuery.ps1': Buffer.concat([UTF8_BOM, Buffer.from('# задачи планировщика\r\n')]),
    'tools/Test-RDGatewayEventInfo.ps1': '# RD Gateway 302/303\n',
    'README.md': '# RDP login monitor\n',
  };
}

/** An rdp-login-monitor repository at `version` (branch main, no tags, like PTah/RDP-login-monitor). */
export function createRdpAgentRepo(version = '2.1.7-SAC'): TestGitRepo {
  const repo = createTestGitRepo();
  repo.commit(rdpAgentFiles(version));
  return repo;
}
