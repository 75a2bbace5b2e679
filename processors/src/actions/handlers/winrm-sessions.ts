// winrm.sessions: qwinsta over WinRM.
import type { ActionHandler } from '../deps.ts';
import { sessions, winrm } from './winrm-host.ts';

export const winrmSessions: ActionHandler<'winrm.sessions'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  return { endpoint: client.url, ...(await sessions(client)) };
};
