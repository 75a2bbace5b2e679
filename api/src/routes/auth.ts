// POST /api/v1/auth/login, /auth/refresh, /auth/logout, GET /auth/me. The login's second step
// (/auth/login/mfa) is in ./auth-mfa.ts.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError, unauthenticated } from '../errors.ts';
import { audit } from '@watchpost/core/audit';
import { dummyHash, getUserById, getUserByName, normalizeUsername, verifyPassword } from '@watchpost/core/users';
import { revokeFamilyOf, rotateRefreshToken } from '../auth/tokens.ts';
import { isKnownAddress, rateLimitedError, releaseAttempt, reserveAttempt, type LimitSubject } from '../auth/login-limit.ts';
import { validDeviceCookie } from '../auth/device-cookie.ts';
import { verifySlotsOf } from '../auth/verify-slots.ts';
import { clearRefreshCookie, REFRESH_COOKIE, refreshCookie, setRefreshCookie } from '../auth/refresh-cookie.ts';
import { completeLogin, loginContext, recordFailedAttempt } from '../auth/login-flow.ts';
import { createChallenge, MFA_CHALLENGE_SECONDS, type MfaChallenge } from '../auth/mfa-challenge.ts';
import { noContent } from './shared/schemas.ts';

const tags = ['auth'];

export const tokenResponse = {
  type: 'object',
  // refresh_token is absent when it went into the httpOnly cookie (login with refresh_cookie: true).
  required: ['access_token', 'token_type', 'expires_in', 'refresh_expires_in'],
  properties: {
    access_token: { type: 'string', description: 'JWT (HS256); send as `Authorization: Bearer <token>`' },
    refresh_token: {
      type: 'string',
      description: `opaque; single use, rotated by /auth/refresh. Absent in the cookie flow (then in the ${REFRESH_COOKIE} cookie)`,
    },
    token_type: { type: 'string', enum: ['Bearer'] },
    expires_in: { type: 'integer', description: 'seconds until the access token expires' },
    refresh_expires_in: { type: 'integer', description: 'seconds until the refresh token expires' },
  },
} as const;

export const rateLimited = {
  description:
    'RATE_LIMITED: too many failed logins for this username, address or device cookie; see the Retry-After header (seconds)',
} as const;

const refreshBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    refresh_token: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description: `required unless the browser sends the ${REFRESH_COOKIE} cookie (cookie flow)`,
    },
  },
} as const;
type RefreshBody = FromSchema<typeof refreshBody>;

const loginBody = {
  type: 'object',
  required: ['username', 'password'],
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 128 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    refresh_cookie: {
      type: 'boolean',
      description: 'true: the refresh token goes into an httpOnly cookie, and a device cookie is set (browsers)',
    },
  },
} as const;
type LoginBody = FromSchema<typeof loginBody>;

const cookieFlow =
  `Cookie flow (browsers): with \`refresh_cookie: true\` at login the refresh token is set as the httpOnly, SameSite=Strict ` +
  `cookie \`${REFRESH_COOKIE}\` (Path=/api/v1/auth) and left out of the body; /auth/refresh and /auth/logout called with \`{}\` ` +
  'use that cookie, rotate or clear it, and also leave the refresh token out of the body.';

const auditAddress = (req: FastifyRequest) => req.ip;

const mfaChallengeResponse = {
  type: 'object',
  required: ['mfa_required', 'mfa_token', 'expires_in'],
  additionalProperties: false,
  properties: {
    mfa_required: { type: 'boolean', enum: [true] },
    mfa_token: {
      type: 'string',
      description: 'opaque, single use: send it with a code to POST /api/v1/auth/login/mfa to finish the login',
    },
    expires_in: { type: 'integer', description: `seconds the challenge stays valid (${MFA_CHALLENGE_SECONDS})` },
  },
} as const;

const loginDescription =
  'Returns an access token (JWT, 15 min by default) and a refresh token (30 days by default). ' +
  'When the user has a second factor (TOTP) the right password gives no tokens yet: the answer is 200 ' +
  '`{mfa_required: true, mfa_token, expires_in}` and POST /api/v1/auth/login/mfa with that token and a code (or a recovery ' +
  'code) finishes the login, with the same answers as this route. ' +
  'A wrong password and an unknown user get the same 401 INVALID_CREDENTIALS. At most 3 guesses per username and ' +
  'client address are evaluated in the counting window (15 min by default), however many arrive at once; then, and ' +
  'after 10 per username from any address or 30 per address for any username, logins in that scope get ' +
  '429 RATE_LIMITED with Retry-After (details.scope: pair, username or address) until the lockout (15 min by ' +
  'default) ends. Wrong second-factor codes count the same way. A browser where the user logged in before sends its ' +
  'device cookie (set by every successful cookie-flow login: HttpOnly, SameSite=Strict, 30 days by default, void after ' +
  'a password change): its attempts are judged by that cookie alone (3 failures ' +
  'lock only that cookie, details.scope device), so strangers cannot lock the owner out of it; an address the user ' +
  'logged in from recently is not subject to the per-username lock either. ' +
  '503 UNAVAILABLE with Retry-After when too many passwords are being verified at once. ' +
  cookieFlow;

const authRoutes: FastifyPluginAsync = async (app) => {
  const { deps } = app;
  const verifySlots = verifySlotsOf(deps);
  const ctx = loginContext(deps);

  app.post<{ Body: LoginBody }>(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Log in with username and password',
        description: loginDescription,
        body: loginBody,
        response: {
          200: { anyOf: [tokenResponse, mfaChallengeResponse] },
          401: { description: 'INVALID_CREDENTIALS' },
          429: rateLimited,
          503: { description: 'UNAVAILABLE: too many password verifications at once' },
        },
      },
    },
    async (req, reply) => {
      const username = normalizeUsername(req.body.username);
      const prefix = deps.redisKeyPrefix;
      // Looked up before anything is counted: a device cookie is signed for the user's token version.
      const user = await getUserByName(deps.pg, username);
      // A valid device cookie for this username: judged by that cookie alone. Otherwise an address
      // the user logged in from recently escapes the per-username lock (./auth/login-limit.ts).
      const device = user ? validDeviceCookie(req, ctx.deviceKey, user) : undefined;
      const subject: LimitSubject = { username, address: req.ip };
      if (device !== undefined) subject.device = device;
      else if (await isKnownAddress(deps.redis, prefix, subject, ctx.trust)) subject.knownAddress = true;
      const trusted: MfaChallenge['trusted'] =
        device !== undefined ? 'device_cookie' : subject.knownAddress ? 'known_address' : undefined;
      const details = trusted ? { trusted } : {};
      const reservation = await reserveAttempt(deps.redis, prefix, subject, ctx.limits);
      if (!reservation.ok) throw rateLimitedError(reservation, 'too many failed login attempts; try again later');
      let verdict: { ok: boolean } | undefined;
      try {
        // Unknown users are checked against a dummy hash: same answer, same cost.
        verdict = (
          await verifySlots.run(async () => ({
            ok: await verifyPassword(req.body.password, user?.passwordHash ?? (await dummyHash())),
          }))
        )?.value;
      } catch (err) {
        await releaseAttempt(deps.redis, prefix, subject, false).catch(() => {});
        throw err;
      }
      if (!verdict) {
        // No guess was evaluated: the attempt is given back.
        await releaseAttempt(deps.redis, prefix, subject, false);
        throw new ApiError(503, 'UNAVAILABLE', 'too many logins at once; try again shortly', undefined, { 'retry-after': '1' });
      }
      if (!user || !verdict.ok || !user.active) {
        await recordFailedAttempt(ctx, req, subject, { action: 'auth.login.failure', actor: null, target: username, details });
        throw new ApiError(401, 'INVALID_CREDENTIALS', 'invalid username or password');
      }
      const refreshCookie = req.body.refresh_cookie === true;
      if (!user.totpEnabled) return completeLogin(ctx, req, reply, { user, subject, refreshCookie, details });
      // The password is right but the login is not done: the attempt is given back without clearing
      // any count (that is for a finished login), and the codes of the second step count against the
      // same subject.
      await releaseAttempt(deps.redis, prefix, subject, false);
      const challenge = {
        userId: user.id,
        tokenVersion: user.tokenVersion,
        subject,
        refreshCookie,
        ...(trusted ? { trusted } : {}),
      };
      const mfaToken = await createChallenge(deps.redis, prefix, challenge);
      await audit(deps.pg, {
        actor: user.username,
        address: req.ip,
        action: 'auth.login.mfa_challenge',
        target: user.username,
        details,
      });
      return { mfa_required: true as const, mfa_token: mfaToken, expires_in: MFA_CHALLENGE_SECONDS };
    },
  );

  app.post<{ Body: RefreshBody }>(
    '/auth/refresh',
    {
      config: { access: 'public', device: true },
      schema: {
        operationId: 'refreshToken',
        tags,
        summary: 'Exchange a refresh token for a new token pair',
        description:
          'The refresh token is single use: the answer carries its successor. Presenting an already used refresh token ' +
          'revokes every token of its session (family) and answers 401. ' +
          cookieFlow,
        body: refreshBody,
        response: { 200: tokenResponse, 401: { description: 'UNAUTHENTICATED' } },
      },
    },
    async (req, reply) => {
      const fromCookie = req.body.refresh_token === undefined;
      const presented = req.body.refresh_token ?? refreshCookie(req);
      if (presented === undefined) throw unauthenticated('missing refresh token');
      const out = await rotateRefreshToken(deps.pg, deps.auth, presented);
      if (!out.ok) {
        if (out.reason === 'reused') {
          await audit(deps.pg, {
            actor: null,
            address: auditAddress(req),
            action: 'auth.refresh.reuse',
            target: out.userId !== undefined ? String(out.userId) : null,
            details: { revoked: 'family' },
          });
        }
        throw unauthenticated(
          out.reason === 'reused' ? 'refresh token already used; the session was revoked' : 'invalid or expired refresh token',
        );
      }
      return fromCookie ? setRefreshCookie(req, reply, out.tokens) : out.tokens;
    },
  );

  app.post<{ Body: RefreshBody }>(
    '/auth/logout',
    {
      config: { access: 'public', device: true },
      schema: {
        operationId: 'logout',
        tags,
        summary: 'End a session',
        description:
          'Ends the session: revokes the refresh token and its whole family, and every access token of that session ' +
          'is refused from the next request on (access tokens name their session; each request checks it). ' +
          'Its live streams are closed within seconds. ' +
          cookieFlow,
        body: refreshBody,
        response: { 204: noContent('logged out (also for an unknown token)') },
      },
    },
    async (req, reply) => {
      const presented = req.body.refresh_token ?? refreshCookie(req);
      if (req.body.refresh_token === undefined) clearRefreshCookie(req, reply);
      const userId = presented === undefined ? null : await revokeFamilyOf(deps.pg, presented);
      if (userId !== null)
        await audit(deps.pg, { actor: null, address: auditAddress(req), action: 'auth.logout', target: String(userId) });
      return reply.code(204).send();
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'The logged-in user',
        response: {
          200: {
            type: 'object',
            required: ['id', 'username', 'role', 'totp_enabled', 'mfa_enrolment_required'],
            properties: {
              id: { type: 'integer' },
              username: { type: 'string' },
              role: { type: 'string', enum: ['admin', 'monitor'] },
              totp_enabled: { type: 'boolean', description: 'the user has an active second factor (TOTP)' },
              mfa_enrolment_required: {
                type: 'boolean',
                description:
                  'true for an admin without a second factor while SERVICE_REQUIRE_TOTP_FOR_ADMINS is on: admin routes answer ' +
                  '403 MFA_ENROLMENT_REQUIRED until the admin enrols (POST /api/v1/account/totp/start)',
              },
            },
          },
        },
      },
    },
    async (req) => {
      const u = await getUserById(deps.pg, req.user!.id);
      // The access check found the user a moment ago; gone since, the session is too.
      if (!u) throw unauthenticated('invalid or expired token');
      return {
        id: u.id,
        username: u.username,
        role: u.role,
        totp_enabled: u.totpEnabled,
        mfa_enrolment_required: u.role === 'admin' && deps.auth.requireTotpForAdmins && !u.totpEnabled,
      };
    },
  );
};

export default authRoutes;
