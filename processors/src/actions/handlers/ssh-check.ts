// ssh.check: root or passwordless sudo over SSH, persisted as the host's ssh_admin_ok.
import { setSshAdminOk } from '@watchpost/core/hosts';
import { RemoteError } from '../errors.ts';
import { commandFailure } from '../ssh.ts';
import type { ActionHandler } from '../deps.ts';
import { sshConnect } from './ssh-host.ts';

const ADMIN_CHECK = 'if [ "$(id -u)" -eq 0 ]; then echo root; elif sudo -n true 2>/dev/null; then echo sudo; else echo none; fi';

export const sshCheck: ActionHandler<'ssh.check'> = async (deps, job, signal) => {
  const conn = await sshConnect(deps, job, signal).catch(async (err: unknown) => {
    // A host that no longer lets us in is no longer "SSH admin ok".
    if (err instanceof RemoteError) await setSshAdminOk(deps.pg, job.target.host_id, false);
    throw err;
  });
  try {
    const r = await conn.exec(ADMIN_CHECK);
    if (r.code !== 0) {
      await setSshAdminOk(deps.pg, job.target.host_id, false);
      throw commandFailure('the administration check', r);
    }
    const via = r.stdout.trim();
    const admin = via === 'root' || via === 'sudo';
    await setSshAdminOk(deps.pg, job.target.host_id, admin);
    return { ssh_admin_ok: admin, via: admin ? via : null, host_key_sha256: conn.hostKey };
  } finally {
    conn.close();
  }
};
