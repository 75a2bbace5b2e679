// POST /api/v1/auth/login/mfa: the login's second step. ./auth.ts answers the right password of a user
// whose second factor is active with a challenge ({mfa_required, mfa_token}); this call finishes the
// login with a TOTP code or a recovery code. Wrong codes are failed logins for the limiter, counted
// against what the password step was judged by (its username, address, device cookie), so knowing the
// password buys no faster guessing of codes.
import type { FastifyPluginAsync } from 'fastify';
import { getUserById } from '@watchpost/core/users';
import { ApiError } from '../errors.ts';
import { rateLimitedError, releaseAttempt, reserveAttempt } from '../auth/login-limit.ts';
import { completeLogin, loginContext, recordFailedAttempt } from '../auth/login-flow.ts';
import {
  consumeChallenge,
  countChallengeFailure,
  MFA_CHALLENGE_SECONDS,
  MFA_MAX_CODE_FAILURES,
  MFA_TOKEN_PATTERN,
  readChallenge,
} from '../auth/mfa-challenge.ts';
import { checkSecondFactor, exactlyOneFactor, factorProperties, type FactorOutcome } from '../auth/second-factor.ts';
import { rateLimited, tokenResponse } from './auth.ts';

const mfaBody = {
  type: 'object',
  required: ['mfa_token'],
  additionalProperties: false,
  properties: {
    mfa_token: { type: 'string', pattern: MFA_TOKEN_PATTERN, description: 'from the login answer' },
    ...factorProperties,
  },
  oneOf: exactlyOneFactor,
} as const;
interface MfaBody {
  mfa_token: string;
  code?: string;
  recovery_code?: string;
}

const invalidChallenge = () =>
  new ApiError(401, 'INVALID_MFA_TOKEN', 'the login has expired or was already completed; log in again with your password');

const authMfaRoutes: FastifyPluginAsync = async (app) => {
  const { deps } = app;
  const ctx = loginContext(deps);
  const prefix = deps.redisKeyPrefix;

  app.post<{ Body: MfaBody }>(
    '/auth/login/mfa',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'loginMfa',
        tags: ['auth'],
        summary: 'Finish a login with the second factor',
        description:
          'The second step of a login whose password step answered `{mfa_required: true, mfa_token}`: the token and either ' +
          '`code` (the authenticator app’s current 6-digit code; a code is accepted once, and no older one after it) or ' +
          '`recovery_code` (one of the ten shown at enrolment; each works once). The answer is the login’s: the token pair, ' +
          'in the cookie flow when the login asked for it (refresh cookie and device cookie set). ' +
          `401 INVALID_CODE: a wrong, used or replayed code; it counts as a failed login (the login’s 429 RATE_LIMITED limits ` +
          `apply, details.scope as there). 401 INVALID_MFA_TOKEN: the challenge is unknown, older than ${MFA_CHALLENGE_SECONDS} s, ` +
          `already completed, took ${MFA_MAX_CODE_FAILURES} wrong codes, or the user’s password or second factor changed since: ` +
          'log in again.',
        body: mfaBody,
        response: {
          200: tokenResponse,
          401: { description: 'INVALID_CODE or INVALID_MFA_TOKEN' },
          429: rateLimited,
        },
      },
    },
    async (req, reply) => {
      const token = req.body.mfa_token;
      const challenge = await readChallenge(deps.redis, prefix, token);
      if (!challenge) throw invalidChallenge();
      const { subject } = challenge;
      const reservation = await reserveAttempt(deps.redis, prefix, subject, ctx.limits);
      if (!reservation.ok) throw rateLimitedError(reservation, 'too many failed login attempts; try again later');
      const trusted = challenge.trusted ? { trusted: challenge.trusted } : {};
      let user;
      let outcome: FactorOutcome;
      try {
        user = await getUserById(deps.pg, challenge.userId);
        // Deactivated, password changed, or factor removed by an admin since the password step: start over.
        if (!user || !user.active || user.tokenVersion !== challenge.tokenVersion || !user.totpEnabled) {
          await consumeChallenge(deps.redis, prefix, token);
          throw invalidChallenge();
        }
        outcome = await checkSecondFactor(deps, user.id, req.body);
      } catch (err) {
        await releaseAttempt(deps.redis, prefix, subject, false).catch(() => {});
        throw err;
      }
      if (!outcome.ok) {
        await countChallengeFailure(deps.redis, prefix, token);
        await recordFailedAttempt(ctx, req, subject, {
          action: 'auth.mfa.failure',
          actor: null,
          target: user.username,
          details: { ...trusted, method: outcome.method, reason: outcome.reason },
        });
        throw new ApiError(401, 'INVALID_CODE', 'wrong or already used code');
      }
      // Two right codes at once: one login.
      if (!(await consumeChallenge(deps.redis, prefix, token))) {
        await releaseAttempt(deps.redis, prefix, subject, false);
        throw invalidChallenge();
      }
      const left = outcome.recoveryCodesLeft !== undefined ? { recovery_codes_left: outcome.recoveryCodesLeft } : {};
      return completeLogin(ctx, req, reply, {
        user,
        subject,
        refreshCookie: challenge.refreshCookie,
        details: { ...trusted, mfa: outcome.method, ...left },
      });
    },
  );
};

export default authMfaRoutes;
