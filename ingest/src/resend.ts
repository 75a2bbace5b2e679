// The content identity of an event, for agents that re-send an event under a new event_id.
//
// rdp-login-monitor gives every post a fresh id (Sac-Client.ps1 New-SacEventPayload: [guid]::NewGuid()).
// When a post fails before an HTTP answer (refused connection, DNS, TLS: GetRequestStream throws out of
// Invoke-SacHttpPost, so nothing is spooled), Login_Monitor.ps1 abandons the rest of its pass with its
// event-log cursors unmoved, and the next pass posts the same Windows events again, each with a new id
// and the same occurred_at (the Windows event's TimeCreated, to the millisecond). Idempotency by id
// cannot see that; this key can: the same host, type, time on the host and content are one event.
import { createHash } from 'node:crypto';
import { canonicalJson, type EventV1 } from '@watchpost/schemas';

/** The agents known to re-send with fresh ids; other products' events get no content key. */
export const RESENDING_PRODUCTS: ReadonlySet<string> = new Set(['rdp-login-monitor']);

/**
 * Details that may differ between two posts of one event: `telegram_via` follows the agent's UseSAC
 * mode at the moment of the post (Merge-SacNotifyDetails), not the event.
 */
const PER_POST_DETAILS = new Set(['telegram_via']);

/**
 * The content key of an event (base64url of SHA-256, 22 characters: 132 bits), or undefined when its
 * product does not re-send. Covers hostname (case-insensitive), type, occurred_at as an instant (the
 * same time written with another offset is the same), severity, title, summary and details; not
 * event_id, source (a version change between the posts is the same event), the rest of the host block
 * (the agent recomputes host.ipv4 per post, which flips on multi-homed hosts), tags or raw.
 */
export function resendKeyOf(event: EventV1): string | undefined {
  if (!RESENDING_PRODUCTS.has(event.source.product)) return undefined;
  const at = Date.parse(event.occurred_at);
  let details: Record<string, unknown> | null = null;
  if (event.details) {
    details = {};
    for (const [k, v] of Object.entries(event.details)) if (!PER_POST_DETAILS.has(k)) details[k] = v;
  }
  // The fixed fields in a fixed order need no sorting; only details may come in any key order.
  const head = JSON.stringify([
    event.host.hostname.toLowerCase(),
    event.type,
    Number.isFinite(at) ? at : event.occurred_at,
    event.severity,
    event.title,
    event.summary,
  ]);
  return createHash('sha256')
    .update(head)
    .update(details ? canonicalJson(details) : 'null')
    .digest('base64url')
    .slice(0, 22);
}
