// Remote-action records (api/ACTIONS.md): the list and one action, polled until it finished.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { getAction, listActions } from '@watchpost/core/actions';
import { orNotFound } from '../../errors.ts';
import { errorRef } from '../read-schemas.ts';
import { itemsOf } from '../shared/schemas.ts';
import { actionSchema, hostParams, tags } from './schemas.ts';

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host_id: { type: 'integer', minimum: 1 },
    kind: { type: 'string', maxLength: 64 },
    before_id: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
} as const;

const actionRecordsRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/actions',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Remote actions, newest first',
        description: 'Keyset paging: pass the last id of a page as `before_id` for the next one.',
        querystring: listQuery,
        response: { 200: itemsOf(actionSchema) },
      },
    },
    async (req) => ({
      items: await listActions(pg, {
        hostId: req.query.host_id,
        kind: req.query.kind,
        beforeId: req.query.before_id,
        limit: req.query.limit,
      }),
    }),
  );

  app.get<{ Params: FromSchema<typeof hostParams> }>(
    '/actions/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'One remote action (poll it until status is succeeded or failed)',
        params: hostParams,
        response: { 200: actionSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => orNotFound(await getAction(pg, req.params.id), 'action'),
  );
};

export default actionRecordsRoutes;
