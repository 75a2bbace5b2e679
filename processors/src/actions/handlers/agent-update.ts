// agent.update: Linux over SSH (installs the updater script when missing, runs it, reads the version
// back); Windows over WinRM (downloads the bundle from the service, installs it, reads the version back).
// The version read back becomes the host's product_version.
import { dirname } from 'node:path';
import type { ActionJobOf } from '@watchpost/schemas';
import { parseVersion, powerShellCommandLine, quotePosix, quotePowerShell, setHostProductVersion } from '@watchpost/core';
import { RemoteError } from '../errors.ts';
import { commandFailure } from '../ssh.ts';
import { LINUX_UPDATER_SCRIPT } from '../linux-updater.ts';
import { windowsBundleUrl } from '../bundle.ts';
import type { ActionDeps, ActionHandler } from '../deps.ts';
import { sshConnect } from './ssh-host.ts';
import { requireSuccess, winrm } from './winrm-host.ts';

type Job = ActionJobOf<'agent.update'>;

async function linuxUpdate(deps: ActionDeps, job: Job, signal: AbortSignal): Promise<Record<string, unknown>> {
  const path = deps.config.actions.agentUpdate.linuxUpdaterPath;
  const p = quotePosix(path);
  const conn = await sshConnect(deps, job, signal);
  try {
    const uid = await conn.exec('id -u');
    if (uid.code !== 0) throw commandFailure('id -u', uid);
    const sudo = uid.stdout.trim() === '0' ? '' : 'sudo -n ';
    let installedUpdater = false;
    if ((await conn.exec(`test -x ${p}`)).code !== 0) {
      const dir = quotePosix(dirname(path));
      const r = await conn.exec(`${sudo}mkdir -p ${dir} && ${sudo}tee ${p} >/dev/null && ${sudo}chmod 0755 ${p}`, {
        stdin: LINUX_UPDATER_SCRIPT,
      });
      if (r.code !== 0) throw commandFailure('installing the updater script', r);
      installedUpdater = true;
    }
    const before = await conn.exec(`${sudo}${p} version`);
    const u = await conn.exec(`${sudo}${p} update ${quotePosix(job.git_url)} ${quotePosix(job.branch)}`);
    if (u.code !== 0) throw commandFailure('the agent update', u);
    const v = await conn.exec(`${sudo}${p} version`);
    if (v.code !== 0) throw commandFailure('reading the agent version back', v);
    const version = v.stdout.trim();
    if (parseVersion(version) === null)
      throw new RemoteError(`the agent reports "${version.slice(0, 64)}", which is not a version`);
    await setHostProductVersion(deps.pg, job.target.host_id, version);
    return {
      agent: 'linux',
      installed_updater: installedUpdater,
      previous_version: before.code === 0 ? before.stdout.trim() : null,
      version,
      git_url: job.git_url,
      branch: job.branch,
    };
  } finally {
    conn.close();
  }
}

/**
 * Windows: download the zip bundle from the service (signed URL), check its SHA-256 (the download may be
 * plain HTTP: the signature says who may fetch, the hash what must arrive), unpack it, run its
 * install.ps1, read the version back.
 */
export function windowsUpdateScript(bundleUrl: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('bundle SHA-256 must be 64 hex digits');
  return [
    "$ErrorActionPreference = 'Stop'",
    '[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12',
    `$url = ${quotePowerShell(bundleUrl)}`,
    "$dir = Join-Path $env:ProgramData 'watchpost-agent\\rdp-login-monitor'",
    "$zip = Join-Path $env:TEMP ('watchpost-agent-' + [guid]::NewGuid().ToString() + '.zip')",
    'Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $zip',
    `$sha256 = ${quotePowerShell(sha256)}`,
    "if ((Get-FileHash -Algorithm SHA256 -LiteralPath $zip).Hash -ne $sha256) { Remove-Item -Force $zip; throw 'agent bundle SHA-256 mismatch: download refused' }",
    "$new = $dir + '.new'",
    'if (Test-Path $new) { Remove-Item -Recurse -Force $new }',
    'Expand-Archive -Path $zip -DestinationPath $new -Force',
    'Remove-Item -Force $zip',
    "if (Test-Path (Join-Path $new 'install.ps1')) { & (Join-Path $new 'install.ps1') }",
    'if (Test-Path $dir) { Remove-Item -Recurse -Force $dir }',
    'Move-Item $new $dir',
    "Get-Content (Join-Path $dir 'VERSION') -TotalCount 1",
  ].join('\n');
}

async function windowsUpdate(deps: ActionDeps, job: Job, signal: AbortSignal): Promise<Record<string, unknown>> {
  const bundle = await windowsBundleUrl(deps, job, signal);
  const client = await winrm(deps, job, signal);
  const [exe, ...args] = powerShellCommandLine(windowsUpdateScript(bundle.url, bundle.sha256)).split(' ');
  const r = requireSuccess('the agent update', await client.run(exe!, args));
  const version = r.stdout.trim().split(/\r?\n/).pop()?.trim() ?? '';
  if (parseVersion(version) === null)
    throw new RemoteError(`the agent reports "${version.slice(0, 64)}", which is not a version`);
  await setHostProductVersion(deps.pg, job.target.host_id, version);
  return { agent: 'windows', version, git_url: job.git_url, branch: job.branch };
}

export const agentUpdate: ActionHandler<'agent.update'> = (deps, job, signal) =>
  job.agent === 'windows' ? windowsUpdate(deps, job, signal) : linuxUpdate(deps, job, signal);
