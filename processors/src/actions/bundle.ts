// Windows agent bundles: the update repository at its branch as a zip (git archive) with a VERSION file
// (the newest tag reachable from the branch), stored once per commit in `agent_bundles`; the host gets
// a signed link to GET /api/v1/agent-bundles/{id}.zip on the service (SERVICE_PUBLIC_URL).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ActionJobOf } from '@watchpost/schemas';
import { checkGitUrl, findBundle, parseVersion, signedBundleUrl, storeBundle } from '@watchpost/core';
import type { ActionDeps } from './deps.ts';
import { RemoteError } from './errors.ts';

const run = promisify(execFile);

function git(args: string[], opts: { cwd?: string; allowFile: boolean; signal: AbortSignal; encoding?: 'buffer' }) {
  const allow = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always'];
  if (opts.allowFile) allow.push('-c', 'protocol.file.allow=always');
  return run('git', [...allow, ...args], {
    cwd: opts.cwd,
    signal: opts.signal,
    maxBuffer: 256 * 1024 * 1024,
    encoding: opts.encoding ?? 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GIT_TERMINAL_PROMPT: '0',
      GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=10',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
}

/** Builds (or finds) the bundle of the job's repository and branch; returns its id, version and SHA-256 (hex). */
export async function ensureBundle(
  deps: ActionDeps,
  job: ActionJobOf<'agent.update'>,
  signal: AbortSignal,
): Promise<{ id: number; version: string; sha256: string }> {
  const allowFile = deps.config.actions.agentUpdate.allowFileUrls;
  const url = checkGitUrl(job.git_url, { allowFile });
  if (!url.ok) throw new RemoteError(url.reason);
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-bundle-'));
  try {
    const src = join(dir, 'src');
    try {
      await git(['clone', '--quiet', '--branch', job.branch, '--single-branch', '--', url.url, src], { allowFile, signal });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new RemoteError(
        `git clone ${url.url} (${job.branch}): ${(e.stderr || e.message).trim().split('\n').slice(-2).join(' | ')}`,
      );
    }
    const commit = (await git(['rev-parse', 'HEAD'], { cwd: src, allowFile, signal })).stdout.toString().trim();
    const key = { kind: 'windows', gitUrl: url.url, branch: job.branch, commit } as const;
    const found = await findBundle(deps.pg, key);
    if (found) return found;
    const tag = await git(['describe', '--tags', '--abbrev=0'], { cwd: src, allowFile, signal }).catch(() => null);
    const version = tag ? parseVersion(tag.stdout.toString().trim()) : null;
    if (!version) throw new RemoteError(`the branch ${job.branch} of ${url.url} has no version tag`);
    await writeFile(join(dir, 'VERSION'), `${version}\r\n`);
    const zip = (
      await git(['archive', '--format=zip', `--add-file=${join(dir, 'VERSION')}`, 'HEAD'], {
        cwd: src,
        allowFile,
        signal,
        encoding: 'buffer',
      })
    ).stdout as unknown as Buffer;
    const sha256 = createHash('sha256').update(zip).digest('hex');
    // A concurrent build of the same commit may have won: the stored zip (and its hash) is what is served.
    const stored = await storeBundle(deps.pg, key, { version, sha256, zip });
    return { id: stored.id, version, sha256: stored.sha256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The signed download URL of the job's bundle (built when needed) and the SHA-256 the host checks it against. */
export async function windowsBundleUrl(
  deps: ActionDeps,
  job: ActionJobOf<'agent.update'>,
  signal: AbortSignal,
): Promise<{ url: string; sha256: string }> {
  const base = deps.config.actions.agentUpdate.publicUrl;
  if (!base)
    throw new RemoteError('SERVICE_PUBLIC_URL is not set: Windows hosts need it to download the agent bundle from the service');
  const b = await ensureBundle(deps, job, signal);
  return { url: signedBundleUrl(deps.secretsKey, base, b.id), sha256: b.sha256 };
}
