// git against an agent-update repository: the ref exists, the latest version (what the agent states
// at the ref: version.txt or its script's version variable, core VERSION_SOURCES; the highest tag only
// when it states none), and the checkouts bundles are built from. The ref (the "branch" setting) is a
// branch, a tag or a full commit id: a tag or a commit pins what is installed (api/ACTIONS.md). git runs
// without a shell, with only the allow-listed transports enabled (protocol.allow=never plus https/ssh,
// file only when enabled), never prompting, bounded in time; and it connects only to an address the
// SSRF guard of webhooks checked (pinnedConnection).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionsConfig } from '@watchpost/runtime';
import {
  checkGitUrl,
  latestVersion,
  loadAgentUpdateSettings,
  loadLatestVersions,
  parseVersion,
  quotePosix,
  saveLatestVersion,
  tagsFromLsRemote,
  validBranch,
  VERSION_SOURCES,
  type VersionFile,
} from '@watchpost/core/actions';
import { type SsrfAllow } from '@watchpost/core/notify';
import { hostListing, resolveAllowed, type Allow } from '../shared/ssrf.ts';
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
  /** extra environment (GIT_INDEX_FILE for a scratch index, GIT_SSH_COMMAND of a pinned connection) */
  env?: Record<string, string>;
  /** extra `-c name=value` settings (a pinned connection's) */
  config?: string[];
}

/** What the ref setting names: a branch, a tag, or a full commit id (40 or 64 hex digits). */
export type RefKind = 'branch' | 'tag' | 'commit';

const SSH_COMMAND = 'ssh -o BatchMode=yes -o ConnectTimeout=10';

/**
 * The git SSRF guard's lists: SERVICE_AGENT_UPDATE_ALLOW and the hosts of the environment's own git URLs
 * (the operator's choice) open anything they name; a repository an admin sets may be public or private.
 */
export function gitAllow(cfg: ActionsConfig['agentUpdate']): SsrfAllow {
  const hosts: string[] = [];
  for (const u of [cfg.linux.gitUrl, cfg.windows.gitUrl]) {
    try {
      const host = new URL(u).hostname.replace(/^\[|\]$/g, '');
      if (host) hosts.push(host);
    } catch {
      // unset or not a URL: names nothing
    }
  }
  return { environment: [...cfg.allow, ...hosts], admin: [], variable: 'SERVICE_AGENT_UPDATE_ALLOW' };
}

/**
 * How git reaches a checked URL: its host is resolved once and checked by the webhooks' SSRF guard, and
 * git connects to that address (https: curl's resolve entry for host:port, redirects not followed, so
 * neither a second lookup nor a redirect reaches another address; ssh: HostName, with the host key still
 * looked up under the name). file:// connects nowhere. A refused host throws RemoteError.
 */
export async function pinnedConnection(url: string, allow: Allow): Promise<Pick<GitOpts, 'config' | 'env'>> {
  const u = new URL(url);
  if (u.protocol === 'file:') return {};
  const host = u.hostname.replace(/^\[|\]$/g, '');
  let address: string;
  try {
    address = (await resolveAllowed(host, allow, hostListing(host, allow) ?? 'admin')).address;
  } catch (err) {
    throw new RemoteError(`git: ${(err as Error).message}`);
  }
  if (u.protocol === 'https:') {
    const config = ['-c', 'http.followRedirects=false'];
    if (!isIP(host))
      config.push('-c', `http.curloptResolve=${host}:${u.port || '443'}:${isIP(address) === 6 ? `[${address}]` : address}`);
    return { config };
  }
  // ssh keeps a host key per name (and port): look it up as it would without the pin.
  const alias = u.port && u.port !== '22' ? `[${host}]:${u.port}` : host;
  return { env: { GIT_SSH_COMMAND: `${SSH_COMMAND} -o HostName=${quotePosix(address)} -o HostKeyAlias=${quotePosix(alias)}` } };
}

/** What `ref` names in the remote's refs: a branch first, then a tag, then a full commit id; null: nothing. */
export function refKind(refs: RemoteRefs, ref: string): RefKind | null {
  if (refs.heads.includes(ref)) return 'branch';
  if (refs.tags.includes(ref)) return 'tag';
  if (/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(ref)) return 'commit';
  return null;
}

/**
 * Clones `url` at `ref` into `dir` without a work tree; HEAD is the commit. A branch or a tag: that ref
 * alone (`shallow`: its last commit only). A commit: the repository's branches and tags, and the commit
 * must be on one of them.
 */
export async function cloneAtRef(
  url: string,
  ref: string,
  kind: RefKind,
  dir: string,
  opts: GitOpts & { shallow?: boolean },
): Promise<string> {
  const { shallow, cwd: _, ...g } = opts;
  if (kind !== 'commit') {
    const depth = shallow ? ['--depth', '1'] : [];
    await runGit(['clone', '--quiet', ...depth, '--no-checkout', '--single-branch', '--branch', ref, '--', url, dir], g);
  } else {
    await runGit(['clone', '--quiet', '--no-checkout', '--', url, dir], g);
    const found = await runGit(['cat-file', '-e', `${ref}^{commit}`], { ...g, cwd: dir }).then(
      () => true,
      () => false,
    );
    if (!found) throw new RemoteError(`the repository has no commit ${ref} on its branches or tags`);
    await runGit(['update-ref', '--no-deref', 'HEAD', ref], { ...g, cwd: dir });
  }
  return (await runGit(['rev-parse', 'HEAD'], { ...g, cwd: dir })).trim();
}

/** Runs git with the transport allow-list; rejects with git's last stderr lines. */
export function runGit(args: string[], opts: GitOpts & { encoding: 'buffer' }): Promise<Buffer>;
export function runGit(args: string[], opts: GitOpts): Promise<string>;
export function runGit(args: string[], opts: GitOpts & { encoding?: 'buffer' }): Promise<string | Buffer> {
  const allow = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always'];
  if (opts.allowFile) allow.push('-c', 'protocol.file.allow=always');
  allow.push(...(opts.config ?? []));
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
          GIT_SSH_COMMAND: SSH_COMMAND,
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

export async function lsRemote(url: string, opts: GitOpts): Promise<RemoteRefs> {
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

export interface ReadOpts {
  allowFile: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The SSRF guard's lists (gitAllow); unset: none, so only public and private hosts are reached. */
  allow?: Allow;
}

/** The latest version at a ref (a branch's head, a tag, a commit): what it states, else the highest tag. */
export async function readLatestVersion(
  url: string,
  branch: string,
  opts: ReadOpts,
): Promise<{ version: string | null; source: VersionSource | null; commit: string; tags: string[]; ref: RefKind }> {
  const checked = checkGitUrl(url, { allowFile: opts.allowFile });
  if (!checked.ok) throw new RemoteError(checked.reason);
  const b = validBranch(branch);
  if (!b) throw new RemoteError(`"${branch}" is not a valid branch, tag or commit`);
  const g: GitOpts = { ...opts, ...(await pinnedConnection(checked.url, opts.allow ?? [])) };
  const refs = await lsRemote(checked.url, g);
  const ref = refKind(refs, b);
  if (!ref) throw new RemoteError(`the repository has no branch ${b} (nor a tag of that name; a commit is named by its full id)`);
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-version-'));
  try {
    // No work tree: `git show HEAD:<file>` reads the files that state the version.
    const commit = await cloneAtRef(checked.url, b, ref, dir, { ...g, shallow: true });
    return { ...(await versionAtHead(dir, { ...opts, tags: refs.tags })), commit, tags: refs.tags, ref };
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
    allow: gitAllow(deps.config.actions.agentUpdate),
  });
  return {
    ok: true,
    branch_found: true,
    ref_kind: r.ref,
    commit: r.commit,
    tags: r.tags.length,
    latest_version: r.version,
    version_source: r.source,
  };
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
        allow: gitAllow(deps.config.actions.agentUpdate),
      });
      await saveLatestVersion(deps.pg, kind, {
        version: r.version,
        source: r.source,
        commit: r.commit,
        ref_kind: r.ref,
        git_url: s.gitUrl,
        branch: s.branch,
        checked_at,
        error: null,
      });
      out[kind] = r.version;
    } catch (err) {
      const prev = previous[kind];
      // A URL that is refused now (a token in it, saved before that was refused) offers nothing any more.
      const usable = checkGitUrl(s.gitUrl, { allowFile: deps.config.actions.agentUpdate.allowFileUrls }).ok;
      const same = usable && prev?.git_url === s.gitUrl && prev?.branch === s.branch;
      await saveLatestVersion(deps.pg, kind, {
        version: same ? (prev?.version ?? null) : null,
        source: same ? (prev?.source ?? null) : null,
        commit: same ? (prev?.commit ?? null) : null,
        ref_kind: same ? (prev?.ref_kind ?? null) : null,
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
