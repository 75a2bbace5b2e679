// GET /dashboards/summary: the last 24 hours (api/src/queries/dashboard.ts).
import type { FastifyPluginAsync } from 'fastify';
import { SEVERITIES } from '@watchpost/schemas';
import { dashboardSummary } from '../queries/dashboard.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { eventRowSchema } from './read-schemas.ts';

const int = { type: 'integer' } as const;
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
      description: 'occurred_at window of the event figures: [from, to]',
      properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' }, hours: int },
    },
    events_24h: { type: 'integer', description: 'events of visible types in the window' },
    severity: {
      type: 'object',
      description: 'events in the window by severity after the per-type override',
      required: [...SEVERITIES],
      properties: Object.fromEntries(SEVERITIES.map((s) => [s, int])),
    },
    events_by_hour: { ...countList('hour'), description: 'events per UTC hour (hours without events are left out)' },
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
      description: 'metrics rule: problems created in the last 24 h; total = open + acknowledged; resolved counted apart',
      required: ['open', 'acknowledged', 'total', 'resolved'],
      properties: { open: int, acknowledged: int, total: int, resolved: int },
    },
    recent_events: { type: 'array', description: 'the 10 newest events', items: eventRowSchema },
  },
} as const;

const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config } = app.deps;
  app.get(
    '/dashboards/summary',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getDashboardSummary',
        tags: ['dashboards', 'mobile'],
        summary: 'Dashboard figures of the last 24 hours',
        description:
          'Event figures cover events whose occurred_at is within the last 24 hours, types hidden by the visibility setting left ' +
          'out everywhere (heartbeat and daily-report counters included), severities after the per-type override.',
        response: { 200: summarySchema },
      },
    },
    async () => {
      const ts = await loadTypeSettings(pg);
      return dashboardSummary(clickhouse, pg, ts, { staleMinutes: config.heartbeat });
    },
  );
};

export default dashboardRoutes;
