// The one place that enforces `config.access` for every API route: runs onRequest, before body
// parsing and validation, so an unauthenticated caller learns nothing about the route's input.
//   401 UNAUTHENTICATED: no credentials, or a token/key that is invalid, expired, revoked, or whose
//       user is inactive/removed or changed role or password since the token was issued.
//   403 FORBIDDEN: valid credentials whose role is not allowed on the route (a monitor on an admin route).
import type { FastifyRequest, RouteOptions } from 'fastify';
import { ACCESS_LEVELS, type ApiDeps, type ApiUser } from './types.ts';
import { forbidden, unauthenticated } from './errors.ts';
import { verifyAccessToken } from './auth/jwt.ts';
import { getUserById, touchDevice } from '@watchpost/core';
import { bearerToken as parseBearer } from '@watchpost/runtime';

/** Header carrying an agent API key on 'agent' routes. */
export const AGENT_KEY_HEADER = 'x-api-key';

/** onRoute check: a route without a valid `config.access` stops the app from starting. */
export function assertRouteAccess(route: RouteOptions): void {
  const access = (route.config as { access?: unknown } | undefined)?.access;
  if (typeof access !== 'string' || !(ACCESS_LEVELS as readonly string[]).includes(access)) {
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    throw new Error(`route ${methods} ${route.url} declares no config.access (one of ${ACCESS_LEVELS.join(', ')})`);
  }
}

function bearerToken(req: FastifyRequest): string | undefined {
  return parseBearer(req.headers.authorization);
}

/** The access token a request authenticated with (header, or the query parameter on SSE routes). */
export function requestToken(req: FastifyRequest): string | undefined {
  const token = bearerToken(req);
  if (token !== undefined || req.routeOptions.config.sseToken !== true) return token;
  const q = (req.query as Record<string, unknown> | undefined)?.access_token;
  return typeof q === 'string' && q.length > 0 ? q : undefined;
}

/**
 * The logged-in user behind an access token, re-checked against Postgres; null when refused. A token
 * of a mobile device's session also names the device (revoked or deleted device: its family is gone).
 */
export async function authenticateToken(deps: ApiDeps, token: string): Promise<(ApiUser & { deviceId: number | null }) | null> {
  const claims = await verifyAccessToken(deps.auth.jwtSecret, token);
  if (!claims) return null;
  const [user, session] = await Promise.all([
    getUserById(deps.pg, claims.userId),
    liveSession(deps, claims.sessionId, claims.userId),
  ]);
  if (!user || !user.active || user.role !== claims.role || user.tokenVersion !== claims.tokenVersion || !session) return null;
  return { id: user.id, username: user.username, role: user.role, deviceId: session.deviceId };
}

/** The session (refresh-token family) if it was neither logged out, revoked, nor past its absolute lifetime. */
async function liveSession(deps: ApiDeps, sessionId: string, userId: number): Promise<{ deviceId: number | null } | null> {
  // A revoked device's sessions end here too, whatever a token row says.
  const r = await deps.pg.query<{ device_id: string | null }>(
    `SELECT t.device_id FROM refresh_tokens t LEFT JOIN devices d ON d.id = t.device_id
      WHERE t.family_id = $1 AND t.user_id = $2 AND t.revoked_at IS NULL
        AND t.session_started_at > now() - make_interval(secs => $3)
        AND (t.device_id IS NULL OR (d.id IS NOT NULL AND d.revoked_at IS NULL)) LIMIT 1`,
    [sessionId, userId, deps.auth.sessionMaxSeconds],
  );
  const row = r.rows[0];
  return row ? { deviceId: row.device_id === null ? null : Number(row.device_id) } : null;
}

export function accessHook(deps: ApiDeps) {
  return async function checkAccess(req: FastifyRequest): Promise<void> {
    const config = req.routeOptions.config;
    const access = config.access;
    // Every registered route has access (checked at start); none means the 404 handler.
    if (access === undefined || access === 'public') return;
    if (access === 'agent') {
      const key = req.headers[AGENT_KEY_HEADER];
      if (typeof key !== 'string' || key.length === 0 || key.length > 512)
        throw unauthenticated('missing or invalid agent API key');
      if (!(await deps.verifyAgentKey(key))) throw unauthenticated('missing or invalid agent API key');
      return;
    }
    const token = requestToken(req);
    if (token === undefined) throw unauthenticated('missing bearer token');
    const user = await authenticateToken(deps, token);
    if (!user) throw unauthenticated('invalid or expired token');
    if (access === 'admin' && user.role !== 'admin') throw forbidden();
    req.user = { id: user.id, username: user.username, role: user.role };
    req.deviceId = user.deviceId;
    if (user.deviceId !== null) void touchDevice(deps.pg, user.deviceId).catch(() => {});
  };
}
