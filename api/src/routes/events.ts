// GET /events (filters, paging, newest first) and GET /events/{id} (full JSON). ClickHouse reads in
// api/src/queries/events.ts; severity override and visibility from event_type_settings at read time.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { Severity } from '@watchpost/schemas';
import { ApiError, notFound } from '../errors.ts';
import { getEvent, listEvents } from '../queries/events.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { dateRange, DateRangeError, splitList } from '../queries/dates.ts';
import {
  eventDetailSchema,
  eventRowSchema,
  pageFields,
  pagingQuery,
  SEVERITY_LIST_PATTERN,
  TYPE_PATTERN,
  errorRef,
} from './read-schemas.ts';

const tags = ['events', 'mobile'];

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hostname: { type: 'string', minLength: 1, maxLength: 255, description: 'exact hostname' },
    severity: {
      type: 'string',
      pattern: SEVERITY_LIST_PATTERN,
      description: 'one severity or a comma list, e.g. high,critical',
    },
    from: {
      type: 'string',
      maxLength: 40,
      description: 'occurred_at from (inclusive): YYYY-MM-DD or ISO 8601 date-time',
    },
    to: {
      type: 'string',
      maxLength: 40,
      description: 'occurred_at to (inclusive): YYYY-MM-DD (whole day) or ISO 8601 date-time',
    },
    type: { type: 'string', pattern: TYPE_PATTERN, description: 'type prefix on dot boundaries, e.g. rdg.connection' },
    ...pagingQuery,
  },
} as const;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } as const;

const eventsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse } = app.deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/events',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events, newest first',
        description:
          'Filters combine with AND. `severity` matches the severity after the per-type override. `type` matches the type ' +
          'itself and every type below it (`rdg.connection` matches `rdg.connection.success`, ...). `from`/`to` are inclusive ' +
          'bounds on occurred_at: an ISO 8601 date (a whole UTC day) or a date-time. Types hidden by the visibility setting ' +
          'are left out. `total` is exact (an event delivered twice is counted once).',
        querystring: listQuery,
        response: {
          200: {
            type: 'object',
            required: ['total', 'page', 'page_size', 'items'],
            properties: { ...pageFields, items: { type: 'array', items: eventRowSchema } },
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      let range;
      try {
        range = dateRange(q.from, q.to);
      } catch (err) {
        if (err instanceof DateRangeError) throw new ApiError(400, 'BAD_REQUEST', err.message);
        throw err;
      }
      const ts = await loadTypeSettings(pg);
      return listEvents(
        clickhouse,
        pg,
        ts,
        { hostname: q.hostname, severities: splitList<Severity>(q.severity), typePrefix: q.type, ...range },
        q.page,
        q.page_size,
      );
    },
  );

  app.get<{ Params: FromSchema<typeof idParams> }>(
    '/events/:id',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'One event with its full JSON',
        description: 'Events of hidden types are returned too (hidden: true); only lists leave them out.',
        params: idParams,
        response: { 200: eventDetailSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => {
      const ts = await loadTypeSettings(pg);
      const e = await getEvent(clickhouse, pg, ts, req.params.id);
      if (!e) throw notFound('event');
      return e;
    },
  );
};

export default eventsRoutes;
