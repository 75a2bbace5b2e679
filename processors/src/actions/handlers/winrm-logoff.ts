// winrm.logoff: one session; with `owner`, only when qwinsta shows it belongs to that user. Over
// WinRM, or through the host's agent (sessionClient; the agent's steps: ../agent-transport.ts).
import { RemoteError } from '../errors.ts';
import type { ActionHandler } from '../deps.ts';
import { logoff, sessionClient, sessionOf, sessions } from './winrm-host.ts';

export const winrmLogoff: ActionHandler<'winrm.logoff'> = async (deps, job, signal) => {
  const client = await sessionClient(deps, job, signal);
  if (job.owner !== undefined) {
    const s = (await sessions(client)).sessions.find((x) => x.id === job.session_id);
    if (!s) throw new RemoteError(`no session ${job.session_id} on ${job.target.hostname}`);
    if (!sessionOf(s, job.owner))
      throw new RemoteError(`session ${job.session_id} is not a session of the event's user ${job.owner}`);
  }
  await logoff(client, job.session_id);
  return { session_id: job.session_id, logged_off: true };
};
