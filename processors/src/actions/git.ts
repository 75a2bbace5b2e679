// git ls-remote against an agent-update repository: the latest version (tags, semver order) and whether
// the branch exists. git runs without a shell, with only the allow-listed transports enabled
// (protocol.allow=never plus https/ssh, file only when enabled), never prompting, bounded in time.
import { execFile } from 'node:child_process';
import {
  checkGitUrl,
  latestVersion,
  loadAgentUpdateSettings,
  loadLatestVersions,
  saveLatestVersion,
  tagsFromLsRemote,
  validBranch,
} from '@watchpost/core';
import type { ActionDeps } from './deps.ts';
import { RemoteError } from './errors.ts';

export interface RemoteRefs {
  tags: string[];
  heads: string[];
}

export function lsRemote(
  url: string,
  opts: { allowFile: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<RemoteRefs> {
  const checked = checkGitUrl(url, { allowFile: opts.allowFile });
  if (!checked.ok) return Promise.reject(new RemoteError(checked.reason));
  const args = [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.https.allow=always',
    '-c',
    'protocol.ssh.allow=always',
    ...(opts.allowFile ? ['-c', 'protocol.file.allow=always'] : []),
    'ls-remote',
    '--tags',
    '--heads',
    '--',
    checked.url,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        timeout: opts.timeoutMs,
        signal: opts.signal,
        maxBuffer: 8 * 1024 * 1024,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          GIT_TERMINAL_PROMPT: '0',
          GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10',
          GIT_CONFIG_NOSYSTEM: '1',
        },
      },
      (err, stdout, stderr) => {
        if (err) {
          const why = (stderr || err.message).trim().split('\n').slice(-3).join(' | ').slice(0, 500);
          return reject(new RemoteError(`git ls-remote ${checked.url}: ${err.killed ? 'timed out' : why}`));
        }
        const heads = stdout
          .split('\n')
          .map((l) => l.split('\t')[1]?.trim() ?? '')
          .filter((r) => r.startsWith('refs/heads/'))
          .map((r) => r.slice('refs/heads/'.length));
        resolve({ tags: tagsFromLsRemote(stdout), heads });
      },
    );
  });
}

/** The git test of (possibly unsaved) settings: reachable, branch present, latest version. */
export async function gitTest(deps: ActionDeps, url: string, branch: string, signal: AbortSignal) {
  const b = validBranch(branch);
  if (!b) throw new RemoteError(`"${branch}" is not a valid branch name`);
  const refs = await lsRemote(url, {
    allowFile: deps.config.actions.agentUpdate.allowFileUrls,
    timeoutMs: deps.config.actions.timeoutMs,
    signal,
  });
  if (!refs.heads.includes(b)) throw new RemoteError(`the repository has no branch ${b}`);
  return { ok: true, branch_found: true, tags: refs.tags.length, latest_version: latestVersion(refs.tags) };
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
      const refs = await lsRemote(s.gitUrl, {
        allowFile: deps.config.actions.agentUpdate.allowFileUrls,
        timeoutMs: deps.config.actions.timeoutMs,
      });
      const version = latestVersion(refs.tags);
      await saveLatestVersion(deps.pg, kind, { version, git_url: s.gitUrl, branch: s.branch, checked_at, error: null });
      out[kind] = version;
    } catch (err) {
      const prev = previous[kind];
      const same = prev?.git_url === s.gitUrl;
      await saveLatestVersion(deps.pg, kind, {
        version: same ? (prev?.version ?? null) : null,
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
