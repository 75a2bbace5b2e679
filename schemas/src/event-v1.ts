// Event schema v1, exactly as the spec's "Event (canonical event, schema v1)" tables list it.
// The TypeScript type EventV1 is derived from this object (json-schema-to-ts), never written twice.
import type { FromSchema } from 'json-schema-to-ts';

export const CATEGORIES = ['auth', 'privilege', 'network', 'session', 'report', 'agent'] as const;
export const SEVERITIES = ['info', 'warning', 'high', 'critical'] as const;
export const PRODUCTS = ['ssh-monitor', 'rdp-login-monitor'] as const;
export const OS_FAMILIES = ['linux', 'windows'] as const;
export const RAW_FORMATS = ['journal', 'windows_event_xml', 'text'] as const;
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;

export type Severity = (typeof SEVERITIES)[number];

// Any RFC 9562 UUID in its canonical 8-4-4-4-12 hex form (the `uuid` format alone also accepts a
// `urn:uuid:` prefix, which would give one event two spellings of its idempotency key).
const uuid = {
  type: 'string',
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

export const eventSchemaV1 = {
  $id: 'https://watchpost.local/schemas/event-v1.json',
  title: 'Event v1',
  type: 'object',
  additionalProperties: false,
  required: ['schema_version', 'event_id', 'occurred_at', 'source', 'host', 'category', 'type', 'severity', 'title', 'summary'],
  properties: {
    schema_version: { type: 'string', const: '1.0' },
    event_id: uuid,
    // ISO 8601 date-time WITH an offset (`Z` counts); the pattern keeps to forms Date.parse reads
    // (no hour-only `+01` offset), the format checks that the date and time exist.
    occurred_at: {
      type: 'string',
      format: 'date-time',
      pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:?\\d{2})$',
    },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['product', 'product_version'],
      properties: {
        product: { type: 'string', enum: PRODUCTS },
        product_version: { type: 'string' },
        agent_instance_id: { type: 'string' },
      },
    },
    host: {
      type: 'object',
      additionalProperties: false,
      required: ['hostname', 'os_family'],
      properties: {
        hostname: { type: 'string' },
        os_family: { type: 'string', enum: OS_FAMILIES },
        display_name: { type: 'string' },
        fqdn: { type: 'string' },
        os_version: { type: 'string' },
        ipv4: { type: 'string' },
        ipv6: { type: 'string' },
        timezone: { type: 'string' },
      },
    },
    category: { type: 'string', enum: CATEGORIES },
    type: { type: 'string' },
    severity: { type: 'string', enum: SEVERITIES },
    title: { type: 'string', maxLength: 256 },
    summary: { type: 'string', maxLength: 8192 },
    details: { type: 'object', additionalProperties: true },
    raw: {
      type: 'object',
      additionalProperties: false,
      properties: {
        format: { type: 'string', enum: RAW_FORMATS },
        payload: { type: 'string', maxLength: 16384 },
      },
    },
    tags: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 64 } },
    dedup_key: { type: 'string', maxLength: 512 },
    correlation_id: uuid,
    fingerprint: { type: 'string', maxLength: 128 },
    enrichment: {
      type: 'object',
      additionalProperties: true,
      properties: {
        attempt_number: { type: 'integer', minimum: 0 },
        threshold: { type: 'integer', minimum: 0 },
        risk_level: { type: 'string', enum: RISK_LEVELS },
        filtered_out: { type: 'boolean' },
        filter_reason: { type: 'string' },
      },
    },
  },
} as const;

export type EventV1 = FromSchema<typeof eventSchemaV1>;

/** Position in SEVERITIES (info 0 .. critical 3); -1 for a string that is not a severity. */
export function severityRank(s: string): number {
  return SEVERITIES.indexOf(s as Severity);
}

export function isSeverity(s: unknown): s is Severity {
  return typeof s === 'string' && severityRank(s) >= 0;
}

export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) >= severityRank(b) ? a : b;
}
