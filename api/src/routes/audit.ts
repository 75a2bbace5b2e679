// GET /api/v1/audit (admin): the audit log, newest first, keyset paged by id.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { listAudit } from '@watchpost/core/audit';

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    before_id: { type: 'integer', minimum: 1 },
    action: { type: 'string', maxLength: 128 },
    actor: { type: 'string', maxLength: 128 },
  },
} as const;

const auditRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/audit',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listAuditLog',
        tags: ['audit'],
        summary: 'Audit log',
        description:
          'Logins (success, failure, rate limit), refresh-token reuse, logouts, user changes, setting changes, API key changes, host ' +
          'deletions and problem acknowledge/resolve (problem.acknowledge, problem.resolve). `action` matches by prefix on dot boundaries (`auth.login` matches `auth.login.failure`). For the next page pass ' +
          '`before_id` = the last id of this page.',
        querystring: listQuery,
        response: {
          200: {
            type: 'object',
            required: ['items'],
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'at', 'actor', 'address', 'action', 'target', 'details'],
                  properties: {
                    id: { type: 'integer' },
                    at: { type: 'string', format: 'date-time' },
                    actor: { type: 'string', nullable: true },
                    address: { type: 'string', nullable: true },
                    action: { type: 'string' },
                    target: { type: 'string', nullable: true },
                    details: { type: 'object', additionalProperties: true },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (req) => {
      const rows = await listAudit(app.deps.pg, {
        limit: req.query.limit,
        beforeId: req.query.before_id,
        action: req.query.action,
        actor: req.query.actor,
      });
      return { items: rows.map((r) => ({ ...r, at: r.at.toISOString() })) };
    },
  );
};

export default auditRoutes;
