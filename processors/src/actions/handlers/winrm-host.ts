// A WinRM client for the job's host with the configured Windows administrator, and what the WinRM kinds
// share (a command's failure in words). The client dials the address checked against the target
// networks, of a host an admin confirmed (target.ts); over HTTPS the host's certificate is checked before
// any credential is sent: one the operator's CA issued for the host (SERVICE_WINRM_CA_FILE) passes, else
// only the pinned one (hosts.winrm_cert_sha256) does. Any other, the first one included, is refused and
// left as a pending `winrm_certificate` change (fingerprint, subject, issuer, validity) for an admin to
// accept: a certificate is never pinned as a side effect of an action (issue 33).
// The session kinds (qwinsta, logoff) choose their transport in core and run on one client made here by
// winrm-session-runner.ts; nothing here knows the agent.
import { readFileSync } from 'node:fs';
import type { ActionJobBase, ActionTarget } from '@watchpost/schemas';
import { loadWinrmSettings, winrmRefusal, type WinrmSettings } from '@watchpost/core/actions';
import { pinnedWinrmCertificate, proposeWinrmCertificate } from '@watchpost/core/hosts';
import { RemoteError } from '../errors.ts';
import { WinrmClient, type CommandResult, type PeerCertificate } from '../winrm.ts';
import type { ActionDeps } from '../deps.ts';
import { checkedAddress } from './target.ts';

type WinrmJob = { target: ActionTarget } & Pick<ActionJobBase, 'action_id' | 'actor_role'>;

/** The client of winrm.test and agent.update: the settings read and refused here, the address checked. */
export async function winrm(deps: ActionDeps, job: WinrmJob, signal: AbortSignal): Promise<WinrmClient> {
  const s = await loadWinrmSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.password)
    throw new RemoteError(
      'WinRM is not configured: set the Windows administrator in the settings (or SERVICE_WINRM_USERNAME and SERVICE_WINRM_PASSWORD)',
    );
  const refused = winrmRefusal(s);
  if (refused) throw new RemoteError(refused);
  return winrmClient(deps, job, s, await checkedAddress(deps, job.target, signal), signal);
}

/** A client with settings already read and checked (configured, not refused), to `ip`, the address checked (target.ts). */
export function winrmClient(deps: ActionDeps, job: WinrmJob, s: WinrmSettings, ip: string, signal: AbortSignal): WinrmClient {
  if (!s.username || !s.password) throw new RemoteError('WinRM is not configured (no Windows administrator set)');
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

/** A failed command in words: what, its exit code and the last lines it wrote. */
export function commandFailure(what: string, r: CommandResult): string {
  const tail = (r.stderr.trim() || r.stdout.trim()).split(/\r?\n/).slice(-5).join(' | ').slice(0, 500);
  return `${what} failed with exit code ${r.exitCode}${tail ? `: ${tail}` : ''}`;
}

export function requireSuccess(what: string, r: CommandResult): CommandResult {
  if (r.exitCode === 0) return r;
  throw new RemoteError(commandFailure(what, r));
}
