// winrm.sessions: qwinsta over WinRM, or through the host's agent (sessionClient).
import type { ActionHandler } from '../deps.ts';
import { sessionClient, sessions } from './winrm-host.ts';

export const winrmSessions: ActionHandler<'winrm.sessions'> = async (deps, job, signal) => {
  const client = await sessionClient(deps, job, signal);
  return { endpoint: client.url, ...(await sessions(client)) };
};
