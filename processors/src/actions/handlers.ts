// What each action kind does on the managed host. Values in command lines are validated by the API and
// quoted here (quotePosix / quotePowerShell); session ids are integers by type and checked again.
import { dirname } from 'node:path';
import type { ActionJob, ActionTarget } from '@watchpost/schemas';
import type { Config, Logger, Pool } from '@watchpost/runtime';
import {
  accountPart,
  loadSshSettings,
  loadWinrmSettings,
  parseSessionId,
  parseVersion,
  powerShellCommandLine,
  quotePosix,
  quotePowerShell,
  winrmRefusal,
} from '@watchpost/core';
import { RemoteError } from './errors.ts';
import { commandFailure, connectSsh, type SshConnection } from './ssh.ts';
import { WinrmClient, type CommandResult } from './winrm.ts';
import { parseQwinsta } from './qwinsta.ts';
import { LINUX_UPDATER_SCRIPT } from './linux-updater.ts';
import { gitTest } from './git.ts';
import { windowsBundleUrl } from './bundle.ts';

export interface ActionDeps {
  pg: Pool;
  config: Config;
  /** AES-256-GCM key of the stored credentials */
  secretsKey: Buffer;
  log: Logger;
}

type Result = Record<string, unknown>;
type Handler<K extends ActionJob['kind']> = (
  deps: ActionDeps,
  job: Extract<ActionJob, { kind: K }>,
  signal: AbortSignal,
) => Promise<Result>;

// --- SSH --------------------------------------------------------------------------------------------

async function sshConnect(deps: ActionDeps, job: { target: ActionTarget }, signal: AbortSignal): Promise<SshConnection> {
  const s = await loadSshSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.privateKey)
    throw new RemoteError(
      'SSH is not configured: set the SSH user and private key in the settings (or SERVICE_SSH_USERNAME and SERVICE_SSH_PRIVATE_KEY_FILE)',
    );
  const r = await deps.pg.query<{ ssh_host_key_sha256: string | null }>('SELECT ssh_host_key_sha256 FROM hosts WHERE id = $1', [
    job.target.host_id,
  ]);
  const pinned = r.rows[0]?.ssh_host_key_sha256 ?? null;
  const conn = await connectSsh(
    { address: job.target.address, port: s.port, username: s.username, privateKey: s.privateKey, pinnedHostKey: pinned },
    signal,
    deps.config.actions.timeoutMs,
  );
  if (pinned === null)
    await deps.pg.query('UPDATE hosts SET ssh_host_key_sha256 = $2 WHERE id = $1 AND ssh_host_key_sha256 IS NULL', [
      job.target.host_id,
      conn.hostKey,
    ]);
  return conn;
}

const ADMIN_CHECK = 'if [ "$(id -u)" -eq 0 ]; then echo root; elif sudo -n true 2>/dev/null; then echo sudo; else echo none; fi';

async function markSshAdmin(deps: ActionDeps, hostId: number, ok: boolean): Promise<void> {
  await deps.pg.query('UPDATE hosts SET ssh_admin_ok = $2, ssh_admin_checked_at = now() WHERE id = $1', [hostId, ok]);
}

const sshCheck: Handler<'ssh.check'> = async (deps, job, signal) => {
  const conn = await sshConnect(deps, job, signal).catch(async (err: unknown) => {
    // A host that no longer lets us in is no longer "SSH admin ok".
    if (err instanceof RemoteError) await markSshAdmin(deps, job.target.host_id, false);
    throw err;
  });
  try {
    const r = await conn.exec(ADMIN_CHECK);
    if (r.code !== 0) {
      await markSshAdmin(deps, job.target.host_id, false);
      throw commandFailure('the administration check', r);
    }
    const via = r.stdout.trim();
    const admin = via === 'root' || via === 'sudo';
    await markSshAdmin(deps, job.target.host_id, admin);
    return { ssh_admin_ok: admin, via: admin ? via : null, host_key_sha256: conn.hostKey };
  } finally {
    conn.close();
  }
};

async function linuxUpdate(
  deps: ActionDeps,
  job: Extract<ActionJob, { kind: 'agent.update' }>,
  signal: AbortSignal,
): Promise<Result> {
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
    await deps.pg.query('UPDATE hosts SET product_version = $2 WHERE id = $1', [job.target.host_id, version]);
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

// --- WinRM ------------------------------------------------------------------------------------------

async function winrm(deps: ActionDeps, job: { target: ActionTarget }, signal: AbortSignal): Promise<WinrmClient> {
  const s = await loadWinrmSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.password)
    throw new RemoteError(
      'WinRM is not configured: set the Windows administrator in the settings (or SERVICE_WINRM_USERNAME and SERVICE_WINRM_PASSWORD)',
    );
  const refused = winrmRefusal(s);
  if (refused) throw new RemoteError(refused);
  return new WinrmClient(
    {
      address: job.target.address,
      port: s.port,
      transport: s.transport,
      username: s.username,
      password: s.password,
      verifyTls: s.verifyTls,
      auth: s.auth,
    },
    signal,
  );
}

function requireSuccess(what: string, r: CommandResult): CommandResult {
  if (r.exitCode === 0) return r;
  const tail = (r.stderr.trim() || r.stdout.trim()).split(/\r?\n/).slice(-5).join(' | ').slice(0, 500);
  throw new RemoteError(`${what} failed with exit code ${r.exitCode}${tail ? `: ${tail}` : ''}`);
}

async function sessions(client: WinrmClient) {
  const r = await client.run('qwinsta');
  // qwinsta exits 1 with "No session exists" when nothing matches; any other failure is an error.
  if (r.exitCode !== 0 && !/no session/i.test(r.stderr)) requireSuccess('qwinsta', r);
  return { sessions: parseQwinsta(r.stdout), raw: r.stdout };
}

/** qwinsta shows the bare account name; events may carry DOMAIN\user or user@domain. */
const sessionOf = (s: { username: string }, user: string) => s.username.toLowerCase() === accountPart(user).toLowerCase();

async function logoff(client: WinrmClient, id: number): Promise<void> {
  const safe = parseSessionId(id);
  if (safe === null) throw new RemoteError(`invalid session id ${String(id)}`);
  requireSuccess(`logoff ${safe}`, await client.run('logoff', [String(safe)]));
}

const winrmTest: Handler<'winrm.test'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  const r = requireSuccess('hostname', await client.run('hostname'));
  return { ok: true, endpoint: client.url, remote_hostname: r.stdout.trim() };
};

const winrmSessions: Handler<'winrm.sessions'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  return { endpoint: client.url, ...(await sessions(client)) };
};

const winrmLogoff: Handler<'winrm.logoff'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  if (job.owner !== undefined) {
    const s = (await sessions(client)).sessions.find((x) => x.id === job.session_id);
    if (!s) throw new RemoteError(`no session ${job.session_id} on ${job.target.hostname}`);
    if (!sessionOf(s, job.owner))
      throw new RemoteError(`session ${job.session_id} is not a session of the event's user ${job.owner}`);
  }
  await logoff(client, job.session_id);
  return { session_id: job.session_id, logged_off: true };
};

const winrmLogoffUser: Handler<'winrm.logoff_user'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  const mine = (await sessions(client)).sessions.filter((s) => sessionOf(s, job.user));
  if (mine.length === 0) throw new RemoteError(`no session of user ${job.user} on ${job.target.hostname}`);
  // all ids checked before the first logoff: never half done because of one odd line
  const bad = mine.find((s) => parseSessionId(s.id) === null);
  if (bad) throw new RemoteError(`qwinsta listed an invalid session id ${bad.id}; nothing was logged off`);
  for (const s of mine) await logoff(client, s.id);
  return { user: job.user, logged_off: mine.map((s) => ({ id: s.id, session_name: s.session_name, state: s.state })) };
};

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

async function windowsUpdate(
  deps: ActionDeps,
  job: Extract<ActionJob, { kind: 'agent.update' }>,
  signal: AbortSignal,
): Promise<Result> {
  const bundle = await windowsBundleUrl(deps, job, signal);
  const client = await winrm(deps, job, signal);
  const [exe, ...args] = powerShellCommandLine(windowsUpdateScript(bundle.url, bundle.sha256)).split(' ');
  const r = requireSuccess('the agent update', await client.run(exe!, args));
  const version = r.stdout.trim().split(/\r?\n/).pop()?.trim() ?? '';
  if (parseVersion(version) === null)
    throw new RemoteError(`the agent reports "${version.slice(0, 64)}", which is not a version`);
  await deps.pg.query('UPDATE hosts SET product_version = $2 WHERE id = $1', [job.target.host_id, version]);
  return { agent: 'windows', version, git_url: job.git_url, branch: job.branch };
}

const agentUpdate: Handler<'agent.update'> = (deps, job, signal) =>
  job.agent === 'windows' ? windowsUpdate(deps, job, signal) : linuxUpdate(deps, job, signal);

export async function runHandler(deps: ActionDeps, job: ActionJob, signal: AbortSignal): Promise<Result> {
  switch (job.kind) {
    case 'ssh.check':
      return sshCheck(deps, job, signal);
    case 'winrm.test':
      return winrmTest(deps, job, signal);
    case 'winrm.sessions':
      return winrmSessions(deps, job, signal);
    case 'winrm.logoff':
      return winrmLogoff(deps, job, signal);
    case 'winrm.logoff_user':
      return winrmLogoffUser(deps, job, signal);
    case 'agent.update':
      return agentUpdate(deps, job, signal);
    case 'git.test':
      return gitTest(deps, job.git_url, job.branch, signal);
  }
}
