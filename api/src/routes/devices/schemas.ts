// The devices routes' schemas (the OpenAPI document comes from them) and the request body types derived
// from them, never written twice.
import type { FromSchema } from 'json-schema-to-ts';
import { ENROLLMENT_CODE_PATTERN, type DeviceRow } from '@watchpost/core/devices';

export const tags = ['devices'];
export const mobileTags = ['mobile'];
export const dateTime = { type: 'string', format: 'date-time' } as const;

export const deviceSchema = {
  type: 'object',
  required: [
    'id',
    'device_uuid',
    'name',
    'platform',
    'user_id',
    'username',
    'role',
    'status',
    'created_at',
    'enrolled_at',
    'last_used_at',
  ],
  properties: {
    id: { type: 'integer' },
    device_uuid: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    platform: { type: 'string' },
    user_id: { type: 'integer' },
    username: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'monitor'], description: "the device acts with its user's role" },
    status: {
      type: 'string',
      enum: ['active', 'signed_out', 'revoked'],
      description:
        'signed_out: no usable session (refresh token reused, session expired, password changed or user inactive): the device enrolls again; it gets no pushes meanwhile',
    },
    created_at: dateTime,
    enrolled_at: dateTime,
    enroll_count: { type: 'integer', description: 'enrollments of this device UUID (re-enrollment reuses the record)' },
    last_used_at: { ...dateTime, nullable: true },
    revoked_at: { ...dateTime, nullable: true },
    revoked_by: { type: 'string', nullable: true },
    push_subscriptions: { type: 'integer' },
  },
} as const;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
/** A device as the API answers it (deviceSchema). */
export const view = ({ session_live, ...d }: DeviceRow) => ({
  ...d,
  status: d.revoked_at ? 'revoked' : session_live ? 'active' : 'signed_out',
  created_at: d.created_at.toISOString(),
  enrolled_at: d.enrolled_at.toISOString(),
  last_used_at: iso(d.last_used_at),
  revoked_at: iso(d.revoked_at),
});

export { idParams, type IdParams } from '../shared/schemas.ts';

export const enrollmentCodeBody = {
  type: 'object',
  additionalProperties: false,
  properties: { user_id: { type: 'integer', minimum: 1 } },
} as const;
export type EnrollmentCodeBody = FromSchema<typeof enrollmentCodeBody>;

export const enrollBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'device_uuid', 'name', 'platform'],
  properties: {
    code: { type: 'string', pattern: ENROLLMENT_CODE_PATTERN },
    device_uuid: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f]+$' },
    platform: { type: 'string', enum: ['ios', 'android', 'web', 'other'] },
  },
} as const;
export type EnrollBody = FromSchema<typeof enrollBody>;

export const subscriptionBody = {
  type: 'object',
  additionalProperties: true,
  required: ['endpoint', 'keys'],
  properties: {
    endpoint: { type: 'string', format: 'uri', pattern: '^https://', maxLength: 2048 },
    keys: {
      type: 'object',
      required: ['p256dh', 'auth'],
      properties: {
        p256dh: {
          type: 'string',
          pattern: '^[A-Za-z0-9_-]{80,100}={0,2}$',
          description: 'base64url P-256 public key (65 bytes)',
        },
        auth: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,24}={0,2}$', description: 'base64url auth secret (16 bytes)' },
      },
    },
  },
} as const;
export type SubscriptionBody = FromSchema<typeof subscriptionBody>;

export const unsubscribeBody = {
  type: 'object',
  required: ['endpoint'],
  properties: { endpoint: { type: 'string', maxLength: 2048 } },
} as const;
export type UnsubscribeBody = FromSchema<typeof unsubscribeBody>;
