// Settings: per event type severity override and visibility (event_type_settings), and the UI toggle
// for the sidebar system statistics (settings table, key 'ui.sidebar_stats').
// A severity override applies at READ time: every list, figure and filter shows the overridden
// severity, for events stored before the override too (the stored event is never rewritten).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { SEVERITIES } from '@watchpost/schemas';
import { notFound } from '../errors.ts';
import { auditCaller } from './shared/audit.ts';
import { listAllRoute } from './shared/list-route.ts';
import { noContent } from './shared/schemas.ts';

const tags = ['settings'];
const TYPE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
export const SIDEBAR_STATS_KEY = 'ui.sidebar_stats';

const typeSetting = {
  type: 'object',
  required: ['type', 'severity_override', 'visible', 'updated_at', 'updated_by'],
  properties: {
    type: { type: 'string' },
    severity_override: { type: 'string', enum: [...SEVERITIES], nullable: true },
    visible: { type: 'boolean' },
    updated_at: { type: 'string', format: 'date-time' },
    updated_by: { type: 'string', nullable: true },
  },
} as const;
const listRoute = {
  access: 'admin',
  operationId: 'listEventTypeSettings',
  tags,
  summary: 'Severity overrides and visibility per event type',
  item: typeSetting,
} as const;
const typeParams = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', pattern: TYPE_PATTERN } },
} as const;
type TypeParams = FromSchema<typeof typeParams>;
const uiSettings = {
  type: 'object',
  required: ['sidebar_stats'],
  properties: { sidebar_stats: { type: 'boolean', description: 'show system statistics in the sidebar' } },
} as const;
const typeSettingBody = {
  type: 'object',
  required: ['severity_override', 'visible'],
  additionalProperties: false,
  properties: {
    severity_override: { type: 'string', enum: [...SEVERITIES, null], nullable: true },
    visible: { type: 'boolean' },
  },
} as const;
const uiSettingsBody = { ...uiSettings, additionalProperties: false } as const;

interface Row {
  type: string;
  severity_override: string | null;
  visible: boolean;
  updated_at: Date;
  updated_by: string | null;
}
const view = (r: Row) => ({ ...r, updated_at: r.updated_at.toISOString() });

const settingsRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  listAllRoute(app, '/settings/event-types', listRoute, async () => {
    const r = await pg.query<Row>(
      'SELECT type, severity_override, visible, updated_at, updated_by FROM event_type_settings ORDER BY type',
    );
    return r.rows.map(view);
  });

  app.put<{ Params: TypeParams; Body: FromSchema<typeof typeSettingBody> }>(
    '/settings/event-types/:type',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'putEventTypeSetting',
        tags,
        summary: 'Set the severity override and visibility of an event type',
        description:
          'severity_override null = the severity sent by the agent. The override applies at read time, so also to events ' +
          'already stored, and in correlation for new events. visible=false hides the type from events lists, dashboard, hosts and problems.',
        params: typeParams,
        body: typeSettingBody,
        response: { 200: typeSetting },
      },
    },
    async (req) => {
      const r = await pg.query<Row>(
        `INSERT INTO event_type_settings (type, severity_override, visible, updated_at, updated_by) VALUES ($1, $2, $3, now(), $4)
         ON CONFLICT (type) DO UPDATE SET severity_override = EXCLUDED.severity_override, visible = EXCLUDED.visible,
           updated_at = now(), updated_by = EXCLUDED.updated_by
         RETURNING type, severity_override, visible, updated_at, updated_by`,
        [req.params.type, req.body.severity_override, req.body.visible, req.user!.username],
      );
      await auditCaller(pg, req, 'setting.event_type', { target: req.params.type, details: { ...req.body } });
      return view(r.rows[0]!);
    },
  );

  app.delete<{ Params: TypeParams }>(
    '/settings/event-types/:type',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteEventTypeSetting',
        tags,
        summary: 'Remove the settings of an event type (back to the agent’s severity, visible)',
        params: typeParams,
        response: { 204: noContent('removed'), 404: { description: 'NOT_FOUND' } },
      },
    },
    async (req, reply) => {
      const r = await pg.query('DELETE FROM event_type_settings WHERE type = $1', [req.params.type]);
      if (!r.rowCount) throw notFound('event type setting');
      await auditCaller(pg, req, 'setting.event_type.delete', { target: req.params.type });
      return reply.code(204).send();
    },
  );

  // Read by every logged-in user: the UI of a monitor also renders the sidebar.
  app.get(
    '/settings/ui',
    {
      config: { access: 'user' },
      schema: { operationId: 'getUiSettings', tags, summary: 'UI settings', response: { 200: uiSettings } },
    },
    async () => {
      const r = await pg.query<{ value: unknown }>('SELECT value FROM settings WHERE key = $1', [SIDEBAR_STATS_KEY]);
      return { sidebar_stats: r.rows[0]?.value === true };
    },
  );

  app.put<{ Body: FromSchema<typeof uiSettingsBody> }>(
    '/settings/ui',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'putUiSettings',
        tags,
        summary: 'Change UI settings',
        body: uiSettingsBody,
        response: { 200: uiSettings },
      },
    },
    async (req) => {
      await pg.query(
        `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2::jsonb, now(), $3)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
        [SIDEBAR_STATS_KEY, JSON.stringify(req.body.sidebar_stats), req.user!.username],
      );
      await auditCaller(pg, req, 'setting.ui', { target: SIDEBAR_STATS_KEY, details: { ...req.body } });
      return { sidebar_stats: req.body.sidebar_stats };
    },
  );
};

export default settingsRoutes;
