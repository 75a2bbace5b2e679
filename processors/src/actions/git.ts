// git against an agent-update repository: the branch exists, the latest version (what the agent states
// at the branch head: version.txt or its script's version variable, core VERSION_SOURCES; the highest
// tag only when it states none), and the checkouts bundles are built from. git runs without a shell,
// with only the allow-listed transports enabled (protocol.allow=never plus https/ssh, file only when
// enabled), never prompting, bounded in time.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkGitUrl,
  latestVersion,
  loadAgentUpdateSettings,
  loadLatestVersions,
  parseVersion,
  saveLatestVersion,
  tagsFromLsRemote,
  validBranch,
  VERSION_SOURCES,
  type VersionFile,
} from '@watchpost/core';
import type { ActionDeps } from './deps.ts';
import { RemoteError } from './errors.ts';

export interface RemoteRefs {
  tags: string[];
  heads: string[];
}

export interface GitOpts {
  allowFile: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  cwd?: string;
  /** extra environment (GIT_INDEX_FILE for a scratch index) */
  env?: Record<string, string>;
}

/** Runs git with the transport allow-list; rejects with git's last stderr lines. */
export function runGit(args: string[], opts: GitOpts & { encoding: 'buffer' }): Promise<Buffer>;
export function runGit(args: string[], opts: GitOpts): Promise<string>;
export function runGit(args: string[], opts: GitOpts & { encoding?: 'buffer' }): Promise<string | Buffer> {
  const allow = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always'];
  if (opts.allowFile) allow.push('-c', 'protocol.file.allow=always');
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...allow, ...args],
      {
        cwd: opts.cwd,
        timeout: opts.timeoutMs,
        signal: opts.signal,
        maxBuffer: 256 * 1024 * 1024,
        encoding: opts.encoding ?? 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          GIT_TERMINAL_PROMPT: '0',
          GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10',
          GIT_CONFIG_NOSYSTEM: '1',
          ...opts.env,
        },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const why = (String(stderr) || err.message).trim().split('\n').slice(-2).join(' | ').slice(0, 500);
        reject(new RemoteError(`git ${args[0]}: ${err.killed ? 'timed out' : why}`));
      },
    );
  });
}

export async function lsRemote(
  url: string,
  opts: { allowFile: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<RemoteRefs> {
  const checked = checkGitUrl(url, { allowFile: opts.allowFile });
  if (!checked.ok) throw new RemoteError(checked.reason);
  const stdout = await runGit(['ls-remote', '--tags', '--heads', '--', checked.url], opts).catch((err: Error) => {
    throw new RemoteError(err.message.replace(/^git ls-remote:/, `git ls-remote ${checked.url}:`));
  });
  const heads = stdout
    .split('\n')
    .map((l) => l.split('\t')[1]?.trim() ?? '')
    .filter((r) => r.startsWith('refs/heads/'))
    .map((r) => r.slice('refs/heads/'.length));
  return { tags: tagsFromLsRemote(stdout), heads };
}

export type VersionSource = 'version.txt' | 'Login_Monitor.ps1' | 'ssh-monitor' | 'tag';

/**
 * The version a checkout states at HEAD (core VERSION_SOURCES, first found); else the highest of
 * `tags` (the remote's) or, when none are given, the newest tag reachable from HEAD. A version.txt
 * that holds no version is an error, not a reason to fall back: the agent's deploy would install it.
 */
export async function versionAtHead(
  dir: string,
  opts: GitOpts & { tags?: string[]; sources?: readonly VersionFile[] },
): Promise<{ version: string | null; source: VersionSource | null }> {
  for (const s of opts.sources ?? VERSION_SOURCES) {
    const text = await runGit(['show', `HEAD:${s.path}`], { ...opts, cwd: dir }).catch(() => null);
    if (text === null) continue;
    const raw = s.read(text);
    if (raw === null) continue;
    const version = parseVersion(raw);
    if (version === null)
      throw new RemoteError(`${s.path} at the branch head holds "${raw.slice(0, 64)}", which is not a version`);
    return { version, source: s.path as VersionSource };
  }
  if (opts.tags) {
    const v = latestVersion(opts.tags);
    return { version: v, source: v === null ? null : 'tag' };
  }
  const tag = await runGit(['describe', '--tags', '--abbrev=0'], { ...opts, cwd: dir }).catch(() => null);
  const v = tag === null ? null : parseVersion(tag.trim());
  return { version: v, source: v === null ? null : 'tag' };
}

/** The latest version of a repository's branch: what its head states, else its highest tag. */
export async function readLatestVersion(
  url: string,
  branch: string,
  opts: { allowFile: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<{ version: string | null; source: VersionSource | null; commit: string; tags: string[] }> {
  const checked = checkGitUrl(url, { allowFile: opts.allowFile });
  if (!checked.ok) throw new RemoteError(checked.reason);
  const b = validBranch(branch);
  if (!b) throw new RemoteError(`"${branch}" is not a valid branch name`);
  const refs = await lsRemote(checked.url, opts);
  if (!refs.heads.includes(b)) throw new RemoteError(`the repository has no branch ${b}`);
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-version-'));
  try {
    // The head commit only, no work tree: `git show HEAD:<file>` reads the files that state the version.
    await runGit(
      ['clone', '--quiet', '--depth', '1', '--no-checkout', '--single-branch', '--branch', b, '--', checked.url, dir],
      opts,
    );
    const commit = (await runGit(['rev-parse', 'HEAD'], { ...opts, cwd: dir })).trim();
    return { ...(await versionAtHead(dir, { ...opts, tags: refs.tags })), commit, tags: refs.tags };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The git test of (possibly unsaved) settings: reachable, branch present, latest version. */
export async function gitTest(deps: ActionDeps, url: string, branch: string, signal: AbortSignal) {
  const r = await readLatestVersion(url, branch, {
    allowFile: deps.config.actions.agentUpdate.allowFileUrls,
    timeoutMs: deps.config.actions.timeoutMs,
    signal,
  });
  return { ok: true, branch_found: true, tags: r.tags.length, latest_version: r.version, version_source: r.source };
}

/** Reads the latest version of every configured agent kind and stores it (a failure keeps the old version). */
export async function refreshLatestVersions(deps: ActionDeps): Promise<Record<string, string | null>> {
  const settings = await loadAgentUpdateSettings(deps.pg, deps.config.actions);
  const previous = await loadLatestVersions(deps.pg);
  const out: Record<string, string | null> = {};
  for (const kind of ['linux', 'windows'] as const) {
    const s = settings[kind];
    if (!s.gitUrl) continue;
    const checked_at = new Date().toISOString();
    try {
      const r = await readLatestVersion(s.gitUrl, s.branch, {
        allowFile: deps.config.actions.agentUpdate.allowFileUrls,
        timeoutMs: deps.config.actions.timeoutMs,
      });
      await saveLatestVersion(deps.pg, kind, {
        version: r.version,
        source: r.source,
        commit: r.commit,
        git_url: s.gitUrl,
        branch: s.branch,
        checked_at,
        error: null,
      });
      out[kind] = r.version;
    } catch (err) {
      const prev = previous[kind];
      const same = prev?.git_url === s.gitUrl && prev?.branch === s.branch;
      await saveLatestVersion(deps.pg, kind, {
        version: same ? (prev?.version ?? null) : null,
        source: same ? (prev?.source ?? null) : null,
        commit: same ? (prev?.commit ?? null) : null,
        git_url: s.gitUrl,
        branch: s.branch,
        checked_at,
        error: (err as Error).message,
      });
      deps.log.warn({ kind, err: (err as Error).message }, 'could not read the latest agent version');
      out[kind] = null;
    }
  }
  return out;
}
