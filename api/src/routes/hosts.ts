// GET /hosts (search, status, pending changes, paging), GET /hosts/{id}, DELETE /hosts/{id} (admin: the host, its
// problems in Postgres and its events in ClickHouse; the host reappears at its next ingest), POST
// /hosts/{id}/ssh-host-key/reset (admin: forget the pinned SSH host key).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { resetSshHostKey } from '@watchpost/core/hosts';
import { notFound, orNotFound } from '../errors.ts';
import { seesInstanceIds } from '../instance-ids.ts';
import { deleteHost, getHost, listHosts } from '../queries/hosts.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { withVersionFlags } from '../queries/versions.ts';
import { errorRef, hostDetailSchema, hostRowSchema, pageOf, pagingQuery } from './read-schemas.ts';
import { auditCaller } from './shared/audit.ts';
import { idParams, type IdParams } from './shared/schemas.ts';

const tags = ['hosts'];

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    search: { type: 'string', maxLength: 255 },
    status: { type: 'string', enum: ['online', 'stale'] },
    pending: {
      type: 'boolean',
      description: 'true: only hosts with a pending change (GET /host-changes); false: only hosts without',
    },
    ...pagingQuery,
  },
} as const;

const hostsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config } = app.deps;

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/hosts',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'listHosts',
        tags,
        summary: 'List hosts',
        description:
          '`search` matches hostname or display name (case-insensitive substring). Status is computed when read: online while ' +
          'the last heartbeat/daily report (or first event) is at most SERVICE_HEARTBEAT_STALE_MINUTES old. Sorted by hostname. ' +
          '`pending_changes` counts the changes an admin has to accept or reject (GET /host-changes).',
        querystring: listQuery,
        response: { 200: pageOf(hostRowSchema) },
      },
    },
    async (req) => {
      const ts = await loadTypeSettings(pg);
      const q = req.query;
      const page = await listHosts(
        pg,
        ts,
        config.heartbeat,
        { search: q.search, status: q.status, pending: q.pending },
        q.page,
        q.page_size,
      );
      return { ...page, items: await withVersionFlags(pg, config.actions, page.items) };
    },
  );

  app.get<{ Params: IdParams }>(
    '/hosts/:id',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getHost',
        tags,
        summary: 'One host',
        params: idParams,
        response: { 200: hostDetailSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => {
      const ts = await loadTypeSettings(pg);
      const h = orNotFound(await getHost(pg, ts, config.heartbeat, req.params.id), 'host');
      // The bound instance id, with the fleet key, would fetch this host's agent commands: admins only.
      if (!seesInstanceIds(req)) h.agent_instance_id = null;
      return (await withVersionFlags(pg, config.actions, [h]))[0];
    },
  );

  app.delete<{ Params: IdParams }>(
    '/hosts/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteHost',
        tags,
        summary: 'Delete a host with its problems and events',
        description:
          'Deletes the host record and its problems (with timelines) in Postgres, then submits a ClickHouse mutation deleting ' +
          'its events (ALTER TABLE events DELETE; ClickHouse applies it in the background, usually within seconds). The host ' +
          'is recreated by the next event its agent sends. Audited as host.delete.',
        params: idParams,
        response: {
          200: {
            type: 'object',
            required: ['id', 'hostname', 'problems_deleted', 'events'],
            properties: {
              id: { type: 'integer' },
              hostname: { type: 'string' },
              problems_deleted: { type: 'integer' },
              events: { type: 'string', enum: ['deletion_submitted'], description: 'the ClickHouse mutation was accepted' },
            },
          },
          404: errorRef('NOT_FOUND'),
        },
      },
    },
    async (req) => {
      const out = await deleteHost(pg, clickhouse, req.params.id, {
        database: config.clickhouseDatabase,
        cluster: config.clickhouseCluster,
      });
      if (!out) throw notFound('host');
      const details = { id: req.params.id, problems_deleted: out.problems };
      await auditCaller(pg, req, 'host.delete', { target: out.hostname, details });
      return { id: req.params.id, hostname: out.hostname, problems_deleted: out.problems, events: 'deletion_submitted' as const };
    },
  );

  // A reinstalled Linux host has a new SSH host key: every SSH action is refused ("host key changed")
  // until an admin forgets the pinned one here; the next SSH action pins the key it then sees.
  app.post<{ Params: IdParams }>(
    '/hosts/:id/ssh-host-key/reset',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'resetHostSshKey',
        tags,
        summary: 'Forget the pinned SSH host key of a host',
        description:
          'SSH actions pin the host key seen at the first connection and refuse a different one. After a host was reinstalled ' +
          '(or its key rotated), this forgets the pinned key: the next SSH action pins whatever key the host then presents, so ' +
          'check the host first. Audited as host.ssh_host_key.reset with the key that was pinned.',
        params: idParams,
        response: {
          200: {
            type: 'object',
            required: ['id', 'hostname', 'previous_sha256'],
            properties: {
              id: { type: 'integer' },
              hostname: { type: 'string' },
              previous_sha256: {
                type: 'string',
                nullable: true,
                description: 'the SHA-256 (hex) of the key that was pinned; null when none was',
              },
            },
          },
          404: errorRef('NOT_FOUND'),
        },
      },
    },
    async (req) => {
      const out = orNotFound(await resetSshHostKey(pg, req.params.id), 'host');
      const details = { id: req.params.id, previous_sha256: out.previous };
      await auditCaller(pg, req, 'host.ssh_host_key.reset', { target: out.hostname, details });
      return { id: req.params.id, hostname: out.hostname, previous_sha256: out.previous };
    },
  );
};

export default hostsRoutes;
