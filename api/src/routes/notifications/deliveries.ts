// Deliveries, newest change first (admin; state=failed: the dead ones).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { listDeliveries } from '@watchpost/core/notify';
import { itemsOf } from '../shared/schemas.ts';
import { channelEnum, dateTime, deliverySchema, deliveryView, tags } from './schemas.ts';

const deliveriesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: ['queued', 'sending', 'sent', 'failed'] },
    channel: channelEnum,
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    before: { ...dateTime, description: 'page: deliveries changed before this time' },
  },
} as const;

const deliveriesRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  app.get<{ Querystring: FromSchema<typeof deliveriesQuery> }>(
    '/notifications/deliveries',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listNotificationDeliveries',
        tags,
        summary: 'Deliveries, newest change first (state=failed: the dead ones)',
        querystring: deliveriesQuery,
        response: { 200: itemsOf(deliverySchema) },
      },
    },
    async (req) => {
      const rows = await listDeliveries(pg, {
        ...(req.query.state ? { state: req.query.state } : {}),
        ...(req.query.channel ? { channel: req.query.channel } : {}),
        limit: req.query.limit ?? 100,
        ...(req.query.before ? { beforeUpdatedAt: new Date(req.query.before) } : {}),
      });
      return { items: rows.map(deliveryView) };
    },
  );
};

export default deliveriesRoutes;
