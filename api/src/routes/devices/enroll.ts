// POST /mobile/enroll: a device enrolls with an admin-issued code (public; guesses limited per device,
// per client address and across all addresses: auth/enroll-limit.ts) and gets a session of its own, a
// refresh-token family bound to the device.
import type { FastifyPluginAsync } from 'fastify';
import { withTransaction } from '@watchpost/runtime';
import { audit } from '@watchpost/core/audit';
import { enrollDevice, getDevice } from '@watchpost/core/devices';
import { getUserById } from '@watchpost/core/users';
import { ApiError } from '../../errors.ts';
import { issueSession } from '../../auth/tokens.ts';
import { alertRateLimited } from '../../auth/login-limit.ts';
import { EnrollLimiter, enrollRateLimitedError, type EnrollLimitSettings } from '../../auth/enroll-limit.ts';
import { deviceSchema, enrollBody, mobileTags, view, type EnrollBody } from './schemas.ts';

class EnrollRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

export const enrollRoutes: FastifyPluginAsync = async (app) => {
  const { deps } = app;
  const { pg } = deps;
  const limits: EnrollLimitSettings = {
    windowSeconds: deps.auth.loginWindowSeconds,
    lockoutSeconds: deps.auth.lockoutSeconds,
    maxPerDeviceAndAddress: deps.auth.maxLoginFailures,
    maxPerDevice: deps.auth.maxFailuresPerUser,
    maxPerAddress: deps.config.auth.enrollMaxFailuresPerAddress,
    maxPerMinute: deps.config.auth.enrollMaxFailuresPerMinute,
  };

  app.post<{ Body: EnrollBody }>(
    '/mobile/enroll',
    {
      config: { access: 'public', device: true },
      schema: {
        operationId: 'enrollDevice',
        tags: mobileTags,
        summary: 'Enroll a device with an admin-issued code',
        description:
          'Answers an access token and a refresh token bound to the device (refresh with POST /auth/refresh, body {refresh_token}). ' +
          'Enrolling the same device_uuid again reuses its record: fresh tokens, the old ones refused. A wrong, used or expired code ' +
          'answers 401 INVALID_CODE. Guesses are limited: 3 per device UUID and address, 10 per device UUID and ' +
          `${limits.maxPerAddress} per client address (an IPv6 client by its /64) in the login window, then 429 RATE_LIMITED ` +
          'with Retry-After for the lockout (details.scope: pair, device or address); across all addresses ' +
          `${limits.maxPerMinute} failures a minute, then every enrollment gets 429 (scope code_space) until the minute ends.`,
        body: enrollBody,
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
      const limiter = new EnrollLimiter(deps.redis, deps.redisKeyPrefix, limits, uuid, req.ip);
      const reservation = await limiter.reserve();
      if (!reservation.ok) throw enrollRateLimitedError(reservation);
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
          const user = (await getUserById(c, r.device.userId))!;
          const tokens = await issueSession(
            c,
            deps.auth,
            { id: user.id, role: user.role, tokenVersion: user.tokenVersion },
            r.device.id,
          );
          return { ...r, tokens };
        });
      } catch (err) {
        if (err instanceof EnrollRefused) result = { ok: false as const, reason: err.reason };
        else {
          await limiter.release(false).catch(() => {});
          throw err;
        }
      }
      if (!result.ok) {
        const locked = await limiter.failed();
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
      await limiter.release(true);
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
};
