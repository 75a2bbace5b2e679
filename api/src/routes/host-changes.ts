// Pending host changes (issue 21, core/src/hosts/changes.ts): what a host's agent reported that differs
// from its confirmed facts, another agent instance speaking for it (an identity conflict), or a new WinRM
// certificate. Any user may read them (agent instance ids: admins only, instance-ids.ts); only an admin
// accepts (applies them to the host) or rejects them, one by one or in bulk (api/ACTIONS.md, "Host changes").
//   GET  /host-changes                     list (kind, host_id, search, status; paging)
//   GET  /host-changes/{id}                one
//   POST /host-changes/{id}/accept|reject  one (409 when no longer pending or changed)
//   POST /host-changes/accept              bulk: {changes: [{id, proposed}]} only (what the admin saw), identity
//                                          and certificate changes refused (ONE_BY_ONE: accept them one by one)
//   POST /host-changes/reject              bulk: {ids} | {changes: [{id, proposed}]} | {all: true, kind?, host_id?, search?}
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  BulkAcceptSelectorError,
  decideHostChanges,
  getHostChange,
  HOST_CHANGE_KINDS,
  HOST_CHANGE_STATUSES,
  listHostChanges,
  ONE_BY_ONE_KINDS,
  type HostChange,
  type HostChangeDecision,
  type HostChangeDecisionResult,
  type HostChangeSelector,
} from '@watchpost/core/hosts';
import { ApiError, notFound, orNotFound } from '../errors.ts';
import { ADMIN_ONLY_INSTANCE, seesInstanceIds, withoutInstanceIds } from '../instance-ids.ts';
import { isHidden, loadTypeSettings } from '../queries/type-settings.ts';
import { errorRef, pageOf, pagingQuery } from './read-schemas.ts';
import { emptyBodyIsObject } from './shared/hooks.ts';
import { idParams, type IdParams } from './shared/schemas.ts';
import type { ApiDeps } from '../types.ts';
import { publishProblemAct } from '../stream/publish.ts';

const tags = ['hosts'];
/** Most changes one bulk call decides: `all` decides this many and answers how many are left. */
export const BULK_LIMIT = 1000;

const nstr = { type: 'string', nullable: true } as const;
const dt = { type: 'string', format: 'date-time' } as const;

const factsSchema = {
  type: 'object',
  additionalProperties: true,
  description:
    'Host facts and binding: any of os_family, product, fqdn, ipv4, internal_address (facts), agent_instance_id and key_id ' +
    `(identity), cert_sha256 (winrm_certificate). agent_instance_id: ${ADMIN_ONLY_INSTANCE}; in an identity proposal, null ` +
    'means the reporting events carry no instance id (accepting binds the host to no instance)',
  properties: {
    os_family: nstr,
    product: nstr,
    fqdn: nstr,
    ipv4: nstr,
    internal_address: nstr,
    agent_instance_id: { ...nstr, description: ADMIN_ONLY_INSTANCE },
    key_id: { type: 'integer', nullable: true },
    cert_sha256: nstr,
    cert_subject: { ...nstr, description: 'winrm_certificate: the subject of the certificate the host presented' },
    cert_issuer: { ...nstr, description: 'winrm_certificate: its issuer' },
    cert_valid_from: nstr,
    cert_valid_to: nstr,
  },
} as const;

const changeSchema = {
  type: 'object',
  required: [
    'id',
    'host_id',
    'hostname',
    'display_name',
    'kind',
    'status',
    'proposed',
    'current',
    'agent_instance_id',
    'key_id',
    'key_name',
    'current_key_name',
    'first_seen',
    'last_seen',
    'seen_count',
    'decided_by',
    'decided_at',
  ],
  properties: {
    id: { type: 'integer' },
    host_id: { type: 'integer' },
    hostname: { type: 'string' },
    display_name: nstr,
    kind: {
      type: 'string',
      enum: [...HOST_CHANGE_KINDS],
      description:
        'facts: the bound agent reports other addresses, FQDN, OS family or product; identity: another agent instance or ' +
        'key speaks for the host, or an event without an instance id for a host bound to one (an identity conflict, also ' +
        'a host_identity_conflict problem; accepted one by one only); winrm_certificate (accepted one by one only): the ' +
        "host's WinRM HTTPS certificate differs from the accepted one (or none is accepted yet: a certificate is pinned only " +
        'when an admin accepts it). A new host has a facts change with empty `current`: until it is accepted the host is ' +
        'unconfirmed and no credentialed action runs against it',
    },
    status: { type: 'string', enum: [...HOST_CHANGE_STATUSES] },
    proposed: { ...factsSchema, description: 'what accepting applies to the host' },
    current: { ...factsSchema, description: 'the confirmed values when the change was first seen' },
    agent_instance_id: { ...nstr, description: `agent instance of the event that proposed it; ${ADMIN_ONLY_INSTANCE}` },
    key_id: { type: 'integer', nullable: true, description: 'agent key of that event' },
    key_name: { ...nstr, description: 'name of the proposed agent key' },
    current_key_name: { ...nstr, description: 'name of the agent key in `current` (the bound key)' },
    event_id: { ...nstr, description: 'the latest event that proposed it' },
    first_seen: dt,
    last_seen: dt,
    seen_count: { type: 'integer', description: 'events that proposed it' },
    decided_by: { ...nstr, description: 'the admin who accepted or rejected it' },
    decided_at: { ...dt, nullable: true },
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: [...HOST_CHANGE_STATUSES], default: 'pending' },
    kind: { type: 'string', enum: [...HOST_CHANGE_KINDS] },
    host_id: { type: 'integer', minimum: 1 },
    search: { type: 'string', maxLength: 255, description: 'case-insensitive substring of the hostname or display name' },
    ...pagingQuery,
  },
} as const;

const oneBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    proposed: {
      type: 'object',
      additionalProperties: true,
      description: 'the proposal as shown to the admin: decided only while it is still this one (else 409, reason CHANGED)',
    },
  },
} as const;

const bulkBody = {
  type: 'object',
  additionalProperties: false,
  description:
    'Exactly one of `ids`, `changes` (ids with the proposal shown, decided only while unchanged) or `all: true` (every pending ' +
    `change under kind, host_id and search, at most ${BULK_LIMIT} a call; \`remaining\` says how many are left). A bulk ` +
    'accept takes `changes` only (400 otherwise): it applies nothing the admin did not see.',
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: BULK_LIMIT, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
    changes: {
      type: 'array',
      minItems: 1,
      maxItems: BULK_LIMIT,
      items: {
        type: 'object',
        required: ['id', 'proposed'],
        additionalProperties: false,
        properties: { id: { type: 'integer', minimum: 1 }, proposed: { type: 'object', additionalProperties: true } },
      },
    },
    all: { type: 'boolean', enum: [true] },
    kind: { type: 'string', enum: [...HOST_CHANGE_KINDS], description: 'with `all`' },
    host_id: { type: 'integer', minimum: 1, description: 'with `all`' },
    search: { type: 'string', maxLength: 255, description: 'with `all`: substring of the hostname or display name' },
  },
} as const;
type BulkBody = FromSchema<typeof bulkBody>;

const outcomeSchema = {
  type: 'object',
  required: ['id', 'outcome'],
  properties: {
    id: { type: 'integer' },
    outcome: {
      type: 'string',
      enum: ['accepted', 'rejected', 'conflict', 'refused', 'not_found'],
      description:
        'accepted/rejected: decided by this call; conflict: no longer pending (ALREADY_DECIDED) or changed (CHANGED); ' +
        'refused: an identity or winrm_certificate change in a bulk accept (ONE_BY_ONE: still pending, accept it with ' +
        'POST /host-changes/{id}/accept); not_found: no such change',
    },
    reason: { type: 'string', enum: ['ALREADY_DECIDED', 'CHANGED', 'ONE_BY_ONE'] },
    status: { type: 'string', enum: [...HOST_CHANGE_STATUSES], description: "the change's status after this call" },
    host_id: { type: 'integer' },
    hostname: { type: 'string' },
    kind: { type: 'string', enum: [...HOST_CHANGE_KINDS] },
  },
} as const;

const bulkResponse = {
  type: 'object',
  required: ['decided', 'conflicts', 'refused', 'not_found', 'remaining', 'items'],
  properties: {
    decided: { type: 'integer', description: 'changes this call accepted or rejected' },
    conflicts: { type: 'integer', description: 'changes no longer pending (another decision came first) or changed' },
    refused: { type: 'integer', description: 'identity and certificate changes a bulk accept left pending (ONE_BY_ONE)' },
    not_found: { type: 'integer' },
    remaining: { type: 'integer', description: 'with `all`: pending changes still matching the filters (call again)' },
    items: { type: 'array', items: outcomeSchema, description: 'one outcome per change, in the order asked' },
  },
} as const;

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
/** A change as the API shows it; without instance ids unless the caller sees them (instance-ids.ts). */
const toItem = (c: HostChange, seesIds: boolean) => ({
  ...c,
  id: Number(c.id),
  host_id: Number(c.host_id),
  key_id: c.key_id === null ? null : Number(c.key_id),
  first_seen: iso(c.first_seen)!,
  last_seen: iso(c.last_seen)!,
  decided_at: iso(c.decided_at),
  ...(seesIds
    ? {}
    : { agent_instance_id: null, proposed: withoutInstanceIds(c.proposed), current: withoutInstanceIds(c.current) }),
});

/** Tells the live view about the host_identity_conflict problems a decision resolved (as POST /problems/{id}/resolve does). */
async function publishResolved(deps: ApiDeps, req: FastifyRequest, r: HostChangeDecisionResult): Promise<void> {
  if (r.resolvedProblems.length === 0) return;
  const ts = await loadTypeSettings(deps.pg);
  for (const p of r.resolvedProblems) {
    if (!isHidden(ts, p.type)) await publishProblemAct(deps, req.log, 'resolved', p);
  }
}

const hostChangesRoutes: FastifyPluginAsync = async (app) => {
  const deps = app.deps;
  const { pg } = deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/host-changes',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'listHostChanges',
        tags,
        summary: 'List host changes (default: pending), by hostname then kind',
        description:
          'A pending change is what a host reported that differs from its confirmed facts (kind facts), another agent instance ' +
          'or key speaking for it (identity), or a WinRM certificate that differs from the pinned one (winrm_certificate). ' +
          'Remote actions use only the confirmed values until an admin accepts. At most one pending change per host and kind: ' +
          'a newer proposal replaces the older one (seen_count, last_seen).',
        querystring: listQuery,
        response: { 200: pageOf(changeSchema) },
      },
    },
    async (req) => {
      const q = req.query;
      const r = await listHostChanges(
        pg,
        { status: q.status, kind: q.kind, hostId: q.host_id, search: q.search },
        q.page_size,
        (q.page - 1) * q.page_size,
      );
      const seesIds = seesInstanceIds(req);
      return { total: r.total, page: q.page, page_size: q.page_size, items: r.rows.map((c) => toItem(c, seesIds)) };
    },
  );

  app.get<{ Params: IdParams }>(
    '/host-changes/:id',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getHostChange',
        tags,
        summary: 'One host change',
        params: idParams,
        response: { 200: changeSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => toItem(orNotFound(await getHostChange(pg, req.params.id), 'host change'), seesInstanceIds(req)),
  );

  const verbs = { accept: 'Accept', reject: 'Reject' } as const;
  for (const decision of ['accept', 'reject'] as const satisfies HostChangeDecision[]) {
    const effect =
      decision === 'accept'
        ? 'Applies `proposed` to the host in one transaction (facts: os_family, product, fqdn, ipv4, internal_address; ' +
          'identity: those and the binding: agent_instance_id, agent key, bound_at; winrm_certificate: the pinned certificate) ' +
          'and marks the change accepted. The only way to accept an identity or winrm_certificate change (never in bulk).'
        : 'Marks the change rejected; the host keeps its confirmed facts and binding.';
    const bulkAcceptNote =
      'A bulk accept applies only what the admin saw: it takes `changes` (each id with the proposal shown) and answers 400 ' +
      'BAD_REQUEST to `ids` or `all: true` (those reject only). Identity and winrm_certificate changes are never accepted ' +
      `in bulk: each is answered \`refused\`, reason ONE_BY_ONE, and stays pending (${ONE_BY_ONE_KINDS.join(', ')}: ` +
      'POST /host-changes/{id}/accept after comparing it).';
    const problemNote =
      ' Deciding an identity change (either way) resolves the host_identity_conflict problem of the host (resolved_by manual). ' +
      `Audited as host.change.${decision}.`;

    app.post<{ Params: IdParams; Body: FromSchema<typeof oneBody> | undefined }>(
      `/host-changes/:id/${decision}`,
      {
        config: { access: 'admin' },
        // The body is optional: a call without one decides whatever is pending.
        preValidation: emptyBodyIsObject,
        schema: {
          operationId: `${decision}HostChange`,
          tags,
          summary: `${verbs[decision]} one host change`,
          description:
            `${effect}${problemNote} 409 CONFLICT when the change is no longer pending (details.reason ALREADY_DECIDED, ` +
            'details.status; of two admins deciding at once exactly one applies) or its proposal is no longer the `proposed` ' +
            'given (details.reason CHANGED: reload and decide again).',
          params: idParams,
          body: oneBody,
          response: { 200: changeSchema, 404: errorRef('NOT_FOUND'), 409: errorRef('CONFLICT: no longer pending or changed') },
        },
      },
      async (req) => {
        const id = req.params.id;
        const proposed = req.body?.proposed;
        const selector: HostChangeSelector = proposed ? { changes: [{ id, proposed }] } : { ids: [id] };
        const r = await decideHostChanges(pg, selector, decision, { username: req.user!.username, address: req.ip });
        const o = r.outcomes[0]!;
        if (o.outcome === 'not_found') throw notFound('host change');
        if (o.outcome === 'conflict') {
          throw new ApiError(
            409,
            'CONFLICT',
            o.reason === 'CHANGED'
              ? 'the change was updated by a newer report; reload it and decide again'
              : `the change is already ${o.status}`,
            { reason: o.reason, status: o.status },
          );
        }
        await publishResolved(deps, req, r);
        return toItem((await getHostChange(pg, id))!, seesInstanceIds(req));
      },
    );

    app.post<{ Body: BulkBody }>(
      `/host-changes/${decision}`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `${decision}HostChanges`,
          tags,
          summary: `${verbs[decision]} several host changes`,
          description:
            `Each change as POST /host-changes/{id}/${decision} does, all in ONE transaction; a change no longer pending (or ` +
            'changed) is answered `conflict` in `items` and the rest are decided. 400 unless exactly one of ids, changes or ' +
            `all is given. ${decision === 'accept' ? bulkAcceptNote : ''}${problemNote}`,
          body: bulkBody,
          response: { 200: bulkResponse },
        },
      },
      async (req) => {
        const b = req.body;
        const given = [b.ids !== undefined, b.changes !== undefined, b.all === true].filter(Boolean).length;
        if (given !== 1) throw new ApiError(400, 'BAD_REQUEST', 'give exactly one of ids, changes or all: true');
        if (!b.all && (b.kind !== undefined || b.host_id !== undefined || b.search !== undefined))
          throw new ApiError(400, 'BAD_REQUEST', 'kind, host_id and search filter only with all: true');
        if (b.changes && new Set(b.changes.map((c) => c.id)).size !== b.changes.length)
          throw new ApiError(400, 'BAD_REQUEST', 'changes name a change twice');
        const selector: HostChangeSelector = b.all
          ? { all: { kind: b.kind, hostId: b.host_id, search: b.search }, limit: BULK_LIMIT }
          : b.changes
            ? { changes: b.changes.map((c) => ({ id: c.id, proposed: c.proposed as Record<string, unknown> })) }
            : { ids: b.ids! };
        // A bulk accept by ids or filter would apply whatever is pending when it runs, seen or not (issue 33 item 4).
        const r = await decideHostChanges(
          pg,
          selector,
          decision,
          { username: req.user!.username, address: req.ip },
          { bulk: true },
        ).catch((err: unknown) => {
          throw err instanceof BulkAcceptSelectorError ? new ApiError(400, 'BAD_REQUEST', err.message) : err;
        });
        await publishResolved(deps, req, r);
        const count = (f: (o: (typeof r.outcomes)[number]) => boolean) => r.outcomes.filter(f).length;
        return {
          decided: count((o) => o.outcome === 'accepted' || o.outcome === 'rejected'),
          conflicts: count((o) => o.outcome === 'conflict'),
          refused: count((o) => o.outcome === 'refused'),
          not_found: count((o) => o.outcome === 'not_found'),
          remaining: r.remaining,
          items: r.outcomes,
        };
      },
    );
  }
};

export default hostChangesRoutes;
