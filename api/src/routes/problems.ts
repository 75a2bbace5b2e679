// GET /problems (filters, metrics rule, counts by status), GET /problems/{id} (with its timeline),
// POST /problems/{id}/acknowledge and /resolve through the shared state machine (409 when refused).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { SEVERITIES, type LiveProblemsMessage, type Severity } from '@watchpost/schemas';
import { ApiError, notFound } from '../errors.ts';
import { applyProblemAction, getProblem, listProblems, PROBLEM_STATUSES, type ProblemStatusName } from '../queries/problems.ts';
import { loadTypeSettings, isHidden } from '../queries/type-settings.ts';
import { splitList } from '../queries/dates.ts';
import {
  errorRef,
  pageFields,
  pagingQuery,
  problemDetailSchema,
  problemRowSchema,
  SEVERITY_LIST_PATTERN,
  TYPE_PATTERN,
} from './read-schemas.ts';

const tags = ['problems', 'mobile'];
const STATUS_LIST_PATTERN = `^(${PROBLEM_STATUSES.join('|')})(,(${PROBLEM_STATUSES.join('|')}))*$`;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } as const;
type IdParams = FromSchema<typeof idParams>;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', pattern: STATUS_LIST_PATTERN, description: 'one status or a comma list' },
    host: { type: 'string', minLength: 1, maxLength: 255, description: 'exact hostname' },
    type: { type: 'string', pattern: TYPE_PATTERN, description: 'type prefix on dot boundaries' },
    severity: {
      type: 'string',
      pattern: SEVERITY_LIST_PATTERN,
      description: `one of ${SEVERITIES.join(', ')} or a comma list`,
    },
    created_within_hours: { type: 'integer', minimum: 1, maximum: 8760 },
    ...pagingQuery,
  },
} as const;

const problemsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, redis, config } = app.deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/problems',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'listProblems',
        tags,
        summary: 'List problems, newest first',
        description:
          'Metrics rule: with `created_within_hours` and no `status`, the list holds only open and acknowledged problems created ' +
          'in that window; resolved ones of the window are counted apart in `counts.resolved`. An explicit `status` is honoured ' +
          'as given. `counts` has every status under the other filters. Severity is matched after the per-type override; ' +
          'problems of hidden types are left out. `type` matches the type and every type below it.',
        querystring: listQuery,
        response: {
          200: {
            type: 'object',
            required: ['total', 'page', 'page_size', 'counts', 'items'],
            properties: {
              ...pageFields,
              counts: {
                type: 'object',
                required: [...PROBLEM_STATUSES],
                properties: { open: { type: 'integer' }, acknowledged: { type: 'integer' }, resolved: { type: 'integer' } },
              },
              items: { type: 'array', items: problemRowSchema },
            },
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const ts = await loadTypeSettings(pg);
      return listProblems(
        pg,
        ts,
        {
          statuses: splitList<ProblemStatusName>(q.status),
          host: q.host,
          typePrefix: q.type,
          severities: splitList<Severity>(q.severity),
          createdWithinHours: q.created_within_hours,
        },
        q.page,
        q.page_size,
      );
    },
  );

  app.get<{ Params: IdParams }>(
    '/problems/:id',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getProblem',
        tags,
        summary: 'One problem with its event timeline',
        params: idParams,
        response: { 200: problemDetailSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => {
      const p = await getProblem(pg, await loadTypeSettings(pg), req.params.id);
      if (!p) throw notFound('problem');
      return p;
    },
  );

  for (const action of ['acknowledge', 'resolve'] as const) {
    app.post<{ Params: IdParams }>(
      `/problems/:id/${action}`,
      {
        config: { access: 'user', device: true },
        schema: {
          operationId: `${action}Problem`,
          tags,
          summary:
            action === 'acknowledge'
              ? 'Acknowledge a problem (open -> acknowledged)'
              : 'Resolve a problem (open or acknowledged -> resolved, resolved_by manual)',
          description:
            '409 CONFLICT when the state machine refuses: acknowledge is allowed only from open, resolve from open or acknowledged. ' +
            'details.reason is ALREADY_ACKNOWLEDGED or ALREADY_RESOLVED, details.status the current status.',
          params: idParams,
          response: {
            200: problemDetailSchema,
            404: errorRef('NOT_FOUND'),
            409: errorRef('CONFLICT: the problem state does not allow it'),
          },
        },
      },
      async (req) => {
        const out = await applyProblemAction(pg, req.params.id, action, req.user!.username);
        if (!out.ok) {
          if (out.notFound) throw notFound('problem');
          throw new ApiError(409, 'CONFLICT', `cannot ${action} a problem that is ${out.status}`, {
            reason: out.reason,
            status: out.status,
          });
        }
        const ts = await loadTypeSettings(pg);
        const p = (await getProblem(pg, ts, req.params.id))!;
        if (!isHidden(ts, p.type)) {
          const message: LiveProblemsMessage = {
            kind: 'problems',
            action: action === 'acknowledge' ? 'acknowledged' : 'resolved',
            problem: {
              id: p.id,
              host: p.host,
              type: p.type,
              title: p.title,
              severity: p.severity,
              status: p.status,
              created_at: p.created_at,
            },
          };
          await redis
            .publish(config.stream.channel, JSON.stringify(message))
            .catch((err: unknown) => req.log.warn({ err }, 'live publish failed'));
        }
        return p;
      },
    );
  }
};

export default problemsRoutes;
