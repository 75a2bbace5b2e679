// Windows agent bundles: what rdp-login-monitor's own update path takes. Its publisher
// (update-rdp-monitor.ps1, Publish-DistributionFiles / Copy-FileToNetlogon) copies the repository to a
// share, rewriting every .ps1 as UTF-8 with a BOM (Windows PowerShell 5.1 reads a .ps1 without one in
// the ANSI code page: the agent's Cyrillic strings and anything non-ASCII break), and hosts then run
// Deploy-LoginMonitor.ps1 -SourceShareRoot <share>, which needs version.txt, Login_Monitor.ps1 and
// Sac-Client.ps1 in that folder. The bundle is that folder as a zip: the repository at the ref's commit
// (the branch's head, or the tag or commit the setting pins; git archive of a tree where each PowerShell file lacking a BOM got one; files that have one,
// UTF-8 or UTF-16, are kept), plus version.txt when the repository states its version elsewhere, and
// without the repository's public settings example (SETTINGS_EXAMPLE, below).
// Stored once per commit in `agent_bundles`; the host gets a signed link to
// GET /api/v1/agent-bundles/{id}.zip on the service (SERVICE_PUBLIC_URL).
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionJobOf } from '@watchpost/schemas';
import { DEPLOY_VERSION_SOURCE, checkGitUrl, findBundle, signedBundleUrl, storeBundle } from '@watchpost/core/actions';
import type { ActionDeps } from './deps.ts';
import { RemoteError } from './errors.ts';
import { cloneAtRef, gitAllow, lsRemote, pinnedConnection, refKind, runGit, versionAtHead, type GitOpts } from './git.ts';

/** The script the host runs from the unpacked bundle (rdp-login-monitor's deploy entry point). */
export const DEPLOY_SCRIPT = 'Deploy-LoginMonitor.ps1';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Left out of every bundle (issue 31). Deploy-LoginMonitor.ps1 (Sync-RdpMonitorSettingsFromShare) patches
 * the host's settings from this file when it finds it beside itself: unless the host's $SacApiKey is a
 * quoted 'sac_…' literal, it replaces the host's SAC block with the example's (the public repository's:
 * $UseSAC 'off', a placeholder URL, no key), and the monitor, forced to 'fallback' with no key, exits at
 * every start: the update switched the host off. Without the file the deploy logs "на шаре нет
 * login_monitor.settings.example.ps1" and leaves the host's settings as they are.
 */
export const SETTINGS_EXAMPLE = 'login_monitor.settings.example.ps1';

/** PowerShell files Windows PowerShell 5.1 decodes by BOM (scripts, modules, manifests). */
export function isPowerShellFile(path: string): boolean {
  return /\.(ps1|psm1|psd1)$/i.test(path);
}

/** The file with a UTF-8 BOM in front, unless it starts with a BOM already (UTF-8 or UTF-16). */
export function withUtf8Bom(content: Buffer): Buffer {
  const bom =
    content.subarray(0, 3).equals(UTF8_BOM) ||
    (content.length >= 2 && ((content[0] === 0xff && content[1] === 0xfe) || (content[0] === 0xfe && content[1] === 0xff)));
  return bom ? content : Buffer.concat([UTF8_BOM, content]);
}

/**
 * The zip of HEAD in `src` with BOMs added (a scratch index: the clone's own stays untouched) and
 * version.txt written when absent. Returns the zip and how many files got a BOM.
 */
async function bundleZip(src: string, scratch: string, version: string, opts: GitOpts): Promise<{ zip: Buffer; bommed: number }> {
  const g = { ...opts, cwd: src, env: { GIT_INDEX_FILE: join(scratch, 'index') } };
  await runGit(['read-tree', 'HEAD'], g);
  const entries = (await runGit(['ls-files', '-s', '-z'], g)).split('\0').filter(Boolean);
  let bommed = 0;
  let n = 0;
  for (const e of entries) {
    const m = /^(\d{6}) ([0-9a-f]{40,64}) \d\t(.*)$/s.exec(e);
    if (!m || !isPowerShellFile(m[3]!) || (m[1] !== '100644' && m[1] !== '100755')) continue;
    const blob = await runGit(['cat-file', 'blob', m[2]!], { ...g, encoding: 'buffer' });
    const fixed = withUtf8Bom(blob);
    if (fixed === blob) continue;
    const file = join(scratch, `blob-${n++}`);
    await writeFile(file, fixed);
    const sha = (await runGit(['hash-object', '-w', '--', file], g)).trim();
    await runGit(['update-index', '--cacheinfo', `${m[1]},${sha},${m[3]}`], g);
    bommed++;
  }
  if (entries.some((e) => e.endsWith(`\t${SETTINGS_EXAMPLE}`)))
    await runGit(['update-index', '--force-remove', '--', SETTINGS_EXAMPLE], g);
  if (!entries.some((e) => e.endsWith('\tversion.txt'))) {
    // Deploy-LoginMonitor.ps1 stops without version.txt in the source folder (one line, the version).
    const file = join(scratch, 'version.txt');
    await writeFile(file, `${version}\r\n`);
    const sha = (await runGit(['hash-object', '-w', '--', file], g)).trim();
    await runGit(['update-index', '--add', '--cacheinfo', `100644,${sha},version.txt`], g);
  }
  const tree = (await runGit(['write-tree'], g)).trim();
  const zip = await runGit(['archive', '--format=zip', tree], { ...g, encoding: 'buffer' });
  return { zip, bommed };
}

/** Builds (or finds) the bundle of the job's repository and branch; returns its id, version and SHA-256 (hex). */
export async function ensureBundle(
  deps: ActionDeps,
  job: ActionJobOf<'agent.update'>,
  signal: AbortSignal,
): Promise<{ id: number; version: string; deploys: string; source: string | null; sha256: string; commit: string }> {
  const allowFile = deps.config.actions.agentUpdate.allowFileUrls;
  const url = checkGitUrl(job.git_url, { allowFile });
  if (!url.ok) throw new RemoteError(url.reason);
  const opts: GitOpts = { allowFile, signal };
  // The host is resolved and checked once; git connects to that address only.
  const remote: GitOpts = { ...opts, ...(await pinnedConnection(url.url, gitAllow(deps.config.actions.agentUpdate))) };
  const ref = refKind(await lsRemote(url.url, remote), job.branch);
  if (!ref)
    throw new RemoteError(`${url.url} has no branch ${job.branch} (nor a tag of that name; a commit is named by its full id)`);
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-bundle-'));
  try {
    const src = join(dir, 'src');
    let commit: string;
    try {
      commit = await cloneAtRef(url.url, job.branch, ref, src, remote);
    } catch (err) {
      throw new RemoteError(`git clone ${url.url} (${job.branch}): ${(err as Error).message.replace(/^git clone: /, '')}`);
    }
    if ((await runGit(['ls-tree', '--name-only', 'HEAD', '--', DEPLOY_SCRIPT], { ...opts, cwd: src })).trim() !== DEPLOY_SCRIPT)
      throw new RemoteError(
        `the ${ref} ${job.branch} of ${url.url} has no ${DEPLOY_SCRIPT} at its root: not an rdp-login-monitor repository`,
      );
    // What the agent will report ($ScriptVersion first), and what the deploy installs by (version.txt).
    const { version, source } = await versionAtHead(src, opts);
    if (!version)
      throw new RemoteError(`the ${ref} ${job.branch} of ${url.url} states no version (no version.txt, version variable or tag)`);
    const deploys = (await versionAtHead(src, { ...opts, sources: [DEPLOY_VERSION_SOURCE], tags: [] })).version ?? version;
    const key = { kind: 'windows', gitUrl: url.url, branch: job.branch, commit } as const;
    const found = await findBundle(deps.pg, key);
    if (found) return { ...found, version, source, deploys, commit };
    const { zip, bommed } = await bundleZip(src, dir, version, opts);
    const sha256 = createHash('sha256').update(zip).digest('hex');
    deps.log.info({ git_url: url.url, commit, version, bommed }, 'agent bundle built');
    // A concurrent build of the same commit may have won: the stored zip (and its hash) is what is served.
    const stored = await storeBundle(deps.pg, key, { version, source, sha256, zip });
    return { id: stored.id, version, deploys, source, sha256: stored.sha256, commit };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The signed download URL of the job's bundle (built when needed) and the SHA-256 the host checks it against. */
export async function windowsBundleUrl(
  deps: ActionDeps,
  job: ActionJobOf<'agent.update'>,
  signal: AbortSignal,
): Promise<{ url: string; sha256: string; version: string; deploys: string; source: string | null; commit: string }> {
  const base = deps.config.actions.agentUpdate.publicUrl;
  if (!base)
    throw new RemoteError('SERVICE_PUBLIC_URL is not set: Windows hosts need it to download the agent bundle from the service');
  const b = await ensureBundle(deps, job, signal);
  return {
    url: signedBundleUrl(deps.secretsKey, base, b.id),
    sha256: b.sha256,
    version: b.version,
    deploys: b.deploys,
    source: b.source,
    commit: b.commit,
  };
}
