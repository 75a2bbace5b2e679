// Windows agent bundle downloads: a host fetches its update over a short-lived link the actions worker
// signed (core/src/actions/bundle-url.ts), so the route is public and checks the signature.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { readBundle, verifyBundleSignature } from '@watchpost/core/actions';
import { ApiError, notFound } from '../../errors.ts';
import { errorRef } from '../read-schemas.ts';
import { hostParams, tags } from './schemas.ts';

const signedQuery = {
  type: 'object',
  required: ['expires', 'sig'],
  properties: { expires: { type: 'integer', minimum: 0 }, sig: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
} as const;

const agentBundlesRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config } = app.deps;
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));

  app.get<{ Params: FromSchema<typeof hostParams>; Querystring: FromSchema<typeof signedQuery> }>(
    '/agent-bundles/:id.zip',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Download a Windows agent bundle (signed, short-lived link)',
        description:
          'The link is made by the actions worker for one WinRM update and lives BUNDLE_URL_TTL_SECONDS (10 minutes): ' +
          '`expires` (unix seconds) and `sig` (HMAC-SHA256 with a key derived from the secrets key). 403 when either is wrong or expired.',
        params: hostParams,
        querystring: signedQuery,
        produces: ['application/zip'],
        response: {
          200: { description: 'the zip (repository at its branch plus VERSION)', type: 'string', format: 'binary' },
          403: { description: 'FORBIDDEN: invalid or expired link' },
          404: errorRef('NOT_FOUND'),
        },
      },
    },
    async (req, reply) => {
      if (!verifyBundleSignature(await key(), req.params.id, req.query.expires, req.query.sig))
        throw new ApiError(403, 'FORBIDDEN', 'invalid or expired download link');
      const b = await readBundle(pg, req.params.id);
      if (!b) throw notFound('bundle');
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="watchpost-agent-${b.version}.zip"`)
        .header('x-content-sha256', b.sha256)
        .header('cache-control', 'no-store')
        .send(b.zip);
    },
  );
};

export default agentBundlesRoutes;
