// Agent API keys over HTTP (admin only); the same functions as the CLI (core/src/agent-keys.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  ApiKeyImportError,
  createApiKey,
  importApiKey,
  IMPORTED_KEY_MAX_LENGTH,
  IMPORTED_KEY_MIN_LENGTH,
  listApiKeys,
  revokeApiKey,
} from '@watchpost/core/agent-keys';
import { ApiError, notFound } from '../errors.ts';
import { auditCaller } from './shared/audit.ts';
import { listAllRoute } from './shared/list-route.ts';
import { idParams, noContent, type IdParams } from './shared/schemas.ts';

const tags = ['api-keys'];
const keyInfo = {
  type: 'object',
  required: ['id', 'name', 'prefix', 'created_at', 'revoked_at', 'last_used_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    prefix: { type: 'string', description: 'first characters of the key, to recognise it' },
    created_at: { type: 'string', format: 'date-time' },
    revoked_at: { type: 'string', format: 'date-time', nullable: true },
    last_used_at: { type: 'string', format: 'date-time', nullable: true },
  },
} as const;
const listRoute = { access: 'admin', operationId: 'listApiKeys', tags, summary: 'List agent API keys', item: keyInfo } as const;
const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 128, pattern: '\\S' } },
} as const;
const importBody = {
  type: 'object',
  required: ['name', 'key'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128, pattern: '\\S' },
    // Bounds checked by core (importedKeyProblem) with a message; the schema only caps the body.
    key: { type: 'string', minLength: 1, maxLength: 4096, description: 'the agent key, in clear; stored only as its sha256' },
  },
} as const;

const apiKeysRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  listAllRoute(app, '/api-keys', listRoute, () => listApiKeys(pg));

  app.post<{ Body: FromSchema<typeof createBody> }>(
    '/api-keys',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an agent API key',
        description: 'The key is in this answer only; just its sha256 is stored.',
        body: createBody,
        response: {
          201: {
            type: 'object',
            required: ['id', 'key', 'prefix'],
            properties: {
              id: { type: 'integer' },
              key: { type: 'string' },
              prefix: { type: 'string', description: 'what lists show of the key' },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const created = await createApiKey(pg, req.body.name, { prefix: app.deps.config.agentKeyPrefix });
      await auditCaller(pg, req, 'api_key.create', { target: req.body.name.trim(), details: { id: created.id } });
      return reply.code(201).send(created);
    },
  );

  app.post<{ Body: FromSchema<typeof importBody> }>(
    '/api-keys/import',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'importApiKey',
        tags,
        summary: 'Import an existing agent API key',
        description:
          'For fleets moving from another collector: the agents keep the key they have. The key is stored as its ' +
          'sha256 with a display prefix, never returned, and works for ingest like a generated one. It must be ' +
          `${IMPORTED_KEY_MIN_LENGTH} to ${IMPORTED_KEY_MAX_LENGTH} printable ASCII characters without spaces, not a ` +
          'placeholder, and look random (surrounding whitespace is dropped).',
        body: importBody,
        response: {
          201: {
            type: 'object',
            required: ['id', 'name', 'prefix'],
            properties: { id: { type: 'integer' }, name: { type: 'string' }, prefix: { type: 'string' } },
          },
          400: { description: 'VALIDATION_FAILED: the key is refused (length, characters, placeholder, not random)' },
          409: { description: 'KEY_EXISTS: the same key is registered already (active or revoked)' },
        },
      },
    },
    async (req, reply) => {
      const name = req.body.name.trim();
      let imported;
      try {
        imported = await importApiKey(pg, name, req.body.key);
      } catch (err) {
        // Messages never quote the key.
        if (err instanceof ApiKeyImportError) {
          if (err.reason === 'duplicate') throw new ApiError(409, 'KEY_EXISTS', err.message);
          throw new ApiError(400, 'VALIDATION_FAILED', err.message, [{ in: 'body', pointer: '/key', message: err.message }]);
        }
        throw err;
      }
      await auditCaller(pg, req, 'api_key.import', { target: name, details: { id: imported.id, prefix: imported.prefix } });
      return reply.code(201).send({ id: imported.id, name, prefix: imported.prefix });
    },
  );

  app.delete<{ Params: IdParams }>(
    '/api-keys/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an agent API key',
        params: idParams,
        response: {
          204: noContent('revoked'),
          404: { description: 'NOT_FOUND: no active key with this id' },
        },
      },
    },
    async (req, reply) => {
      const n = await revokeApiKey(pg, req.params.id);
      if (n === 0) throw notFound('active API key');
      await auditCaller(pg, req, 'api_key.revoke', { target: String(req.params.id) });
      return reply.code(204).send();
    },
  );
};

export default apiKeysRoutes;
