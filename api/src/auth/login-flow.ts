// What the login's steps (password, then the second factor when active) and the account routes'
// secret checks share: the limiter settings, counting a failure (audited, a new lock alerted once), and
// finishing a login (the attempt released, tokens issued, the browser's cookies set).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NOTIFICATIONS_QUEUE } from '@watchpost/schemas';
import { audit } from '@watchpost/core/audit';
import { type UserRole } from '@watchpost/core/users';
import type { ApiDeps } from '../types.ts';
import { ApiError } from '../errors.ts';
import {
  alertRateLimited,
  isKnownAddress,
  rateLimitedError,
  recordFailure,
  releaseAttempt,
  rememberAddress,
  reserveAttempt,
  type LimitScope,
  type LimitSettings,
  type LimitSubject,
} from './login-limit.ts';
import { deviceCookieKey, setDeviceCookie } from './device-cookie.ts';
import { loginTrustFrom, type LoginTrustSettings } from './settings.ts';
import { issueSession } from './tokens.ts';
import { setRefreshCookie } from './refresh-cookie.ts';

export interface LoginContext {
  deps: ApiDeps;
  trust: LoginTrustSettings;
  limits: LimitSettings;
  deviceKey: Buffer;
}

export function loginContext(deps: ApiDeps): LoginContext {
  const trust = loginTrustFrom(deps.config);
  return {
    deps,
    trust,
    limits: { ...deps.auth, maxFailuresPerDevice: trust.maxFailuresPerDevice },
    deviceKey: deviceCookieKey(deps.auth.jwtSecret),
  };
}

export interface FailureAudit {
  /** e.g. auth.login.failure, auth.mfa.failure, account.verify_failure. */
  action: string;
  actor: string | null;
  target: string;
  details?: Record<string, unknown>;
}

/**
 * Counts the failure of a reserved attempt and audits it; a failure that locks a scope is audited as
 * auth.login.rate_limited and alerted once (the lock is the login's, whatever the secret was).
 */
export async function recordFailedAttempt(
  ctx: LoginContext,
  req: FastifyRequest,
  subject: LimitSubject,
  entry: FailureAudit,
): Promise<LimitScope[]> {
  const { deps } = ctx;
  const locked = await recordFailure(deps.redis, deps.redisKeyPrefix, subject, ctx.limits);
  await audit(deps.pg, {
    actor: entry.actor,
    address: req.ip,
    action: entry.action,
    target: entry.target,
    details: { ...entry.details, ...(locked.length ? { locked } : {}) },
  });
  if (locked.length > 0) {
    await audit(deps.pg, {
      actor: null,
      address: req.ip,
      action: 'auth.login.rate_limited',
      target: subject.username,
      details: { locked },
    });
    await alertRateLimited(deps.notifications, subject, deps.auth.lockoutSeconds, (err) =>
      req.log.error({ err, queue: NOTIFICATIONS_QUEUE }, 'could not enqueue the login rate-limit alert'),
    );
  }
  return locked;
}

/**
 * A login is done (the password, and the second factor when active): the attempt is released and its
 * (username, address) and device cookie counts cleared, the address remembered, success audited, a
 * new session issued; the cookie flow also gets a fresh device cookie and the refresh cookie.
 */
export async function completeLogin(
  ctx: LoginContext,
  req: FastifyRequest,
  reply: FastifyReply,
  login: {
    user: { id: number; username: string; role: UserRole; tokenVersion: number };
    subject: LimitSubject;
    refreshCookie: boolean;
    details: Record<string, unknown>;
  },
) {
  const { deps } = ctx;
  const { user, subject } = login;
  await releaseAttempt(deps.redis, deps.redisKeyPrefix, subject, true);
  await rememberAddress(deps.redis, deps.redisKeyPrefix, subject, ctx.trust);
  await audit(deps.pg, {
    actor: user.username,
    address: req.ip,
    action: 'auth.login.success',
    target: user.username,
    details: login.details,
  });
  const tokens = await issueSession(deps.pg, deps.auth, user);
  if (!login.refreshCookie) return tokens;
  // Browsers (the cookie flow) get a fresh device cookie after every success: a new id, the old
  // one's failures no longer matter. The JSON flow stays cookie-free (its clients have the known addresses).
  setDeviceCookie(req, reply, ctx.deviceKey, user, ctx.trust.deviceCookieSeconds);
  return setRefreshCookie(req, reply, tokens);
}

/**
 * A secret checked on a logged-in route (the current password, a TOTP code) counts as a login attempt
 * of the user from the caller's address: a stolen access token cannot be used to guess the password or
 * the codes faster than the login allows. 429 when a scope is locked; `check` false: the failure is
 * counted and audited, and `refusal` thrown.
 */
export async function countedCheck(
  ctx: LoginContext,
  req: FastifyRequest,
  username: string,
  check: () => Promise<{ ok: true } | { ok: false; details: Record<string, unknown>; refusal: ApiError }>,
): Promise<void> {
  const { deps } = ctx;
  const subject: LimitSubject = { username, address: req.ip };
  if (await isKnownAddress(deps.redis, deps.redisKeyPrefix, subject, ctx.trust)) subject.knownAddress = true;
  const reservation = await reserveAttempt(deps.redis, deps.redisKeyPrefix, subject, ctx.limits);
  if (!reservation.ok) throw rateLimitedError(reservation, 'too many failed attempts; try again later');
  let outcome;
  try {
    outcome = await check();
  } catch (err) {
    await releaseAttempt(deps.redis, deps.redisKeyPrefix, subject, false).catch(() => {});
    throw err;
  }
  if (outcome.ok) {
    await releaseAttempt(deps.redis, deps.redisKeyPrefix, subject, false);
    return;
  }
  await recordFailedAttempt(ctx, req, subject, {
    action: 'account.verify_failure',
    actor: username,
    target: username,
    details: outcome.details,
  });
  throw outcome.refusal;
}
