// Envelope -> one row of the ClickHouse `events` table (pure; the column list is documented in
// processors/README.md).
import { detailText, eventKindOf, eventUserOf, sourceAddressOf, type EventEnvelope } from '@watchpost/schemas';
// The subpath, not core's main entry: the decode workers load only this.
import { windowTime } from '@watchpost/core/window-time';

export interface EventRow {
  event_id: string;
  /**
   * Unix seconds (DateTime holds seconds; the exact value stays in event_json): the window time
   * (core's windowTime), so every query, the sorting key and the hourly rollup count a host whose
   * clock is off by its receive time.
   */
  occurred_at: number;
  received_at: number;
  /** The agent's own occurred_at, as sent (clamped to DateTime). */
  agent_occurred_at: number;
  /** 1 when agent_occurred_at was out of bounds and occurred_at is the receive time. */
  clock_skewed: number;
  hostname: string;
  display_name: string;
  os_family: string;
  product: string;
  product_version: string;
  category: string;
  type: string;
  severity: string;
  title: string;
  summary: string;
  tags: string[];
  dedup_key: string;
  correlation_id: string;
  fingerprint: string;
  actor_user: string;
  source_ip: string;
  /** The agent key ingest verified for the event (its message's wp-agent-key header); 0 = unknown. */
  agent_key_id: number;
  event_json: string;
}

/** Column order of every insert (TabSeparated rows follow it). */
export const EVENT_COLUMNS = [
  'event_id',
  'occurred_at',
  'received_at',
  'agent_occurred_at',
  'clock_skewed',
  'hostname',
  'display_name',
  'os_family',
  'product',
  'product_version',
  'category',
  'type',
  'severity',
  'title',
  'summary',
  'tags',
  'dedup_key',
  'correlation_id',
  'fingerprint',
  'actor_user',
  'source_ip',
  'agent_key_id',
  'event_json',
] as const satisfies readonly (keyof EventRow)[];

const MAX_DATETIME = 4_294_967_295; // DateTime is UInt32 seconds

/** ISO 8601 with offset (or epoch ms) -> unix seconds, clamped to what DateTime can hold. */
export function toUnixSeconds(iso: string | number): number {
  const ms = typeof iso === 'number' ? iso : Date.parse(iso);
  if (Number.isNaN(ms)) return 0;
  return Math.min(MAX_DATETIME, Math.max(0, Math.floor(ms / 1000)));
}

/** First of `keys` in `details` holding a non-empty string or a number; '' when none (schemas' detailText). */
export function pickDetail(details: unknown, keys: readonly string[]): string {
  return detailText(details, keys) ?? '';
}

/**
 * `eventJson`: the event's text as received (kept as is); else the event is serialised. `agentKeyId`:
 * the verified key from the message's header (0 = unknown).
 */
export function envelopeToRow(env: EventEnvelope, eventJson?: string, agentKeyId = 0): EventRow {
  const e = env.event;
  const w = windowTime(e.occurred_at, env.received_at);
  // Type and severity as what the event is (a 4625 the agent labelled agent.notification counts as a
  // failed login); event_json keeps what the agent sent.
  const kind = eventKindOf(e);
  return {
    event_id: e.event_id,
    occurred_at: toUnixSeconds(w.at.getTime()),
    received_at: toUnixSeconds(env.received_at),
    agent_occurred_at: toUnixSeconds(e.occurred_at),
    clock_skewed: w.skewed ? 1 : 0,
    hostname: e.host.hostname,
    display_name: e.host.display_name ?? '',
    os_family: e.host.os_family,
    product: e.source.product,
    product_version: e.source.product_version,
    category: e.category,
    type: kind.type,
    severity: kind.severity,
    title: e.title,
    summary: e.summary,
    tags: e.tags ? [...e.tags] : [],
    dedup_key: e.dedup_key ?? '',
    correlation_id: e.correlation_id ?? '',
    fingerprint: e.fingerprint ?? '',
    actor_user: eventUserOf(e.details) ?? '',
    source_ip: sourceAddressOf(e.details) ?? '',
    agent_key_id: agentKeyId,
    event_json: eventJson ?? JSON.stringify(e),
  };
}
