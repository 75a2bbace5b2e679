// An SSH session to the job's host with the configured user and key, to the address checked against the
// target networks; the host key is pinned at the first connection (host store) and checked at every
// later one, before the client authenticates.
import type { ActionTarget } from '@watchpost/schemas';
import { loadSshSettings } from '@watchpost/core/actions';
import { pinnedSshHostKey, pinSshHostKey } from '@watchpost/core/hosts';
import { RemoteError } from '../errors.ts';
import { connectSsh, type SshConnection } from '../ssh.ts';
import type { ActionDeps } from '../deps.ts';
import { checkedAddress } from './target.ts';

export async function sshConnect(deps: ActionDeps, job: { target: ActionTarget }, signal: AbortSignal): Promise<SshConnection> {
  const s = await loadSshSettings(deps.pg, deps.config.actions, deps.secretsKey);
  if (!s.username || !s.privateKey)
    throw new RemoteError(
      'SSH is not configured: set the SSH user and private key in the settings (or SERVICE_SSH_USERNAME and SERVICE_SSH_PRIVATE_KEY_FILE)',
    );
  const ip = await checkedAddress(deps, job.target, signal);
  const pinned = await pinnedSshHostKey(deps.pg, job.target.host_id);
  const conn = await connectSsh(
    { address: ip, port: s.port, username: s.username, privateKey: s.privateKey, pinnedHostKey: pinned },
    signal,
    deps.config.actions.timeoutMs,
  );
  if (pinned === null) await pinSshHostKey(deps.pg, job.target.host_id, conn.hostKey);
  return conn;
}
