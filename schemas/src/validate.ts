// The one compiled validator for event schema v1. Lengths count characters (Unicode code points,
// ajv's `unicode` option), not bytes or UTF-16 units.
import { Ajv } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { eventSchemaV1, type EventV1 } from './event-v1.ts';

// ajv-formats is CommonJS: under ESM its function arrives as the namespace's `default`.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv, formats: string[]) => Ajv;

export interface ValidationError {
  /** JSON pointer (RFC 6901) to the offending value; for a missing or extra property, the property itself. */
  pointer: string;
  message: string;
}

export type ValidationResult = { ok: true; event: EventV1 } | { ok: false; errors: ValidationError[] };

/** At most this many errors are reported per event (the body limit bounds the work anyway). */
export const MAX_REPORTED_ERRORS = 20;

// ajv 8 counts minLength/maxLength in code points by default (its former `unicode` option).
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv, ['uuid', 'date-time']);
const compiled = ajv.compile<EventV1>(eventSchemaV1);

function escapePointerToken(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function validateEvent(x: unknown): ValidationResult {
  if (compiled(x)) return { ok: true, event: x };
  const errors: ValidationError[] = [];
  for (const e of compiled.errors ?? []) {
    if (errors.length >= MAX_REPORTED_ERRORS) break;
    let pointer = e.instancePath;
    let message = e.message ?? 'is invalid';
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'required') {
      pointer += `/${escapePointerToken(String(p.missingProperty))}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      pointer += `/${escapePointerToken(String(p.additionalProperty))}`;
      message = 'is not an allowed property';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    } else if (e.keyword === 'const') {
      message = `must be "${String(p.allowedValue)}"`;
    } else if (e.keyword === 'pattern' || e.keyword === 'format') {
      if (pointer === '/occurred_at') message = 'must be an ISO 8601 date-time with an offset (e.g. 2024-05-01T12:00:00Z)';
      else if (/\/(event_id|correlation_id)$/.test(pointer)) message = 'must be a UUID (8-4-4-4-12 hex digits)';
    }
    // One message per value is enough (type and const, or format and pattern, report the same field).
    if (errors.some((x) => x.pointer === pointer)) continue;
    errors.push({ pointer, message });
  }
  return { ok: false, errors };
}
