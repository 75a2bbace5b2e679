// GET /events (filters, paging, newest first) and GET /events/{id} (full JSON). ClickHouse reads in
// api/src/queries/events.ts; severity override and visibility from event_type_settings at read time.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { Severity } from '@watchpost/schemas';
import { eventProvenance } from '@watchpost/core/hosts';
import { ApiError, orNotFound } from '../errors.ts';
import { seesInstanceIds, withoutInstanceIds } from '../instance-ids.ts';
import {
  eventFacets,
  eventHistogram,
  getEvent,
  listEvents,
  resolveHostFilter,
  textPrefixFields,
  type EventFilters,
} from '../queries/events.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { dateRange, DateRangeError, splitList } from '../queries/dates.ts';
import {
  eventDetailSchema,
  eventRowSchema,
  pageOf,
  pagingQuery,
  SEVERITY_LIST_PATTERN,
  TYPE_PATTERN,
  errorRef,
} from './read-schemas.ts';

const tags = ['events', 'mobile'];

// The filters every events read takes (list, histogram, top values).
const filterProps = {
  hostname: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    description: 'hosts whose hostname or display name is this, ignoring case; a prefix when it ends in * (`web*`)',
  },
  q: {
    type: 'string',
    maxLength: 200,
    description:
      'free text (one phrase): a substring of title or summary, or the start of user, hostname or display name (all ' +
      'ignoring case), or the start of the source address',
  },
  user: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    description: 'actor_user, ignoring case: exact, or a prefix when it ends with `*` (e.g. adm*)',
  },
  source_ip: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: 'source address: exact, or a prefix when it ends with `*` (e.g. 203.0.113.*)',
  },
  severity: {
    type: 'string',
    pattern: SEVERITY_LIST_PATTERN,
    description: 'one severity or a comma list, e.g. high,critical',
  },
  from: {
    type: 'string',
    maxLength: 40,
    description: 'occurred_at from (inclusive): YYYY-MM-DD (a UTC day) or an ISO 8601 date-time with offset',
  },
  to: {
    type: 'string',
    maxLength: 40,
    description: 'occurred_at to (inclusive): YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time with offset',
  },
  type: { type: 'string', pattern: TYPE_PATTERN, description: 'type prefix on dot boundaries, e.g. rdg.connection' },
} as const;
const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...filterProps, ...pagingQuery },
} as const;
const facetsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...filterProps,
    limit: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'values per field' },
  },
} as const;
const histogramQuery = { type: 'object', additionalProperties: false, properties: filterProps } as const;
const facetList = {
  type: 'array',
  items: {
    type: 'object',
    required: ['value', 'events'],
    properties: {
      value: { type: 'string' },
      label: { type: 'string', description: 'hostname only: the display name' },
      events: { type: 'integer' },
    },
  },
} as const;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } as const;

const eventsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse } = app.deps;

  /**
   * The query filters of a request; a hostname filter is resolved to the hosts it names, free text to
   * the fields besides title and summary it can match.
   */
  async function filtersOf(q: FromSchema<typeof histogramQuery>): Promise<EventFilters> {
    let range;
    try {
      range = dateRange(q.from, q.to);
    } catch (err) {
      if (err instanceof DateRangeError) throw new ApiError(400, 'BAD_REQUEST', err.message);
      throw err;
    }
    const text = q.q?.trim();
    const [hostnames, textFields] = await Promise.all([
      q.hostname !== undefined ? resolveHostFilter(clickhouse, q.hostname, range) : undefined,
      text ? textPrefixFields(clickhouse, text, range) : undefined,
    ]);
    return {
      severities: splitList<Severity>(q.severity),
      typePrefix: q.type,
      ...range,
      ...(hostnames ? { hostnames } : {}),
      ...(text ? { text, textFields } : {}),
      ...(q.user !== undefined ? { user: q.user } : {}),
      ...(q.source_ip !== undefined ? { sourceIp: q.source_ip } : {}),
    };
  }

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/events',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events, newest first',
        description:
          'Filters combine with AND. `hostname` matches hosts whose hostname or display name is it (ignoring case; a prefix with a trailing *); ' +
          '`q` searches title and summary (substring) and user, source address, hostname and display name (prefix); `user` ' +
          'and `source_ip` are exact or a prefix ending in `*`. `severity` matches the severity after the per-type override. `type` matches the type ' +
          'itself and every type below it (`rdg.connection` matches `rdg.connection.success`, ...). `from`/`to` are inclusive ' +
          'bounds on occurred_at: an ISO 8601 date (a whole UTC day) or a date-time with offset (second precision). Types hidden by the visibility setting ' +
          'are left out. `total` is exact (an event delivered twice is counted once).',
        querystring: listQuery,
        response: { 200: pageOf(eventRowSchema) },
      },
    },
    async (req) => {
      const q = req.query;
      const ts = await loadTypeSettings(pg);
      return listEvents(clickhouse, pg, ts, await filtersOf(q), q.page, q.page_size);
    },
  );

  app.get<{ Querystring: FromSchema<typeof facetsQuery> }>(
    '/events/facets',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'eventFacets',
        tags,
        summary: 'Top values of host, type, user and source address among the matching events',
        description:
          'Same filters as GET /events. For each field the `limit` most frequent values, most first (ties by value); an ' +
          'empty user or source address is left out. Counted as stored rows: a redelivered event not yet merged may count ' +
          'twice (the list total is exact).',
        querystring: facetsQuery,
        response: {
          200: {
            type: 'object',
            required: ['hostname', 'type', 'actor_user', 'source_ip'],
            properties: { hostname: facetList, type: facetList, actor_user: facetList, source_ip: facetList },
          },
        },
      },
    },
    async (req) => {
      const ts = await loadTypeSettings(pg);
      return eventFacets(clickhouse, ts, await filtersOf(req.query), req.query.limit);
    },
  );

  app.get<{ Querystring: FromSchema<typeof histogramQuery> }>(
    '/events/histogram',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'eventHistogram',
        tags,
        summary: 'Matching events per time bucket over the range',
        description:
          'Same filters as GET /events; `to` defaults to now and `from` to 24 h before `to`. The bucket size follows the ' +
          'range (at most 40 buckets of 1, 5, 10, 15, 30 min, 1, 3, 6, 12 h, 1, 7, 30 days: 15 min -> 1 min, 1 h -> 5 min, ' +
          '24 h -> 1 h, 7 d -> 6 h); buckets start at multiples of their size since the epoch (UTC), the first one at or ' +
          'before `from`. Every bucket is listed, empty ones with 0. Counts are exact.',
        querystring: histogramQuery,
        response: {
          200: {
            type: 'object',
            required: ['from', 'to', 'bucket_seconds', 'buckets'],
            properties: {
              from: { type: 'string', format: 'date-time' },
              to: { type: 'string', format: 'date-time', description: 'exclusive end' },
              bucket_seconds: { type: 'integer' },
              buckets: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['start', 'events'],
                  properties: { start: { type: 'string', format: 'date-time' }, events: { type: 'integer' } },
                },
              },
            },
          },
        },
      },
    },
    async (req) => {
      const f = await filtersOf(req.query);
      const toExclusive = f.toExclusive ?? new Date(Math.floor(Date.now() / 1000) * 1000 + 1000);
      const from = f.from ?? new Date(toExclusive.getTime() - 86_400_000);
      if (from >= toExclusive) throw new ApiError(400, 'BAD_REQUEST', 'from must be before to');
      const ts = await loadTypeSettings(pg);
      return eventHistogram(clickhouse, ts, { ...f, from, toExclusive });
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
        description:
          'Events of hidden types are returned too (hidden: true); only lists leave them out. The event JSON carries ' +
          'source.agent_instance_id for admins only (not through a mobile device token).',
        params: idParams,
        response: { 200: eventDetailSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => {
      const ts = await loadTypeSettings(pg);
      const e = orNotFound(await getEvent(clickhouse, pg, ts, req.params.id), 'event');
      const provenance = await eventProvenance(pg, e);
      // The agent's instance id, with the fleet key, would fetch its host's commands: admins only.
      return seesInstanceIds(req) ? { ...e, provenance } : { ...e, event: withoutInstanceIds(e.event), provenance };
    },
  );
};

export default eventsRoutes;
