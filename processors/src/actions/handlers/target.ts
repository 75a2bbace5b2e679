// Where a host action may connect: the job's address (the host's confirmed address) resolved once here,
// in the worker, and checked against the target networks; the connection goes to the IP returned,
// never to a second resolution of the name (DNS rebinding).
import type { ActionTarget } from '@watchpost/schemas';
import { loadTargetNetworks, resolveActionTarget } from '@watchpost/core';
import { abortable, RemoteError } from '../errors.ts';
import type { ActionDeps } from '../deps.ts';

/** The checked IP to dial, or a RemoteError saying why nothing may connect there. */
export async function checkedAddress(deps: ActionDeps, target: ActionTarget, signal: AbortSignal): Promise<string> {
  const networks = await loadTargetNetworks(deps.pg, deps.config.actions);
  const r = await abortable(resolveActionTarget(target.address, networks), signal, `resolving ${target.address}`);
  if (!r.ok) throw new RemoteError(`host ${target.hostname}: ${r.reason}`);
  return r.ip;
}
