// winrm.test: `hostname` over WinRM.
import type { ActionHandler } from '../deps.ts';
import { requireSuccess, winrm } from './winrm-host.ts';

export const winrmTest: ActionHandler<'winrm.test'> = async (deps, job, signal) => {
  const client = await winrm(deps, job, signal);
  const r = requireSuccess('hostname', await client.run('hostname'));
  return { ok: true, endpoint: client.url, remote_hostname: r.stdout.trim() };
};
