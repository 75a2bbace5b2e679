// winrm.logoff_user: every session of one user, over WinRM or through the host's agent (sessionClient;
// the agent's steps: ../agent-transport.ts).
import { parseSessionId } from '@watchpost/core';
import { RemoteError } from '../errors.ts';
import type { ActionHandler } from '../deps.ts';
import { logoff, sessionClient, sessionOf, sessions } from './winrm-host.ts';

export const winrmLogoffUser: ActionHandler<'winrm.logoff_user'> = async (deps, job, signal) => {
  const client = await sessionClient(deps, job, signal);
  const mine = (await sessions(client)).sessions.filter((s) => sessionOf(s, job.user));
  if (mine.length === 0) throw new RemoteError(`no session of user ${job.user} on ${job.target.hostname}`);
  // all ids checked before the first logoff: never half done because of one odd line
  const bad = mine.find((s) => parseSessionId(s.id) === null);
  if (bad) throw new RemoteError(`qwinsta listed an invalid session id ${bad.id}; nothing was logged off`);
  for (const s of mine) await logoff(client, s.id);
  return { user: job.user, logged_off: mine.map((s) => ({ id: s.id, session_name: s.session_name, state: s.state })) };
};
