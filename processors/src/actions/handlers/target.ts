// Where a host action may connect: only to a host an admin confirmed (issue 33: a new hostname's first
// event must not choose where credentials go), at the job's address resolved once here, in the worker,
// and checked against the target networks; the connection goes to the IP returned, never to a second
// resolution of the name (DNS rebinding).
import type { ActionTarget } from '@watchpost/schemas';
import { isHostConfirmed } from '@watchpost/core/hosts';
import { loadTargetNetworks, resolveActionTarget } from '@watchpost/core/actions';
import { abortable, RemoteError } from '../errors.ts';
import type { ActionDeps } from '../deps.ts';

/** The checked IP to dial, or a RemoteError saying why nothing may connect there. */
export async function checkedAddress(deps: ActionDeps, target: ActionTarget, signal: AbortSignal): Promise<string> {
  if (!(await isHostConfirmed(deps.pg, target.host_id)))
    throw new RemoteError(
      `host ${target.hostname} is not confirmed: an admin has not yet accepted its addresses (Hosts → Pending changes), so no credentials were sent to it`,
    );
  const networks = await loadTargetNetworks(deps.pg, deps.config.actions);
  const r = await abortable(resolveActionTarget(target.address, networks), signal, `resolving ${target.address}`);
  if (!r.ok) throw new RemoteError(`host ${target.hostname}: ${r.reason}`);
  return r.ip;
}
