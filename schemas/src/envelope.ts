// The Kafka message on events.v1: key = host.hostname, value = this envelope as JSON.
import type { EventV1 } from './event-v1.ts';
import { validateEvent } from './validate.ts';

/**
 * Kafka header of every events.v1 message: the id of the agent key ingest verified for the event
 * (decimal text). A header, not a field of the value, so the value stays the agent's event as sent.
 * A message without it (appended before the header existed, or by another producer) has no known key.
 */
export const AGENT_KEY_HEADER = 'wp-agent-key';

/** The agent key id of a message's headers, or null when absent or not a positive decimal id. */
export function agentKeyIdOf(headers: Readonly<Record<string, unknown>> | undefined): number | null {
  let v = headers?.[AGENT_KEY_HEADER];
  if (Array.isArray(v)) v = v[0];
  const text = typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('latin1') : undefined;
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

export interface EventEnvelope {
  /** ISO 8601 UTC with milliseconds: when ingest received the event. */
  received_at: string;
  event: EventV1;
}

/** `eventJson` (when asked for): the event's own JSON text from the message, if it can be cut out exactly. */
export type DecodeResult = { ok: true; envelope: EventEnvelope; eventJson?: string } | { ok: false; reason: string };

export function encodeEnvelope(env: EventEnvelope): Buffer {
  return Buffer.from(JSON.stringify({ received_at: env.received_at, event: env.event }));
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const EVENT_PREFIX = /^\{"received_at":"[^"\\]*","event":/;

/** Index just past the JSON object or array that opens at `start` (the text is valid JSON). */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The event's text as ingest wrote it (`{"received_at":"...","event":<event>}`), so that sinks keep
 * the agent's JSON without serialising it again; undefined for any other layout.
 */
export function rawEventJson(text: string): string | undefined {
  const m = EVENT_PREFIX.exec(text);
  if (!m || text.charCodeAt(m[0].length) !== 123) return undefined;
  const end = valueEnd(text, m[0].length);
  if (end < 0 || text.slice(end).trim() !== '}') return undefined;
  return text.slice(m[0].length, end);
}

/** `opts.eventJson`: also cut out the event's text (only sinks that store it ask; it costs a scan). */
export function decodeEnvelope(buf: Buffer | null, opts: { eventJson?: boolean } = {}): DecodeResult {
  if (buf === null || buf.length === 0) return { ok: false, reason: 'empty message value' };
  let parsed: unknown;
  const text = buf.toString('utf8');
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `value is not JSON: ${(err as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, reason: 'value is not a JSON object' };
  const { received_at, event } = parsed as Record<string, unknown>;
  if (typeof received_at !== 'string' || !ISO_UTC.test(received_at) || Number.isNaN(Date.parse(received_at))) {
    return { ok: false, reason: 'received_at is missing or not an ISO 8601 UTC date-time' };
  }
  const v = validateEvent(event);
  if (!v.ok)
    return { ok: false, reason: `event fails schema v1: ${v.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}` };
  const eventJson = opts.eventJson ? rawEventJson(text) : undefined;
  return eventJson === undefined
    ? { ok: true, envelope: { received_at, event: v.event } }
    : { ok: true, envelope: { received_at, event: v.event }, eventJson };
}
