// The time every window counts an event by (dashboards, the events list, the hourly rollup, the daily
// report, flap positions, problem timelines): the agent's own `occurred_at` while it is plausible,
// else the service's receive time. An agent's clock hours ahead would otherwise hide its events from
// "last 24 h" until the hours pass, and one reset to 1970 or 2001 would bury them.
//
// Plausible = not more than FUTURE_BOUND_MS ahead of the receive time (an event cannot be sent
// before it happened; the bound absorbs ordinary drift), and not more than PAST_BOUND_MS behind it.
// The past bound is wide because late events are honest: the Windows agent spools what it could not
// send and re-sends it, newest first and without expiry, once the service answers again
// (Sac-Client.ps1, Invoke-SacFlushSpool), so an event is as old as the outage it waited out. A clock
// behind by less than the bound cannot be told from such a spooled event and keeps its own time.
//
// Pure, and a function of the event and its receive time only (both travel in the Kafka message), so
// a redelivered or replayed event gets the same window time and collapses onto its stored row.

export const FUTURE_BOUND_MS = 5 * 60_000;
export const PAST_BOUND_MS = 7 * 86_400_000;

export interface WindowTime {
  /** The time windows use: occurred_at when plausible, else received_at. */
  at: Date;
  /** occurred_at - received_at in ms (NaN when occurred_at is unreadable). */
  skewMs: number;
  /** occurred_at was out of bounds (or unreadable): `at` is the receive time. */
  skewed: boolean;
}

const ms = (t: Date | string | number): number => (t instanceof Date ? t.getTime() : typeof t === 'string' ? Date.parse(t) : t);

/** Times as Date, ISO 8601 text or epoch ms. */
export function windowTime(occurredAt: Date | string | number, receivedAt: Date | string | number): WindowTime {
  const o = ms(occurredAt);
  const r = ms(receivedAt);
  const skewMs = o - r;
  const skewed = !(skewMs <= FUTURE_BOUND_MS && skewMs >= -PAST_BOUND_MS); // NaN counts as skewed
  return { at: new Date(skewed ? r : o), skewMs, skewed };
}
