// The API as one fastify plugin (testable with inject(); the launcher mounts it beside ingest's routes
// on one server). Layout:
//   /api/docs/           Swagger UI (public)
//   /api/v1/openapi.json the OpenAPI 3 document, generated from the route schemas (public)
//   /api/v1/...          the routes listed in routes/index.ts, each with `config.access`
// Everything API-specific (access hook, error handler, 404 handler, `deps`) lives in the encapsulated
// /api/v1 context, so it never touches ingest's routes or /health, /healthz, /metrics.
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import helmet from '@fastify/helmet';
import { VERSION } from '@watchpost/runtime';
import { agentPollOpenApiPaths } from '@watchpost/schemas';
import type { Access, ApiDeps } from './types.ts';
import { accessHook, assertRouteAccess, AGENT_KEY_HEADER } from './access.ts';
import { errorBodySchema, errorHandler, notFound } from './errors.ts';
import { routePlugins } from './routes/index.ts';
import { webStatic } from './web-static.ts';

export const API_PREFIX = '/api/v1';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const DOCS_PATH = '/api/docs';
/** OpenAPI tag of the mobile surface: exactly the routes with `config.device: true`. */
export const MOBILE_TAG = 'mobile';

/**
 * The API docs' policy. swagger-ui (@fastify/swagger-ui) loads only files of this server: three scripts
 * and two style sheets, no inline script; the logo is a data: URL; it fetches the document from
 * ./json (connect-src 'self'); the validator badge is off. It applies inline styles (chromium
 * blocks them under style-src 'self' alone), hence 'unsafe-inline' for styles only; scripts stay 'self'.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const securityFor: Record<Access, Record<string, string[]>[]> = {
  public: [],
  agent: [{ agentKey: [] }],
  user: [{ bearer: [] }],
  admin: [{ bearer: [] }],
};

const accessText: Record<Access, string> = {
  public: 'Access: public.',
  agent: 'Access: agent API key.',
  user: 'Access: any logged-in user (monitor or admin).',
  admin: 'Access: admin only.',
};

/** Adds the security requirement and the error responses every route can give to its schema (and so to OpenAPI). */
/** A route without its own operationId gets one from its method and path (stable: `GET /hosts/:id/x` -> getHostsIdX). */
function defaultOperationId(route: RouteOptions): string {
  const method = (Array.isArray(route.method) ? route.method[0]! : route.method).toLowerCase();
  const words = route.url
    .replace(/^\/api\/v1/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function documentRoute(route: RouteOptions): void {
  const access = route.config!.access as Access;
  const device = route.config!.device === true;
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  if (schema.hide) return;
  schema.operationId ??= defaultOperationId(route);
  schema.security ??= securityFor[access];
  // The tag `mobile` is the device scope as declared (config.device), never a tag written by hand:
  // the document cannot list a route a device is refused, nor leave out one it may call.
  const tags = Array.isArray(schema.tags) ? (schema.tags as string[]).filter((t) => t !== MOBILE_TAG) : [];
  schema.tags = device ? [...tags, MOBILE_TAG] : tags;
  const description = typeof schema.description === 'string' ? `${schema.description}\n\n` : '';
  const deviceText =
    access === 'user' || access === 'admin'
      ? device
        ? ' Mobile devices: allowed (api/MOBILE.md).'
        : " A mobile device's token: 403 DEVICE_SCOPE."
      : '';
  schema.description = `${description}${accessText[access]}${deviceText}${route.config!.sseToken ? ' The access token may also be passed as the `access_token` query parameter (EventSource cannot send headers).' : ''}`;
  const response = (schema.response ??= {}) as Record<string, Record<string, unknown>>;
  // Declared error responses with only a description get the error body schema.
  for (const [status, r] of Object.entries(response)) {
    if (Number(status) >= 400 && !('type' in r) && !('$ref' in r)) response[status] = { ...errorBodySchema, ...r };
  }
  const add = (status: number, description: string) => {
    response[status] ??= { description, ...errorBodySchema };
  };
  add(400, 'VALIDATION_FAILED: the request does not match the schema');
  if (access !== 'public') add(401, 'UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user');
  if (access === 'admin')
    add(
      403,
      (device
        ? 'FORBIDDEN: the role does not allow this operation'
        : "FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token") +
        '; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet',
    );
  if (access === 'user' && !device) add(403, "DEVICE_SCOPE: a mobile device's token (api/MOBILE.md)");
  add(500, 'INTERNAL: unexpected error (no internals are returned)');
}

export interface BuildOptions {
  /** Extra route plugins (tests), mounted under /api/v1 like the listed ones. */
  extraRoutes?: FastifyPluginAsync[];
  /** Folder of the built web UI served at `/` (default web/dist). */
  webDir?: string;
}

export function buildApiApp(deps: ApiDeps, opts: BuildOptions = {}): FastifyPluginAsync {
  return async function apiApp(app: FastifyInstance) {
    await app.register(swagger, {
      // The agent poll is served by ingest; its reference for agent authors belongs in this document too.
      transformObject: (doc) =>
        'openapiObject' in doc
          ? { ...doc.openapiObject, paths: { ...doc.openapiObject.paths, ...(agentPollOpenApiPaths as Record<string, object>) } }
          : doc.swaggerObject,
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'watchpost API',
          version: VERSION,
          description:
            'Security event collection and alerting. Errors always have the shape {"error":{"code","message","details"?}}. ' +
            '401 = missing/invalid credentials, 403 = role not allowed. See api/README.md.',
        },
        // Relative: the document describes the server it is read from.
        servers: [{ url: '/', description: 'this watchpost server' }],
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            agentKey: { type: 'apiKey', in: 'header', name: AGENT_KEY_HEADER },
          },
        },
      },
    });
    // Security headers on everything the API serves (the UI, the docs, the JSON); the UI and the docs set
    // their own Content-Security-Policy (web-static.ts, DOCS_CSP), the JSON routes a deny-all one (below).
    await app.register(helmet, { contentSecurityPolicy: false, hsts: { maxAge: 31_536_000, includeSubDomains: true } });
    // A JSON answer is never a document: nothing may be loaded, run or framed from it.
    app.addHook('onSend', async (_req, reply) => {
      if (!reply.hasHeader('content-security-policy') && /json/.test(String(reply.getHeader('content-type') ?? '')))
        void reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
    });
    // staticCSP: swagger-ui's own onSend hook, scoped to the docs' routes (without it the docs had none).
    await app.register(swaggerUi, { routePrefix: DOCS_PATH, staticCSP: DOCS_CSP });
    await app.register(webStatic, { dir: opts.webDir });

    await app.register(
      async (api) => {
        api.decorate('deps', deps);
        api.decorateRequest('user', null);
        api.decorateRequest('deviceId', null);
        api.decorateRequest('sessionId', null);
        api.addHook('onRoute', (route) => {
          assertRouteAccess(route);
          documentRoute(route);
        });
        api.addHook('onRequest', accessHook(deps));
        api.setErrorHandler(errorHandler);
        api.setNotFoundHandler((req, reply) => errorHandler(notFound('route') as never, req, reply));

        api.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
        for (const plugin of [...routePlugins, ...(opts.extraRoutes ?? [])]) await api.register(plugin);
      },
      { prefix: API_PREFIX },
    );
  };
}
