// agent.update: Linux over SSH (installs the updater script when missing, runs it, reads the version
// back: it becomes the host's product_version); Windows over WinRM (downloads the bundle from the service,
// runs the agent's own Deploy-LoginMonitor.ps1 on it, and is done when the agent reports the new version
// in its events).
import { dirname } from 'node:path';
import type { ActionJobOf } from '@watchpost/schemas';
import {
  compareVersions,
  parseVersion,
  powerShellCommandLine,
  quotePosix,
  raiseStalledUpdate,
  quotePowerShell,
} from '@watchpost/core/actions';
import { findHost, setHostProductVersion } from '@watchpost/core/hosts';
import { RemoteError } from '../errors.ts';
import { commandFailure } from '../ssh.ts';
import { LINUX_UPDATER_SCRIPT } from '../linux-updater.ts';
import { DEPLOY_SCRIPT, windowsBundleUrl } from '../bundle.ts';
import type { ActionDeps, ActionHandler } from '../deps.ts';
import { sshConnect } from './ssh-host.ts';
import { requireSuccess, winrm } from './winrm-host.ts';

type Job = ActionJobOf<'agent.update'>;

/** The commit the Linux updater says it installed ("updated to <version> (commit <id>)"), or null. */
export function installedCommit(stdout: string): string | null {
  return /\(commit ([0-9a-f]{40}|[0-9a-f]{64})\)/.exec(stdout)?.[1] ?? null;
}

async function linuxUpdate(deps: ActionDeps, job: Job, signal: AbortSignal): Promise<Record<string, unknown>> {
  const path = deps.config.actions.agentUpdate.linuxUpdaterPath;
  const p = quotePosix(path);
  const conn = await sshConnect(deps, job, signal);
  try {
    const uid = await conn.exec('id -u');
    if (uid.code !== 0) throw commandFailure('id -u', uid);
    const sudo = uid.stdout.trim() === '0' ? '' : 'sudo -n ';
    let installedUpdater = false;
    // Missing or another release of the updater (cmp reads the installed one, no sudo needed): (re)install.
    if ((await conn.exec(`test -x ${p} && cmp -s - ${p}`, { stdin: LINUX_UPDATER_SCRIPT })).code !== 0) {
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
      // The commit the host checked out (the updater prints it): the branch head when it cloned, or the pin.
      commit: installedCommit(u.stdout),
      git_url: job.git_url,
      branch: job.branch,
    };
  } finally {
    conn.close();
  }
}

/**
 * Windows, the agent's own update path (rdp-login-monitor: update-rdp-monitor.ps1 publishes the repository
 * to a folder, hosts run Deploy-LoginMonitor.ps1 -SourceShareRoot <folder>): download the bundle from the
 * service (signed URL), check its SHA-256 (the download may be plain HTTP: the signature says who may
 * fetch, the hash what must arrive), unpack it to a fresh staging folder and run its
 * Deploy-LoginMonitor.ps1 -SourceShareRoot <staging> in a child Windows PowerShell, as the agent's GPO
 * startup script does. No other parameter. The deploy keeps login_monitor.settings.ps1 only because the
 * bundle carries no settings example (bundle.ts, SETTINGS_EXAMPLE: with one beside it, the deploy replaces
 * a SAC block whose key is not a quoted 'sac_…' literal with the example's); it never downgrades (no -AllowDowngrade),
 * and restarts the monitor, which reports its version at once (Login_Monitor.ps1 -SendDeploySacNotice:
 * agent.lifecycle `updated`). The deploy always exits 0 and logs to deploy.log, so the script prints what
 * it left: `WATCHPOST-DEPLOYED=` the deployed_version.txt it wrote, `WATCHPOST-LOG ` the log lines of
 * this run. The staging folder and the zip are removed afterwards.
 */
export function windowsUpdateScript(bundleUrl: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('bundle SHA-256 must be 64 hex digits');
  return [
    "$ErrorActionPreference = 'Stop'",
    'try { [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false } catch { }',
    '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12',
    `$url = ${quotePowerShell(bundleUrl)}`,
    `$sha256 = ${quotePowerShell(sha256)}`,
    `$root = Join-Path $env:ProgramData ${quotePowerShell('watchpost-agent')}`,
    "$staging = Join-Path $root ('staging-' + [guid]::NewGuid().ToString('N'))",
    "$zip = $staging + '.zip'",
    // Deploy-LoginMonitor.ps1's $InstallRoot, $VersionStampPath and $DeployLogPath.
    "$installRoot = Join-Path $env:ProgramData 'RDP-login-monitor'",
    "$stamp = Join-Path $installRoot 'deployed_version.txt'",
    "$log = Join-Path $installRoot 'Logs\\deploy.log'",
    'New-Item -ItemType Directory -Force -Path $root | Out-Null',
    'try {',
    '  Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $zip',
    "  if ((Get-FileHash -Algorithm SHA256 -LiteralPath $zip).Hash -ne $sha256) { throw 'agent bundle SHA-256 mismatch: download refused' }",
    '  Expand-Archive -LiteralPath $zip -DestinationPath $staging -Force',
    `  $deploy = Join-Path $staging ${quotePowerShell(DEPLOY_SCRIPT)}`,
    `  if (-not (Test-Path -LiteralPath $deploy)) { throw ${quotePowerShell(`the bundle has no ${DEPLOY_SCRIPT}`)} }`,
    '  $logBefore = 0',
    '  if (Test-Path -LiteralPath $log) { $logBefore = @(Get-Content -LiteralPath $log).Count }',
    "  $ps = Join-Path $env:SystemRoot 'System32\\WindowsPowerShell\\v1.0\\powershell.exe'",
    '  & $ps -NoProfile -NonInteractive -ExecutionPolicy Bypass -File $deploy -SourceShareRoot $staging | Out-Null',
    "  'WATCHPOST-DEPLOY-EXIT=' + $LASTEXITCODE",
    "  if (Test-Path -LiteralPath $stamp) { 'WATCHPOST-DEPLOYED=' + ([string](Get-Content -LiteralPath $stamp | Where-Object { $_ -match '\\S' } | Select-Object -First 1)).Trim() }",
    "  if (Test-Path -LiteralPath $log) { @(Get-Content -LiteralPath $log) | Select-Object -Skip $logBefore -First 60 | ForEach-Object { 'WATCHPOST-LOG ' + $_ } }",
    '} finally {',
    '  Remove-Item -LiteralPath $zip -Force -ErrorAction SilentlyContinue',
    '  Remove-Item -LiteralPath $staging -Recurse -Force -ErrorAction SilentlyContinue',
    '}',
  ].join('\n');
}

/** What the update script printed: the deployed version stamp and this run's deploy log lines. */
export function parseDeployOutput(stdout: string): { deployed: string | null; log: string[] } {
  let deployed: string | null = null;
  const log: string[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    if (line.startsWith('WATCHPOST-DEPLOYED=')) deployed = line.slice('WATCHPOST-DEPLOYED='.length).trim() || null;
    else if (line.startsWith('WATCHPOST-LOG ')) log.push(line.slice('WATCHPOST-LOG '.length));
  }
  return { deployed, log };
}

/** How long the update waits for the agent to report the new version: a fifth of the update timeout, 5 s to 2 min. */
export function agentReportWaitMs(updateTimeoutMs: number): number {
  return Math.min(120_000, Math.max(5_000, Math.floor(updateTimeoutMs / 5)));
}

/**
 * Waits until the host's product_version (set by correlate from the agent's own events) is `version` or
 * newer; returns the version last seen and whether it got there in time.
 */
async function awaitAgentReport(
  deps: ActionDeps,
  hostId: number,
  version: string,
  waitMs: number,
  signal: AbortSignal,
): Promise<{ ok: boolean; reported: string | null }> {
  const until = Date.now() + waitMs;
  for (;;) {
    const reported = (await findHost(deps.pg, { id: hostId }, ['product_version']))?.product_version ?? null;
    const c = reported === null ? null : compareVersions(reported, version);
    if (c !== null && c >= 0) return { ok: true, reported };
    if (Date.now() >= until || signal.aborted) return { ok: false, reported };
    await new Promise((res) => setTimeout(res, 500));
  }
}

async function windowsUpdate(deps: ActionDeps, job: Job, signal: AbortSignal): Promise<Record<string, unknown>> {
  const previous = (await findHost(deps.pg, { id: job.target.host_id }, ['product_version']))?.product_version ?? null;
  const bundle = await windowsBundleUrl(deps, job, signal);
  const client = await winrm(deps, job, signal);
  const [exe, ...args] = powerShellCommandLine(windowsUpdateScript(bundle.url, bundle.sha256)).split(' ');
  const r = requireSuccess('the agent update', await client.run(exe!, args));
  const deployedAt = new Date();
  const out = parseDeployOutput(r.stdout);
  const tail = out.log.slice(-5).join(' | ').slice(0, 800);
  // The deploy writes version.txt's line to deployed_version.txt; the agent then reports its $ScriptVersion.
  const c = out.deployed === null ? null : compareVersions(out.deployed, bundle.deploys);
  if (c === null || c !== 0) {
    const why =
      c !== null && c > 0
        ? `the host has ${out.deployed}, newer than ${bundle.deploys}: the deploy script does not downgrade`
        : `${DEPLOY_SCRIPT} did not install ${bundle.deploys} (deployed_version.txt: ${out.deployed ?? 'none'})`;
    throw new RemoteError(`${why}${tail ? `; deploy.log: ${tail}` : ''}`);
  }
  // Done when the agent itself says so: its events set the host's version (correlate), not the tag name.
  const waitMs = agentReportWaitMs(deps.config.actions.updateTimeoutMs);
  const seen = await awaitAgentReport(deps, job.target.host_id, bundle.version, waitMs, signal);
  if (!seen.ok) {
    // Not followed by the agent's own events: a problem pages on-call with the likely cause (stalled-updates.ts).
    const host = await findHost(deps.pg, { id: job.target.host_id }, ['hostname', 'last_seen']);
    const problem = host
      ? await raiseStalledUpdate(deps.pg, {
          hostname: host.hostname,
          version: bundle.version,
          deployed: out.deployed!,
          deployedAt,
          lastSeen: host.last_seen,
          reported: seen.reported,
          actionId: job.action_id,
        })
      : null;
    throw new RemoteError(
      `${bundle.deploys} is installed (deployed_version.txt), but the agent has not reported ${bundle.version} within ${Math.round(waitMs / 1000)} s ` +
        `(its last reported version is ${seen.reported ?? 'unknown'}); the host's version follows the agent's next event` +
        (problem ? `; problem ${problem.id} names the likely cause` : ''),
    );
  }
  return {
    agent: 'windows',
    version: seen.reported,
    previous_version: previous,
    deployed_version: out.deployed,
    version_source: bundle.source,
    commit: bundle.commit,
    git_url: job.git_url,
    branch: job.branch,
  };
}

export const agentUpdate: ActionHandler<'agent.update'> = (deps, job, signal) =>
  job.agent === 'windows' ? windowsUpdate(deps, job, signal) : linuxUpdate(deps, job, signal);
