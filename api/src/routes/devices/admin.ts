// Admin side of mobile devices: single-use enrollment codes, and the device records (list, revoke, delete).
import type { FastifyPluginAsync } from 'fastify';
import { withTransaction } from '@watchpost/runtime';
import { deleteDevice, getDevice, issueEnrollmentCode, listDevices, revokeDevice } from '@watchpost/core/devices';
import { getUserById } from '@watchpost/core/users';
import { ApiError, notFound } from '../../errors.ts';
import { auditCaller } from '../shared/audit.ts';
import { listAllRoute } from '../shared/list-route.ts';
import {
  dateTime,
  deviceSchema,
  enrollmentCodeBody,
  idParams,
  tags,
  view,
  type EnrollmentCodeBody,
  type IdParams,
} from './schemas.ts';

const listRoute = {
  access: 'admin',
  operationId: 'listDevices',
  tags,
  summary: 'Enrolled mobile devices with their last use',
  item: deviceSchema,
} as const;

export const deviceAdminRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config } = app.deps;

  app.post<{ Body: EnrollmentCodeBody }>(
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
          'The device enrolled with it acts as `user_id` (default: the admin issuing it): the issuing admin or a monitor, never ' +
          'another admin (403: an admin enrolls their own phone). The device gets the mobile surface only (api/MOBILE.md).',
        body: enrollmentCodeBody,
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
          403: {
            description:
              "FORBIDDEN: user_id names another admin (details.reason ANOTHER_ADMIN) or the role does not allow it; DEVICE_SCOPE: a mobile device's token",
          },
        },
      },
    },
    async (req, reply) => {
      const userId = req.body?.user_id ?? req.user!.id;
      const user = await getUserById(pg, userId);
      if (!user || !user.active) throw new ApiError(400, 'BAD_REQUEST', 'no active user with this id');
      // A code acting as another admin would give its holder that admin's name without their password.
      if (user.role === 'admin' && user.id !== req.user!.id)
        throw new ApiError(
          403,
          'FORBIDDEN',
          'an enrollment code binds a device to yourself or to a monitor, never to another admin: that admin issues their own',
          { reason: 'ANOTHER_ADMIN' },
        );
      const c = await issueEnrollmentCode(pg, {
        userId,
        createdBy: req.user!.username,
        ttlMinutes: config.devices.codeTtlMinutes,
      });
      await auditCaller(pg, req, 'device.code_issue', { details: { code_id: c.id, user: user.username } });
      reply.code(201);
      return { id: c.id, code: c.code, expires_at: c.expires_at.toISOString(), user_id: user.id, username: user.username };
    },
  );

  listAllRoute(app, '/devices', listRoute, async () => (await listDevices(pg)).map(view));

  app.post<{ Params: IdParams }>(
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
      await auditCaller(pg, req, 'device.revoke', { details: { device_id: req.params.id } });
      return view((await getDevice(pg, req.params.id))!);
    },
  );

  app.delete<{ Params: IdParams }>(
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
      await auditCaller(pg, req, 'device.delete', {
        details: { device_id: d.id, device_uuid: d.device_uuid, name: d.name, user: d.username },
      });
      return reply.code(204).send();
    },
  );
};
