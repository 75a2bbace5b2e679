// The service's daily reports (any user): the list, and one with its HTML and text.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { orNotFound } from '../../errors.ts';
import { idParams, itemsOf, type IdParams } from '../shared/schemas.ts';
import { dateTime, str, tags } from './schemas.ts';

const reportSummary = {
  type: 'object',
  required: ['id', 'day', 'timezone', 'period_start', 'period_end', 'created_at', 'figures'],
  properties: {
    id: { type: 'integer' },
    day: { type: 'string', format: 'date' },
    timezone: str,
    period_start: dateTime,
    period_end: dateTime,
    created_at: dateTime,
    figures: { type: 'object', additionalProperties: true },
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 365, default: 30 } },
} as const;

interface ReportRow {
  id: string;
  day: string;
  timezone: string;
  period_start: Date;
  period_end: Date;
  created_at: Date;
  figures: unknown;
  html?: string;
  text?: string;
}
const reportView = (r: ReportRow) => ({
  ...r,
  id: Number(r.id),
  period_start: r.period_start.toISOString(),
  period_end: r.period_end.toISOString(),
  created_at: r.created_at.toISOString(),
});

const reportsRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/reports/daily',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'listDailyReports',
        tags,
        summary: "The service's daily reports, newest first",
        querystring: listQuery,
        response: { 200: itemsOf(reportSummary) },
      },
    },
    async (req) => {
      const r = await pg.query<ReportRow>(
        `SELECT id, to_char(day, 'YYYY-MM-DD') AS day, timezone, period_start, period_end, created_at, figures
           FROM daily_reports ORDER BY day DESC, id DESC LIMIT $1`,
        [req.query.limit ?? 30],
      );
      return { items: r.rows.map(reportView) };
    },
  );

  app.get<{ Params: IdParams }>(
    '/reports/daily/:id',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getDailyReport',
        tags,
        summary: 'One daily report with its HTML (built by the service, every value escaped) and text',
        params: idParams,
        response: {
          200: {
            ...reportSummary,
            required: [...reportSummary.required, 'html', 'text'],
            properties: { ...reportSummary.properties, html: str, text: str },
          },
        },
      },
    },
    async (req) => {
      const r = await pg.query<ReportRow>(
        `SELECT id, to_char(day, 'YYYY-MM-DD') AS day, timezone, period_start, period_end, created_at, figures, html, text
           FROM daily_reports WHERE id = $1`,
        [req.params.id],
      );
      return reportView(orNotFound(r.rows[0], 'report'));
    },
  );
};

export default reportsRoutes;
