// What the event routes read from an event: its user and, for a remote-gateway event, the registered
// Windows host behind its internal address.
import { findGatewayHost, type ActionHost } from '../../hosts/store.ts';
import { gatewayAddress, validUserName } from '../validate.ts';
import { notPossible, type ActionEvent, type ActionRouteContext } from './descriptor.ts';

/** Detail keys of gateway events naming the internal host the session goes to. */
export const GATEWAY_TARGET_KEYS = ['internal_address', 'target_address', 'internal_ip', 'target_host', 'resource'] as const;
/** Detail keys naming the event's user. */
export const USER_KEYS = ['user', 'username', 'target_user', 'account'] as const;

function detail(event: Record<string, unknown>, keys: readonly string[]): string | null {
  const d = event.details;
  if (typeof d !== 'object' || d === null) return null;
  for (const k of keys) {
    const v = (d as Record<string, unknown>)[k];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

/** The event's user (details.user, username, target_user, account, else its actor user), when valid. */
export const eventUser = (e: ActionEvent): string | null => validUserName(detail(e.event, USER_KEYS) ?? e.actor_user);

/** The registered Windows host behind a gateway event's internal address, and the event's user. */
export async function gatewayTarget(
  ctx: Pick<ActionRouteContext<unknown, unknown>, 'pg' | 'event'>,
): Promise<{ host: ActionHost; user: string | null }> {
  const e = await ctx.event();
  if (!e.type.startsWith('rdg.')) throw notPossible(`${e.type} is not a remote-gateway event`);
  const internal = detail(e.event, GATEWAY_TARGET_KEYS);
  if (!internal) throw notPossible(`the event names no internal address (details.${GATEWAY_TARGET_KEYS.join(', details.')})`);
  const addr = gatewayAddress(internal);
  const host = await findGatewayHost(ctx.pg, addr);
  if (!host) throw notPossible(`no registered Windows host has the internal address ${addr}`);
  return { host, user: eventUser(e) };
}
