// GET /problems (filters, sort, metrics rule, counts by status), GET /problems/{id} (with its timeline),
// POST /problems/{id}/acknowledge and /resolve through the shared state machine (409 when refused), and
// POST /problems/bulk (several at once, each refusal reported). Every act is audited and published live.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { SEVERITIES, type Severity } from '@watchpost/schemas';
import type { ApiDeps } from '../types.ts';
import { publishProblemAct } from '../stream/publish.ts';
import { ApiError, notFound, orNotFound } from '../errors.ts';
import { seesInstanceIds, withoutInstanceIds } from '../instance-ids.ts';
import {
  applyProblemAction,
  applyProblemActions,
  getProblem,
  listProblems,
  PROBLEM_MESSAGE_MAX,
  PROBLEM_SORTS,
  PROBLEM_STATUSES,
  type ProblemStatusName,
} from '../queries/problems.ts';
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
import { auditCaller } from './shared/audit.ts';
import { emptyBodyIsObject } from './shared/hooks.ts';

const tags = ['problems', 'mobile'];

/** A problem as the caller may see it: a host_identity_conflict's details name agent instance ids (admins only). */
function forCaller<P extends { details: Record<string, unknown> }>(req: FastifyRequest, p: P): P {
  return seesInstanceIds(req) ? p : { ...p, details: withoutInstanceIds(p.details) };
}
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
    sort: {
      type: 'string',
      enum: [...PROBLEM_SORTS],
      default: '-created_at',
      description:
        'order of the list: created_at, last_seen, count or severity (the effective one: critical > high > warning > info); ' +
        '`-` first for descending. Ties: newest created first.',
    },
    ...pagingQuery,
  },
} as const;

const ACTIONS = ['acknowledge', 'resolve'] as const;
type Action = (typeof ACTIONS)[number];
const BULK_LIMIT = 200;

const messageProp = {
  type: 'string',
  maxLength: PROBLEM_MESSAGE_MAX,
  description: `optional operator message (at most ${PROBLEM_MESSAGE_MAX} characters; blank = none), shown in the timeline`,
} as const;
const actBody = { type: 'object', additionalProperties: false, properties: { message: messageProp } } as const;
type ActBody = FromSchema<typeof actBody>;

const bulkBody = {
  type: 'object',
  additionalProperties: false,
  required: ['ids', 'action'],
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: BULK_LIMIT, uniqueItems: true, items: { type: 'string', format: 'uuid' } },
    action: { type: 'string', enum: [...ACTIONS] },
    message: messageProp,
  },
} as const;
type BulkBody = FromSchema<typeof bulkBody>;

const bulkResponse = {
  type: 'object',
  required: ['done', 'conflicts', 'not_found', 'items'],
  properties: {
    done: { type: 'integer', description: 'problems this call acknowledged or resolved' },
    conflicts: { type: 'integer', description: 'problems whose state forbade the act' },
    not_found: { type: 'integer' },
    items: {
      type: 'array',
      description: 'one outcome per id, in the order given',
      items: {
        type: 'object',
        required: ['id', 'outcome'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          outcome: { type: 'string', enum: ['acknowledged', 'resolved', 'conflict', 'not_found'] },
          reason: { type: 'string', enum: ['ALREADY_ACKNOWLEDGED', 'ALREADY_RESOLVED'], description: 'with conflict' },
          status: { type: 'string', enum: [...PROBLEM_STATUSES], description: "the problem's status after this call" },
        },
      },
    },
  },
} as const;

/** Blank or whitespace-only messages are stored as none. */
const cleanMessage = (m: string | undefined): string | null => (m?.trim() ? m.trim() : null);

/** The audit entry of one act (as admin acts elsewhere: actor, address, action, target). */
async function auditAct(
  deps: ApiDeps,
  req: FastifyRequest,
  id: string,
  action: Action,
  message: string | null,
  bulk: boolean,
): Promise<void> {
  await auditCaller(deps.pg, req, `problem.${action}`, { target: id, details: { message, ...(bulk ? { bulk: true } : {}) } });
}

const problemsRoutes: FastifyPluginAsync = async (app) => {
  const deps = app.deps;
  const { pg } = deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/problems',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'listProblems',
        tags,
        summary: 'List problems, newest first (or in `sort` order)',
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
      const page = await listProblems(
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
        new Date(),
        q.sort,
      );
      return { ...page, items: page.items.map((p) => forCaller(req, p)) };
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
      return forCaller(req, orNotFound(await getProblem(pg, await loadTypeSettings(pg), req.params.id), 'problem'));
    },
  );

  /** Tells live clients about an operator's act (problems of hidden types stay out of the stream). */
  async function publishAct(req: FastifyRequest, id: string, action: Action): Promise<void> {
    const ts = await loadTypeSettings(pg);
    const p = await getProblem(pg, ts, id);
    if (!p || isHidden(ts, p.type)) return;
    await publishProblemAct(deps, req.log, action === 'acknowledge' ? 'acknowledged' : 'resolved', p);
  }

  for (const action of ACTIONS) {
    app.post<{ Params: IdParams; Body: ActBody }>(
      `/problems/:id/${action}`,
      {
        config: { access: 'user', device: true },
        // The body is optional: an empty request acts without a message.
        preValidation: emptyBodyIsObject,
        schema: {
          operationId: `${action}Problem`,
          tags,
          summary:
            action === 'acknowledge'
              ? 'Acknowledge a problem (open -> acknowledged)'
              : 'Resolve a problem (open or acknowledged -> resolved, resolved_by manual)',
          description:
            '409 CONFLICT when the state machine refuses: acknowledge is allowed only from open, resolve from open or acknowledged. ' +
            'details.reason is ALREADY_ACKNOWLEDGED or ALREADY_RESOLVED, details.status the current status. Optional JSON body ' +
            `{"message"} (at most ${PROBLEM_MESSAGE_MAX} characters) is stored as the problem's ${action === 'acknowledge' ? 'acknowledged_message' : 'resolved_message'}. ` +
            `Allowed for admin and monitor; audited as problem.${action}.`,
          params: idParams,
          body: actBody,
          response: {
            200: problemDetailSchema,
            404: errorRef('NOT_FOUND'),
            409: errorRef('CONFLICT: the problem state does not allow it'),
          },
        },
      },
      async (req) => {
        const message = cleanMessage(req.body.message);
        const out = await applyProblemAction(pg, req.params.id, action, req.user!.username, message);
        if (!out.ok) {
          if (out.notFound) throw notFound('problem');
          throw new ApiError(409, 'CONFLICT', `cannot ${action} a problem that is ${out.status}`, {
            reason: out.reason,
            status: out.status,
          });
        }
        await auditAct(deps, req, req.params.id, action, message, false);
        await publishAct(req, req.params.id, action);
        return forCaller(req, (await getProblem(pg, await loadTypeSettings(pg), req.params.id))!);
      },
    );
  }

  app.post<{ Body: BulkBody }>(
    '/problems/bulk',
    {
      // The web UI's; the mobile surface (api/README.md) keeps the one-problem routes.
      config: { access: 'user' },
      schema: {
        operationId: 'bulkProblemAction',
        tags: ['problems'],
        summary: 'Acknowledge or resolve several problems at once',
        description:
          `Up to ${BULK_LIMIT} ids in one transaction, each through the state machine as the one-problem routes: a problem whose ` +
          'state forbids the act is reported (outcome conflict, with reason and status) and the rest are done; an unknown id is ' +
          'reported as not_found. Always 200 with one item per id in the order given. The optional message is stored with ' +
          'every act done. Allowed for admin and monitor; each act done is audited as problem.acknowledge / problem.resolve.',
        body: bulkBody,
        response: { 200: bulkResponse },
      },
    },
    async (req) => {
      const { ids, action } = req.body;
      const message = cleanMessage(req.body.message);
      const outcomes = await applyProblemActions(pg, ids, action, req.user!.username, message);
      const done = action === 'acknowledge' ? 'acknowledged' : 'resolved';
      const items = outcomes.map((o) =>
        o.ok
          ? { id: o.id, outcome: done, status: done }
          : o.notFound
            ? { id: o.id, outcome: 'not_found' as const }
            : { id: o.id, outcome: 'conflict' as const, reason: o.reason, status: o.status },
      );
      for (const o of outcomes) {
        if (!o.ok) continue;
        await auditAct(deps, req, o.id, action, message, true);
        await publishAct(req, o.id, action);
      }
      return {
        done: items.filter((i) => i.outcome === done).length,
        conflicts: items.filter((i) => i.outcome === 'conflict').length,
        not_found: items.filter((i) => i.outcome === 'not_found').length,
        items,
      };
    },
  );
};

export default problemsRoutes;
