// The one place that enforces `config.access` for every API route: runs onRequest, before body
// parsing and validation, so an unauthenticated caller learns nothing about the route's input.
//   401 UNAUTHENTICATED: no credentials, or a token/key that is invalid, expired, revoked, or whose
//       user is inactive/removed or changed role or password since the token was issued.
//   403 FORBIDDEN: valid credentials whose role is not allowed on the route (a monitor on an admin route).
//   403 DEVICE_SCOPE: a mobile device's token on a route outside the mobile surface (api/MOBILE.md),
//       whatever its user's role: only routes declaring `config.device: true` accept device tokens.
//   403 MFA_ENROLMENT_REQUIRED: with SERVICE_REQUIRE_TOTP_FOR_ADMINS, an admin without an active second
//       factor on an admin route. The enrolment routes (/account/...) are 'user' routes: always open.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { ACCESS_LEVELS, type ApiDeps, type ApiUser } from './types.ts';
import { ApiError, forbidden, unauthenticated } from './errors.ts';
import { verifyAccessToken } from './auth/jwt.ts';
import { getUserById } from '@watchpost/core/users';
import { touchDevice } from '@watchpost/core/devices';
import { bearerToken as parseBearer } from '@watchpost/runtime';

/** Header carrying an agent API key on 'agent' routes. */
export const AGENT_KEY_HEADER = 'x-api-key';

/**
 * onRoute check: a route without a valid `config.access` stops the app from starting, and so does a
 * `config.device` that is not `true` or sits on an admin or agent route (the mobile surface is made
 * of 'user' routes, plus the public ones a device calls, such as enroll and refresh).
 */
export function assertRouteAccess(route: RouteOptions): void {
  const config = route.config as { access?: unknown; device?: unknown } | undefined;
  const access = config?.access;
  const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
  if (typeof access !== 'string' || !(ACCESS_LEVELS as readonly string[]).includes(access)) {
    throw new Error(`route ${methods} ${route.url} declares no config.access (one of ${ACCESS_LEVELS.join(', ')})`);
  }
  const device = config?.device;
  if (device !== undefined && (device !== true || (access !== 'user' && access !== 'public')))
    throw new Error(`route ${methods} ${route.url}: config.device may only be true, on a 'user' or 'public' route`);
}

/** An admin route, the admin second factor required, and the admin has none yet. */
export const mfaEnrolmentRequired = () =>
  new ApiError(
    403,
    'MFA_ENROLMENT_REQUIRED',
    'admins must enrol a second factor (TOTP) before using admin operations: Account → Security, or POST /api/v1/account/totp/start',
  );

/** A device token outside the mobile surface. */
export const deviceScope = () =>
  new ApiError(
    403,
    'DEVICE_SCOPE',
    "a mobile device's token is limited to the mobile routes (events, problems, dashboard, live stream, its own device and push); use a browser session",
  );

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
 * The device comes from the session row and, for tokens issued since the claim exists, from the `dev`
 * claim too: a claim that disagrees with the row is no token of ours (refused); a row with a device
 * and no claim (an older token) is a device session all the same.
 */
export async function authenticateToken(
  deps: ApiDeps,
  token: string,
): Promise<(ApiUser & { deviceId: number | null; sessionId: string; totpEnabled: boolean }) | null> {
  const claims = await verifyAccessToken(deps.auth.jwtSecret, token);
  if (!claims) return null;
  const [user, session] = await Promise.all([
    getUserById(deps.pg, claims.userId),
    liveSession(deps, claims.sessionId, claims.userId),
  ]);
  if (!user || !user.active || user.role !== claims.role || user.tokenVersion !== claims.tokenVersion || !session) return null;
  const claimed = claims.deviceId ?? null;
  if (claimed !== null && claimed !== session.deviceId) return null;
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    deviceId: session.deviceId,
    sessionId: claims.sessionId,
    totpEnabled: user.totpEnabled,
  };
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
    // Before the role: an admin's phone is a phone, not an admin session.
    if (user.deviceId !== null && config.device !== true) throw deviceScope();
    if (access === 'admin' && user.role !== 'admin') throw forbidden();
    // After the role: a monitor learns nothing about the admins' rule.
    if (access === 'admin' && deps.auth.requireTotpForAdmins && !user.totpEnabled) throw mfaEnrolmentRequired();
    req.user = { id: user.id, username: user.username, role: user.role };
    req.deviceId = user.deviceId;
    req.sessionId = user.sessionId;
    if (user.deviceId !== null) void touchDevice(deps.pg, user.deviceId).catch(() => {});
  };
}
