// The Kafka message on events.v1: key = host.hostname, value = this envelope as JSON.
import type { EventV1 } from './event-v1.ts';
import { validateEvent } from './validate.ts';

export interface EventEnvelope {
  /** ISO 8601 UTC with milliseconds: when ingest received the event. */
  received_at: string;
  event: EventV1;
}

export type DecodeResult = { ok: true; envelope: EventEnvelope } | { ok: false; reason: string };

export function encodeEnvelope(env: EventEnvelope): Buffer {
  return Buffer.from(JSON.stringify({ received_at: env.received_at, event: env.event }));
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function decodeEnvelope(buf: Buffer | null): DecodeResult {
  if (buf === null || buf.length === 0) return { ok: false, reason: 'empty message value' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(buf.toString('utf8'));
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
  return { ok: true, envelope: { received_at, event: v.event } };
}
