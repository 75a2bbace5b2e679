// Users management (admin only): list, create, edit role and active flag, reset password, reset the
// second factor of a user locked out of it, remove.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError, notFound, orNotFound } from '../errors.ts';
import { auditCaller } from './shared/audit.ts';
import { listAllRoute } from './shared/list-route.ts';
import { idParams, noContent, type IdParams } from './shared/schemas.ts';
import {
  createUser,
  getUserById,
  InvalidUsernameError,
  LastAdminError,
  listUsers,
  removeUserKeepingAnAdmin,
  resetPassword,
  updateUserKeepingAnAdmin,
  USERNAME_PATTERN,
  USER_ROLES,
  UserExistsError,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  removeTotp,
  type UserRecord,
} from '@watchpost/core/users';

const tags = ['users'];
const password = { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH } as const;
const role = { type: 'string', enum: USER_ROLES } as const;

const userSchema = {
  type: 'object',
  required: ['id', 'username', 'role', 'active', 'totp_enabled', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    username: { type: 'string' },
    role,
    active: { type: 'boolean' },
    totp_enabled: { type: 'boolean', description: 'the user has an active second factor (TOTP)' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

const listRoute = { access: 'admin', operationId: 'listUsers', tags, summary: 'List users', item: userSchema } as const;

const createBody = {
  type: 'object',
  required: ['username', 'password', 'role'],
  additionalProperties: false,
  properties: { username: { type: 'string', minLength: 1, maxLength: 64 }, password, role },
} as const;
const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { role, active: { type: 'boolean' } },
} as const;
const passwordBody = { type: 'object', required: ['password'], additionalProperties: false, properties: { password } } as const;

const view = (u: UserRecord) => ({
  id: u.id,
  username: u.username,
  role: u.role,
  active: u.active,
  totp_enabled: u.totpEnabled,
  created_at: u.createdAt.toISOString(),
  updated_at: u.updatedAt.toISOString(),
});

const usersRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  listAllRoute(app, '/users', listRoute, async () => (await listUsers(pg)).map(view));

  app.post<{ Body: FromSchema<typeof createBody> }>(
    '/users',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'createUser',
        tags,
        summary: 'Create a user',
        description: `Usernames are stored lower-case and match ${USERNAME_PATTERN}. Passwords: at least ${PASSWORD_MIN_LENGTH} characters.`,
        body: createBody,
        response: { 201: userSchema, 409: { description: 'USER_EXISTS' } },
      },
    },
    async (req, reply) => {
      try {
        const user = await createUser(pg, req.body);
        await auditCaller(pg, req, 'user.create', { target: user.username, details: { role: user.role } });
        return reply.code(201).send(view(user));
      } catch (err) {
        if (err instanceof UserExistsError) throw new ApiError(409, 'USER_EXISTS', err.message);
        if (err instanceof InvalidUsernameError) {
          throw new ApiError(400, 'VALIDATION_FAILED', err.message, [
            { in: 'body', pointer: '/username', message: `must match ${USERNAME_PATTERN}` },
          ]);
        }
        throw err;
      }
    },
  );

  app.patch<{ Params: IdParams; Body: FromSchema<typeof updateBody> }>(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'updateUser',
        tags,
        summary: 'Change a user’s role and/or active flag',
        description:
          'Takes effect at once: the user’s existing access tokens are refused on their next request (role mismatch or inactive). ' +
          '409 LAST_ADMIN when the change would leave no active admin.',
        params: idParams,
        body: updateBody,
        response: { 200: userSchema, 404: { description: 'NOT_FOUND' }, 409: { description: 'LAST_ADMIN' } },
      },
    },
    async (req) => {
      const updated = await updateUserKeepingAnAdmin(pg, req.params.id, req.body).catch((err: unknown) => {
        throw err instanceof LastAdminError ? new ApiError(409, 'LAST_ADMIN', err.message) : err;
      });
      if (!updated) throw notFound('user');
      await auditCaller(pg, req, 'user.update', { target: updated.username, details: { ...req.body } });
      return view(updated);
    },
  );

  app.post<{ Params: IdParams; Body: FromSchema<typeof passwordBody> }>(
    '/users/:id/password',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'setUserPassword',
        tags,
        summary: 'Reset a user’s password',
        description:
          'Every access and refresh token issued to the user before is refused from now on: their browser sessions end, ' +
          'their mobile devices are signed out (they enrol again), and the login device cookies of their browsers stop ' +
          'exempting them from the login lockout. The second factor stays (DELETE /api/v1/users/{id}/totp removes it). ' +
          'To change your own password use POST /api/v1/account/password, which keeps your session.',
        params: idParams,
        body: passwordBody,
        response: { 204: noContent('password changed'), 404: { description: 'NOT_FOUND' } },
      },
    },
    async (req, reply) => {
      const u = orNotFound(await resetPassword(pg, req.params.id, req.body.password), 'user');
      await auditCaller(pg, req, 'user.password_reset', { target: u.username });
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: IdParams }>(
    '/users/:id/totp',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'resetUserTotp',
        tags,
        summary: 'Remove a user’s second factor (a user locked out of it)',
        description:
          'For a user who lost both the authenticator app and the recovery codes: removes the TOTP secret and the recovery ' +
          'codes, so the user logs in with the password alone and can enrol again. Their sessions go on (reset the password ' +
          'too when the factor may be in other hands). Audited as user.totp_reset. 404 NOT_FOUND also when the user has ' +
          'no second factor; 409 SELF_RESET for your own (use POST /api/v1/account/totp/disable, which asks for your ' +
          'password and a code: a stolen session cannot remove the factor).',
        params: idParams,
        response: {
          204: noContent('removed'),
          404: { description: 'NOT_FOUND' },
          409: { description: 'SELF_RESET' },
        },
      },
    },
    async (req, reply) => {
      if (req.params.id === req.user!.id)
        throw new ApiError(409, 'SELF_RESET', 'use your account’s security page to remove your own second factor');
      const target = await getUserById(pg, req.params.id);
      if (!target || !(await removeTotp(pg, target.id))) throw notFound('second factor of that user');
      await auditCaller(pg, req, 'user.totp_reset', { target: target.username });
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: IdParams }>(
    '/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'removeUser',
        tags,
        summary: 'Remove a user',
        description:
          'Removes the user for good: their sessions end at once (every token refused) and their mobile devices are deleted ' +
          'with their push subscriptions and enrollment codes. History keeps the name (audit log, acknowledgements). ' +
          '409 LAST_ADMIN when the user is the last active admin; 409 SELF_REMOVAL for your own account (another admin removes it).',
        params: idParams,
        response: {
          204: noContent('removed'),
          404: { description: 'NOT_FOUND' },
          409: { description: 'LAST_ADMIN or SELF_REMOVAL' },
        },
      },
    },
    async (req, reply) => {
      // Refused before the last-admin rule: an admin removing themselves would end their own session mid-act.
      if (req.params.id === req.user!.id) throw new ApiError(409, 'SELF_REMOVAL', 'you cannot remove your own account');
      const removed = await removeUserKeepingAnAdmin(pg, req.params.id).catch((err: unknown) => {
        throw err instanceof LastAdminError ? new ApiError(409, 'LAST_ADMIN', 'the last active admin cannot be removed') : err;
      });
      if (!removed) throw notFound('user');
      const { user, sessions, devices } = removed;
      await auditCaller(pg, req, 'user.remove', {
        target: user.username,
        details: { role: user.role, active: user.active, sessions, devices },
      });
      return reply.code(204).send();
    },
  );
};

export default usersRoutes;
