// A WinRM client for the job's host with the configured Windows administrator, and the session commands
// the WinRM kinds share (qwinsta, logoff). The client dials the address checked against the target
// networks, of a host an admin confirmed (target.ts); over HTTPS the host's certificate is checked before
// any credential is sent: one the operator's CA issued for the host (SERVICE_WINRM_CA_FILE) passes, else
// only the pinned one (hosts.winrm_cert_sha256) does. Any other, the first one included, is refused and
// left as a pending `winrm_certificate` change (fingerprint, subject, issuer, validity) for an admin to
// accept: a certificate is never pinned as a side effect of an action (issue 33).
// The session kinds (qwinsta, logoff) go through the host's agent instead when WinRM cannot run them
// (sessionClient, ../agent-transport.ts).
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { ActionJobBase, ActionTarget } from '@watchpost/schemas';
import {
  accountPart,
  findHostBinding,
  hasCommandAgent,
  loadWinrmSettings,
  parseSessionId,
  pinnedWinrmCertificate,
  proposeWinrmCertificate,
  winrmRefusal,
} from '@watchpost/core';
import { RemoteError } from '../errors.ts';
import { WinrmClient, type CommandResult, type PeerCertificate } from '../winrm.ts';
import { parseQwinsta } from '../qwinsta.ts';
import type { ActionDeps } from '../deps.ts';
import { handOverToAgent, type AgentJob } from '../agent-transport.ts';
import { checkedAddress } from './target.ts';

type WinrmJob = { target: ActionTarget } & Pick<ActionJobBase, 'action_id' | 'actor_role'>;

export async function winrm(deps: ActionDeps, job: WinrmJob, signal: AbortSignal): Promise<WinrmClient> {
  const s = await loadWinrmSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.password)
    throw new RemoteError(
      'WinRM is not configured: set the Windows administrator in the settings (or SERVICE_WINRM_USERNAME and SERVICE_WINRM_PASSWORD)',
    );
  const refused = winrmRefusal(s);
  if (refused) throw new RemoteError(refused);
  const ip = await checkedAddress(deps, job.target, signal);
  return new WinrmClient(
    {
      address: job.target.address,
      connectAddress: ip,
      port: s.port,
      transport: s.transport,
      username: s.username,
      password: s.password,
      verifyTls: s.verifyTls,
      auth: s.auth,
      ...(s.transport === 'https'
        ? { verifyPeer: (sha256: string, peer: PeerCertificate) => approveCertificate(deps, job, sha256, peer) }
        : {}),
      ...(deps.config.actions.winrm.caFile ? { ca: readCa(deps.config.actions.winrm.caFile) } : {}),
    },
    signal,
  );
}

/** How long the reachability probe before a session action waits for the WinRM port to accept. */
const PROBE_MS = 5_000;

/** Null when the port accepts a TCP connection (closed at once, nothing sent), else why not. */
function probe(ip: string, port: number, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port });
    const done = (why: string | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(why);
    };
    const onAbort = () => done('timed out');
    const timer = setTimeout(() => done(`no answer within ${PROBE_MS / 1000} s`), PROBE_MS);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/**
 * The WinRM client for a session action (qwinsta, logoff) when WinRM can run it. On a host whose bound
 * agent runs commands (rdp-login-monitor), the action goes through the agent instead (HandedToAgent is
 * thrown) when WinRM is not configured, its settings are refused, the host's address may not be
 * connected to, or the WinRM port does not accept a connection. A failure after the connection (TLS,
 * certificate pin, authentication, the command) stays a WinRM failure: something may have run.
 */
export async function sessionClient(deps: ActionDeps, job: AgentJob, signal: AbortSignal): Promise<WinrmClient> {
  if (!hasCommandAgent(await findHostBinding(deps.pg, job.target.hostname))) return winrm(deps, job, signal);
  const s = await loadWinrmSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.password) return handOverToAgent(deps, job, 'WinRM is not configured (no Windows administrator set)');
  const refused = winrmRefusal(s);
  if (refused) return handOverToAgent(deps, job, `WinRM refused by the settings: ${refused}`);
  let ip: string;
  try {
    ip = await checkedAddress(deps, job.target, signal);
  } catch (err) {
    if (err instanceof RemoteError) return handOverToAgent(deps, job, `WinRM may not connect: ${err.message}`);
    throw err;
  }
  const unreachable = await probe(ip, s.port, signal);
  if (unreachable)
    return handOverToAgent(deps, job, `WinRM at ${job.target.address}:${s.port} is not reachable (${unreachable})`);
  return winrm(deps, job, signal);
}

/** The operator's CA for WinRM certificates, read per action (a renewal needs no restart). */
function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new RemoteError(`SERVICE_WINRM_CA_FILE ${file}: cannot read it (${(err as Error).message}); no credentials were sent`, {
      cause: err,
    });
  }
}

/**
 * The certificate check of the job's host: one the operator's CA issued for the host passes, and so does
 * the pinned one; anything else (none pinned yet included) is refused and recorded as the host's pending
 * certificate change, which an admin accepts after comparing its fingerprint. Runs before any credential
 * is sent, for admins' and monitors' actions alike.
 */
async function approveCertificate(deps: ActionDeps, job: WinrmJob, sha256: string, peer: PeerCertificate): Promise<void> {
  const { pg } = deps;
  const hostId = job.target.host_id;
  if (peer.caTrusted) return;
  const pinned = await pinnedWinrmCertificate(pg, hostId);
  if (pinned === sha256) return;
  await proposeWinrmCertificate(pg, hostId, sha256, pinned, peer);
  const where = `WinRM on ${job.target.hostname}`;
  if (pinned === null)
    throw new RemoteError(
      `${where}: the host's certificate (SHA-256 ${sha256}, subject ${peer.subject}, issuer ${peer.issuer}) is not yet accepted by an admin, so no credentials were sent; an admin compares its fingerprint with the host's and accepts the host's pending certificate change (Hosts → Pending changes)`,
    );
  throw new RemoteError(
    `${where}: the host presented a certificate (SHA-256 ${sha256}) other than the accepted one (${pinned}), so no credentials were sent; if the host really has a new certificate, an admin accepts the host's pending certificate change (Hosts → Pending changes)`,
  );
}

export function requireSuccess(what: string, r: CommandResult): CommandResult {
  if (r.exitCode === 0) return r;
  const tail = (r.stderr.trim() || r.stdout.trim()).split(/\r?\n/).slice(-5).join(' | ').slice(0, 500);
  throw new RemoteError(`${what} failed with exit code ${r.exitCode}${tail ? `: ${tail}` : ''}`);
}

export async function sessions(client: WinrmClient) {
  const r = await client.run('qwinsta');
  // qwinsta exits 1 with "No session exists" when nothing matches; any other failure is an error.
  if (r.exitCode !== 0 && !/no session/i.test(r.stderr)) requireSuccess('qwinsta', r);
  return { sessions: parseQwinsta(r.stdout), raw: r.stdout };
}

/** qwinsta shows the bare account name; events may carry DOMAIN\user or user@domain. */
export const sessionOf = (s: { username: string }, user: string) => s.username.toLowerCase() === accountPart(user).toLowerCase();

export async function logoff(client: WinrmClient, id: number): Promise<void> {
  const safe = parseSessionId(id);
  if (safe === null) throw new RemoteError(`invalid session id ${String(id)}`);
  requireSuccess(`logoff ${safe}`, await client.run('logoff', [String(safe)]));
}
