// A WinRM client for the job's host with the configured Windows administrator, and the session commands
// the WinRM kinds share (qwinsta, logoff).
import type { ActionTarget } from '@watchpost/schemas';
import { accountPart, loadWinrmSettings, parseSessionId, winrmRefusal } from '@watchpost/core';
import { RemoteError } from '../errors.ts';
import { WinrmClient, type CommandResult } from '../winrm.ts';
import { parseQwinsta } from '../qwinsta.ts';
import type { ActionDeps } from '../deps.ts';

export async function winrm(deps: ActionDeps, job: { target: ActionTarget }, signal: AbortSignal): Promise<WinrmClient> {
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
