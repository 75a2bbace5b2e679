// What the event routes read from an event: its user and, for a remote-gateway event, the registered
// Windows host behind its internal address.
import { detailText, eventUserOf } from '@watchpost/schemas';
import { findGatewayHost, type ActionHost } from '../../hosts/store.ts';
import { eventProvenance } from '../../hosts/provenance.ts';
import { COMMAND_AGENT_PRODUCT } from '../agent-commands.ts';
import { gatewayAddress, validUserName } from '../validate.ts';
import { notPossible, type ActionEvent, type ActionRouteContext } from './descriptor.ts';

/**
 * Detail keys of gateway events naming the internal host the session goes to (rdp-login-monitor:
 * `internal_ip`, the RD Gateway resource as the client typed it: an address or a name).
 */
export const GATEWAY_TARGET_KEYS = ['internal_address', 'target_address', 'internal_ip', 'target_host', 'resource'] as const;

/** The event's user (schemas' eventUserOf, else its stored actor user), when valid. */
export const eventUser = (e: ActionEvent): string | null => validUserName(eventUserOf(e.event.details) ?? e.actor_user);

/**
 * Refuses an event that did not come from its own host's Windows agent (issue 33): any fleet key can post
 * an event naming any user and internal host, so a gateway or terminate action believes only an event of
 * rdp-login-monitor posted with the key and instance its host is bound to, on a host an admin confirmed.
 */
export async function requireOwnAgentEvent(ctx: Pick<ActionRouteContext<unknown, unknown>, 'pg'>, e: ActionEvent): Promise<void> {
  if (e.product !== COMMAND_AGENT_PRODUCT)
    throw notPossible(
      `the event was sent by ${e.product || 'an unknown product'}, not by the Windows agent (${COMMAND_AGENT_PRODUCT})`,
    );
  const p = await eventProvenance(ctx.pg, e);
  if (p.verdict !== 'bound') throw notPossible(`this event is not trusted to act on: ${p.reason}`);
}

/** The registered Windows host behind a gateway event's internal address, and the event's user. */
export async function gatewayTarget(
  ctx: Pick<ActionRouteContext<unknown, unknown>, 'pg' | 'event'>,
): Promise<{ host: ActionHost; user: string | null }> {
  const e = await ctx.event();
  if (!e.type.startsWith('rdg.')) throw notPossible(`${e.type} is not a remote-gateway event`);
  await requireOwnAgentEvent(ctx, e);
  const internal = detailText(e.event.details, GATEWAY_TARGET_KEYS);
  if (!internal) throw notPossible(`the event names no internal address (details.${GATEWAY_TARGET_KEYS.join(', details.')})`);
  const addr = gatewayAddress(internal);
  const match = await findGatewayHost(ctx.pg, addr);
  if (match.host) return { host: match.host, user: eventUser(e) };
  if (match.ambiguous.length > 1)
    throw notPossible(
      `the internal address ${addr} matches several registered Windows hosts (${match.ambiguous.join(', ')}); ` +
        'set the internal address of the right host to tell them apart',
    );
  throw notPossible(`no registered Windows host has the internal address ${addr}`);
}
