// Schemas shared by the notification routes (api/NOTIFICATIONS.md): the OpenAPI document comes from them.
import { NOTIFY_CHANNELS, SEVERITIES } from '@watchpost/schemas';

export const tags = ['notifications'];
export const str = { type: 'string' } as const;
export const nstr = { type: 'string', nullable: true } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const channelEnum = { type: 'string', enum: [...NOTIFY_CHANNELS] } as const;

export const policySchema = {
  type: 'object',
  required: ['min_severity', 'channels'],
  properties: {
    min_severity: { type: 'string', enum: [...SEVERITIES] },
    channels: { type: 'array', items: channelEnum, uniqueItems: true },
    source: { type: 'string', enum: ['database', 'environment'] },
  },
} as const;

export const routeSchema = {
  type: 'object',
  required: ['channel', 'destination', 'chosen', 'reason'],
  properties: { channel: channelEnum, destination: str, chosen: { type: 'boolean' }, reason: str },
} as const;

export const deliverySchema = {
  type: 'object',
  required: [
    'id',
    'subject_key',
    'rule',
    'channel',
    'destination',
    'state',
    'attempts',
    'last_error',
    'response',
    'created_at',
    'updated_at',
    'sent_at',
  ],
  properties: {
    id: { ...str, description: 'delivery id = BullMQ job id' },
    subject_key: str,
    rule: str,
    channel: channelEnum,
    destination: str,
    state: { type: 'string', enum: ['queued', 'sending', 'sent', 'failed'] },
    attempts: { type: 'integer' },
    last_error: nstr,
    response: { ...nstr, description: "the provider's answer" },
    created_at: dateTime,
    updated_at: dateTime,
    sent_at: { ...dateTime, nullable: true },
  },
} as const;

export const decisionSchema = {
  type: 'object',
  required: ['subject_key', 'rule', 'reason', 'routes', 'recorded', 'deliveries'],
  properties: {
    subject_key: str,
    rule: { ...nstr, description: 'the notification rule that matched; null: nothing is sent' },
    reason: str,
    severity: { type: 'string', enum: [...SEVERITIES] },
    routes: { type: 'array', items: routeSchema },
    recorded: {
      type: 'boolean',
      description: 'true: what was decided when it arrived; false: computed now with the current policy',
    },
    created_at: dateTime,
    deliveries: { type: 'array', items: deliverySchema },
  },
} as const;

/** A delivery row as the API answers it. */
export function deliveryView<T extends { created_at: Date; updated_at: Date; sent_at: Date | null }>(x: T) {
  return {
    ...x,
    created_at: x.created_at.toISOString(),
    updated_at: x.updated_at.toISOString(),
    sent_at: x.sent_at?.toISOString() ?? null,
  };
}
