// GET /dashboards/summary: the last 24 hours to the second by default, or the window the query names
// (a rolling `range` preset, or `from`/`to` read as the events list reads them), api/src/queries/dashboard.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { SEVERITIES } from '@watchpost/schemas';
import { ApiError } from '../errors.ts';
import { dashboardSummary, MAX_WINDOW_DAYS, summaryWindow } from '../queries/dashboard.ts';
import { dateRange, DateRangeError } from '../queries/dates.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { errorRef, eventRowSchema } from './read-schemas.ts';

const int = { type: 'integer' } as const;
/** The rolling presets of the web "Time range" control (web/src/lib/time-range.ts). */
const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
type RangeId = keyof typeof RANGES;
const RANGE_IDS = Object.keys(RANGES) as RangeId[];

const summaryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    range: {
      type: 'string',
      enum: RANGE_IDS,
      description: 'rolling window ending now (default 24h when neither range nor from/to is given)',
    },
    from: {
      type: 'string',
      maxLength: 40,
      description: 'occurred_at from (inclusive): YYYY-MM-DD or ISO 8601 date-time, as on GET /events',
    },
    to: {
      type: 'string',
      maxLength: 40,
      description: 'occurred_at to (inclusive, to the second): YYYY-MM-DD (whole day) or ISO 8601 date-time; default now',
    },
  },
} as const;

const countList = (key: string) =>
  ({
    type: 'array',
    items: { type: 'object', required: [key, 'events'], properties: { [key]: { type: 'string' }, events: int } },
  }) as const;

const summarySchema = {
  type: 'object',
  required: [
    'generated_at',
    'window',
    'events_24h',
    'severity',
    'events_by_hour',
    'top_hosts',
    'top_event_types',
    'daily_reports_24h',
    'heartbeats',
    'hosts',
    'open_problems',
    'acknowledged_problems',
    'problems_24h',
    'recent_events',
  ],
  properties: {
    generated_at: { type: 'string', format: 'date-time' },
    window: {
      type: 'object',
      description: 'occurred_at window of the event figures: [from, to) (to exclusive), its length in hours (0.01)',
      required: ['from', 'to', 'hours'],
      properties: {
        from: { type: 'string', format: 'date-time' },
        to: { type: 'string', format: 'date-time' },
        hours: { type: 'number' },
      },
    },
    events_24h: { type: 'integer', description: 'events of visible types in the window' },
    severity: {
      type: 'object',
      description: 'events in the window by severity after the per-type override',
      required: [...SEVERITIES],
      properties: Object.fromEntries(SEVERITIES.map((s) => [s, int])),
    },
    events_by_hour: {
      ...countList('hour'),
      description:
        'events per UTC hour of the window, every hour it touches (the first and last may be partial), empty hours as 0',
    },
    top_hosts: {
      type: 'array',
      description: 'the 10 hosts with the most events in the window',
      items: {
        type: 'object',
        required: ['hostname', 'events'],
        properties: { hostname: { type: 'string' }, display_name: { type: 'string', nullable: true }, events: int },
      },
    },
    top_event_types: { ...countList('type'), description: 'the 10 most frequent types in the window' },
    daily_reports_24h: { type: 'integer', description: 'events of type report.daily.* in the window' },
    heartbeats: {
      type: 'object',
      required: ['events_24h', 'hosts_24h', 'last_heartbeat_at'],
      properties: {
        events_24h: { type: 'integer', description: 'agent.heartbeat events in the window' },
        hosts_24h: { type: 'integer', description: 'hosts that sent at least one agent.heartbeat in the window' },
        last_heartbeat_at: {
          type: 'string',
          format: 'date-time',
          nullable: true,
          description: 'latest heartbeat/daily report of any host',
        },
      },
    },
    hosts: {
      type: 'object',
      required: ['total', 'online', 'stale'],
      properties: { total: int, online: int, stale: int },
    },
    open_problems: { type: 'integer', description: 'problems in status open (any age)' },
    acknowledged_problems: { type: 'integer', description: 'problems in status acknowledged (any age)' },
    problems_24h: {
      type: 'object',
      description:
        'metrics rule: problems created in the last 24 h (whatever the window); total = open + acknowledged; resolved counted apart',
      required: ['open', 'acknowledged', 'total', 'resolved'],
      properties: { open: int, acknowledged: int, total: int, resolved: int },
    },
    recent_events: { type: 'array', description: 'the 10 newest events', items: eventRowSchema },
  },
} as const;

const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config } = app.deps;
  app.get<{ Querystring: FromSchema<typeof summaryQuery> }>(
    '/dashboards/summary',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getDashboardSummary',
        tags: ['dashboards', 'mobile'],
        summary: 'Dashboard figures of the last 24 hours (or of a chosen window)',
        description:
          'Event figures cover events whose occurred_at is within the window: by default exactly the last 24 hours to the ' +
          'second (the same events as GET /events?from=<now-24h>&to=<now>); `range` picks another rolling window, `from`/`to` ' +
          `an absolute one (at most ${MAX_WINDOW_DAYS} days; \`to\` defaults to now). Types hidden by the visibility setting ` +
          'are left out everywhere (heartbeat and daily-report counters included), severities after the per-type override. ' +
          'The `*_24h` names are kept for the default window; they count the chosen window.',
        querystring: summaryQuery,
        response: { 200: summarySchema, 400: errorRef('BAD_REQUEST') },
      },
    },
    async (req) => {
      const q = req.query;
      const now = new Date();
      let window;
      if (q.from !== undefined || q.to !== undefined) {
        if (q.range !== undefined) throw new ApiError(400, 'BAD_REQUEST', 'give either range or from/to');
        if (q.from === undefined) throw new ApiError(400, 'BAD_REQUEST', 'from is required with to');
        let r;
        try {
          r = dateRange(q.from, q.to ?? now.toISOString());
        } catch (err) {
          if (err instanceof DateRangeError) throw new ApiError(400, 'BAD_REQUEST', err.message);
          throw err;
        }
        window = { from: r.from!, toExclusive: r.toExclusive! };
        if (window.toExclusive.getTime() - window.from.getTime() > MAX_WINDOW_DAYS * 86_400_000 + 1000)
          throw new ApiError(400, 'BAD_REQUEST', `the window is longer than ${MAX_WINDOW_DAYS} days`);
      } else window = summaryWindow(now, RANGES[(q.range ?? '24h') as RangeId]);
      const ts = await loadTypeSettings(pg);
      return dashboardSummary(clickhouse, pg, ts, { now, window, staleMinutes: config.heartbeat });
    },
  );
};

export default dashboardRoutes;
