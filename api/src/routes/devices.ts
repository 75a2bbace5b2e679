// Mobile devices (api/MOBILE.md). Admins issue enrollment codes and list, revoke and delete devices;
// a device enrolls with a code (public, rate-limited like the login) and gets a session of its own: a
// refresh-token family bound to the device, so its access tokens are re-checked on every request like
// a user's and carry its user's role. A device then uses the ordinary read routes (events, problems,
// dashboard; tag `mobile`), POST /auth/refresh with its refresh token, and registers Web Push
// subscriptions here.
import type { FastifyPluginAsync } from 'fastify';
import { withTransaction } from '@watchpost/runtime';
import {
  audit,
  deleteDevice,
  deletePushSubscription,
  ENROLLMENT_CODE_PATTERN,
  enrollDevice,
  getDevice,
  getUserById,
  issueEnrollmentCode,
  listDevices,
  loadSecretsKey,
  loadVapidKeys,
  revokeDevice,
  pushKeysProblem,
  savePushSubscription,
  type DeviceRow,
} from '@watchpost/core';
import { ApiError, notFound } from '../errors.ts';
import { issueSession } from '../auth/tokens.ts';
import { alertRateLimited, rateLimitedError, recordFailure, releaseAttempt, reserveAttempt } from '../auth/login-limit.ts';

const tags = ['devices'];
const mobileTags = ['mobile'];
const dateTime = { type: 'string', format: 'date-time' } as const;

const deviceSchema = {
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
const view = ({ session_live, ...d }: DeviceRow) => ({
  ...d,
  status: d.revoked_at ? 'revoked' : session_live ? 'active' : 'signed_out',
  created_at: d.created_at.toISOString(),
  enrolled_at: d.enrolled_at.toISOString(),
  last_used_at: iso(d.last_used_at),
  revoked_at: iso(d.revoked_at),
});
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } } as const;

const devicesRoutes: FastifyPluginAsync = async (app) => {
  const { deps } = app;
  const { pg, config } = deps;
  let vapid: Promise<string> | undefined;
  const vapidPublicKey = () =>
    (vapid ??= loadSecretsKey(config.actions.secretsKey, config.stateDir)
      .then((key) =>
        loadVapidKeys(pg, key, {
          publicKey: config.devices.vapidPublicKey,
          privateKey: config.devices.vapidPrivateKey,
          subject: config.devices.vapidSubject,
        }),
      )
      .then((k) => k.publicKey)
      .catch((err: unknown) => {
        vapid = undefined;
        throw err;
      }));

  app.post<{ Body: { user_id?: number } }>(
    '/devices/enrollment-codes',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'createEnrollmentCode',
        tags,
        summary: 'Issue a single-use enrollment code (shown once)',
        description:
          'The code is 10 Crockford base32 symbols shown as XXXXX-XXXXX (50 bits; case, the dash and O/0, I/L/1 look-alikes do not matter), ' +
          `valid SERVICE_ENROLLMENT_CODE_TTL_MINUTES (${config.devices.codeTtlMinutes}) minutes, stored only as a hash. ` +
          'The device enrolled with it acts as `user_id` (default: the admin issuing it).',
        body: { type: 'object', additionalProperties: false, properties: { user_id: { type: 'integer', minimum: 1 } } },
        response: {
          201: {
            type: 'object',
            required: ['id', 'code', 'expires_at', 'user_id', 'username'],
            properties: {
              id: { type: 'integer' },
              code: { type: 'string' },
              expires_at: dateTime,
              user_id: { type: 'integer' },
              username: { type: 'string' },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const userId = req.body?.user_id ?? req.user!.id;
      const user = await getUserById(pg, userId);
      if (!user || !user.active) throw new ApiError(400, 'BAD_REQUEST', 'no active user with this id');
      const c = await issueEnrollmentCode(pg, {
        userId,
        createdBy: req.user!.username,
        ttlMinutes: config.devices.codeTtlMinutes,
      });
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'device.code_issue',
        details: { code_id: c.id, user: user.username },
      });
      reply.code(201);
      return { id: c.id, code: c.code, expires_at: c.expires_at.toISOString(), user_id: user.id, username: user.username };
    },
  );

  app.get(
    '/devices',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listDevices',
        tags,
        summary: 'Enrolled mobile devices with their last use',
        response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: deviceSchema } } } },
      },
    },
    async () => ({ items: (await listDevices(pg)).map(view) }),
  );

  app.post<{ Params: { id: number } }>(
    '/devices/:id/revoke',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'revokeDevice',
        tags,
        summary: 'Revoke a device: every token refused at once, push subscriptions removed, the record kept',
        params: idParams,
        response: { 200: deviceSchema },
      },
    },
    async (req) => {
      const ok = await withTransaction(pg, (c) => revokeDevice(c, req.params.id, req.user!.username));
      if (!ok) throw notFound('device');
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'device.revoke',
        details: { device_id: req.params.id },
      });
      return view((await getDevice(pg, req.params.id))!);
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/devices/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteDevice',
        tags,
        summary: 'Delete a device record completely (its tokens and push subscriptions too)',
        params: idParams,
        response: { 204: { type: 'null' } },
      },
    },
    async (req, reply) => {
      const d = await getDevice(pg, req.params.id);
      if (!d || !(await deleteDevice(pg, req.params.id))) throw notFound('device');
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'device.delete',
        details: { device_id: d.id, device_uuid: d.device_uuid, name: d.name, user: d.username },
      });
      return reply.code(204).send();
    },
  );

  app.post<{ Body: { code: string; device_uuid: string; name: string; platform: string } }>(
    '/mobile/enroll',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'enrollDevice',
        tags: mobileTags,
        summary: 'Enroll a device with an admin-issued code',
        description:
          'Answers an access token and a refresh token bound to the device (refresh with POST /auth/refresh, body {refresh_token}). ' +
          'Enrolling the same device_uuid again reuses its record: fresh tokens, the old ones refused. A wrong, used or expired code ' +
          'answers 401 INVALID_CODE; guesses are limited like logins (3 per device and address, 10 per device, 30 per address in the ' +
          'window, then 429 RATE_LIMITED with Retry-After).',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'device_uuid', 'name', 'platform'],
          properties: {
            code: { type: 'string', pattern: ENROLLMENT_CODE_PATTERN },
            device_uuid: { type: 'string', format: 'uuid' },
            name: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f]+$' },
            platform: { type: 'string', enum: ['ios', 'android', 'web', 'other'] },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['access_token', 'refresh_token', 'token_type', 'expires_in', 'refresh_expires_in', 'device'],
            properties: {
              access_token: { type: 'string' },
              refresh_token: { type: 'string' },
              token_type: { type: 'string', enum: ['Bearer'] },
              expires_in: { type: 'integer' },
              refresh_expires_in: { type: 'integer' },
              device: deviceSchema,
            },
          },
          401: { description: 'INVALID_CODE' },
          429: { description: 'RATE_LIMITED' },
        },
      },
    },
    async (req) => {
      const uuid = req.body.device_uuid.toLowerCase();
      const subject = { username: `device:${uuid}`, address: req.ip };
      const prefix = deps.redisKeyPrefix;
      const reservation = await reserveAttempt(deps.redis, prefix, subject, deps.auth);
      if (!reservation.ok) throw rateLimitedError(reservation, 'too many failed enrollment attempts; try again later');
      let result;
      try {
        result = await withTransaction(pg, async (c) => {
          const r = await enrollDevice(c, {
            code: req.body.code,
            deviceUuid: uuid,
            name: req.body.name,
            platform: req.body.platform,
          });
          // Rolled back: a code refused for its user or device stays usable (only a wrong code is spent nowhere).
          if (!r.ok) throw new EnrollRefused(r.reason);
          const u = await c.query<{ id: string; role: 'admin' | 'monitor'; token_version: number }>(
            'SELECT id, role, token_version FROM users WHERE id = $1',
            [r.device.userId],
          );
          const user = u.rows[0]!;
          const tokens = await issueSession(
            c,
            deps.auth,
            { id: Number(user.id), role: user.role, tokenVersion: user.token_version },
            r.device.id,
          );
          return { ...r, tokens };
        });
      } catch (err) {
        if (err instanceof EnrollRefused) result = { ok: false as const, reason: err.reason };
        else {
          await releaseAttempt(deps.redis, prefix, subject, false).catch(() => {});
          throw err;
        }
      }
      if (!result.ok) {
        const locked = await recordFailure(deps.redis, prefix, subject, deps.auth);
        await audit(pg, {
          actor: null,
          address: req.ip,
          action: 'device.enroll_refused',
          details: { device_uuid: uuid, reason: result.reason, ...(locked.length ? { locked } : {}) },
        });
        // Someone guessing codes: on-call hears of it as of a login lockout.
        if (locked.length > 0)
          await alertRateLimited(deps.notifications, subject, deps.auth.lockoutSeconds, (err) =>
            req.log.error({ err }, 'could not enqueue the enrollment rate-limit alert'),
          );
        throw new ApiError(401, 'INVALID_CODE', 'the enrollment code is wrong, used or expired');
      }
      await releaseAttempt(deps.redis, prefix, subject, true);
      const device = (await getDevice(pg, result.device.id))!;
      await audit(pg, {
        actor: device.username,
        address: req.ip,
        action: result.device.reused ? 'device.reenroll' : 'device.enroll',
        details: { device_id: device.id, device_uuid: uuid, name: device.name, platform: device.platform },
      });
      return { ...result.tokens, device: view(device) };
    },
  );

  app.get(
    '/mobile/device',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getOwnDevice',
        tags: mobileTags,
        summary: 'The device of the calling session (400 NOT_A_DEVICE for a browser session)',
        response: { 200: deviceSchema },
      },
    },
    async (req) => view((await getDevice(pg, ownDevice(req.deviceId)))!),
  );

  app.get(
    '/mobile/push/vapid-public-key',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getVapidPublicKey',
        tags: mobileTags,
        summary: "The service's VAPID public key (applicationServerKey of PushManager.subscribe)",
        response: {
          200: {
            type: 'object',
            required: ['public_key'],
            properties: { public_key: { type: 'string', description: 'base64url, uncompressed P-256 point' } },
          },
        },
      },
    },
    async () => ({ public_key: await vapidPublicKey() }),
  );

  const subscriptionBody = {
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

  app.post<{ Body: { endpoint: string; keys: { p256dh: string; auth: string } } }>(
    '/mobile/push-subscriptions',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'registerPushSubscription',
        tags: mobileTags,
        summary: 'Register a Web Push subscription (PushSubscription.toJSON()) for this device',
        description:
          'Many per device; registering an endpoint again refreshes its keys. Device sessions only (400 NOT_A_DEVICE). ' +
          'Keys that cannot encrypt (p256dh not a P-256 point, auth not 16 bytes): 400. An endpoint another device registered: 409.',
        body: subscriptionBody,
        response: {
          201: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
          409: { description: 'CONFLICT: the endpoint belongs to another device' },
        },
      },
    },
    async (req, reply) => {
      const deviceId = ownDevice(req.deviceId);
      const bad = pushKeysProblem(req.body.keys);
      if (bad) throw new ApiError(400, 'VALIDATION_FAILED', bad);
      const id = await savePushSubscription(pg, deviceId, { endpoint: req.body.endpoint, keys: req.body.keys });
      if (id === null) throw new ApiError(409, 'CONFLICT', 'this push endpoint is registered by another device');
      reply.code(201);
      return { id };
    },
  );

  app.delete<{ Body: { endpoint: string } }>(
    '/mobile/push-subscriptions',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'deletePushSubscription',
        tags: mobileTags,
        summary: 'Remove one of this device’s push subscriptions',
        body: { type: 'object', required: ['endpoint'], properties: { endpoint: { type: 'string', maxLength: 2048 } } },
        response: { 204: { type: 'null' } },
      },
    },
    async (req, reply) => {
      if (!(await deletePushSubscription(pg, ownDevice(req.deviceId), req.body.endpoint))) throw notFound('push subscription');
      return reply.code(204).send();
    },
  );
};

class EnrollRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

function ownDevice(deviceId: number | null): number {
  if (deviceId === null) throw new ApiError(400, 'NOT_A_DEVICE', 'this operation needs a device session (POST /mobile/enroll)');
  return deviceId;
}

export default devicesRoutes;
