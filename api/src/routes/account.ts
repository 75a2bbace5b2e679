// The logged-in user's own account (any role; a browser or API session, not a mobile device): the
// second factor (TOTP enrolment, confirmation, disable) and the password change. Whatever changes how
// the user authenticates asks for the current password again (ASVS 5.0 7.5.1), and every secret
// checked here counts as a login attempt (../auth/login-flow.ts, countedCheck): a stolen access token
// cannot be used to guess the password or codes, nor to take over the account's factors.
// Wrong secrets answer 403, not 401: a 401 would tell the client its session is over.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  changeOwnPassword,
  confirmTotpEnrolment,
  getUserByName,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  removeTotp,
  startTotpEnrolment,
  TOTP_ALGORITHM,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  totpState,
  verifyPassword,
} from '@watchpost/core/users';
import { ApiError, unauthenticated } from '../errors.ts';
import { countedCheck, loginContext } from '../auth/login-flow.ts';
import { verifySlotsOf } from '../auth/verify-slots.ts';
import { checkSecondFactor, exactlyOneFactor, factorProperties, secretsKeyOf } from '../auth/second-factor.ts';
import { sessionAccessToken } from '../auth/tokens.ts';
import { auditCaller } from './shared/audit.ts';
import { noContent } from './shared/schemas.ts';

const tags = ['account'];
const currentPassword = {
  type: 'string',
  minLength: 1,
  maxLength: PASSWORD_MAX_LENGTH,
  description: 'your current password',
} as const;
const wrongPassword = () => new ApiError(403, 'WRONG_PASSWORD', 'the current password is wrong');
const wrongCode = () => new ApiError(403, 'INVALID_CODE', 'wrong or already used code');

const securitySchema = {
  type: 'object',
  required: ['totp_enabled', 'totp_enabled_at', 'totp_pending', 'recovery_codes_left', 'totp_required'],
  properties: {
    totp_enabled: { type: 'boolean' },
    totp_enabled_at: { type: 'string', format: 'date-time', nullable: true },
    totp_pending: { type: 'boolean', description: 'an enrolment was started and not confirmed yet' },
    recovery_codes_left: { type: 'integer', description: 'unused recovery codes (0 without a second factor)' },
    totp_required: {
      type: 'boolean',
      description: 'the service requires a second factor of this user (an admin while SERVICE_REQUIRE_TOTP_FOR_ADMINS is on)',
    },
  },
} as const;

const startBody = {
  type: 'object',
  required: ['password'],
  additionalProperties: false,
  properties: { password: currentPassword },
} as const;
const confirmBody = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: { code: factorProperties.code },
} as const;
const disableBody = {
  type: 'object',
  required: ['password'],
  additionalProperties: false,
  properties: { password: currentPassword, ...factorProperties },
  oneOf: exactlyOneFactor,
} as const;
interface DisableBody {
  password: string;
  code?: string;
  recovery_code?: string;
}
const passwordBody = {
  type: 'object',
  required: ['current_password', 'new_password'],
  additionalProperties: false,
  properties: {
    current_password: currentPassword,
    new_password: { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
  },
} as const;

const securityRoute = () => ({
  config: { access: 'user' as const },
  schema: {
    operationId: 'getAccountSecurity',
    tags,
    summary: 'Your second factor and recovery codes',
    response: { 200: securitySchema },
  },
});

const startRoute = () => ({
  config: { access: 'user' as const },
  schema: {
    operationId: 'startTotpEnrolment',
    tags,
    summary: 'Start enrolling an authenticator app (TOTP)',
    description:
      'Asks for your current password. Answers a new secret, shown this once: add it to an authenticator app ' +
      '(scan `otpauth_uri` as a QR code, or type `secret`), then confirm with a code from the app ' +
      '(POST /api/v1/account/totp/confirm). Until then login does not change. Starting again replaces the pending secret. ' +
      `TOTP (RFC 6238): ${TOTP_ALGORITHM}, ${TOTP_DIGITS} digits, ${TOTP_PERIOD_SECONDS} s. The secret is stored ` +
      'encrypted with the secrets key (SERVICE_SECRETS_KEY). 403 WRONG_PASSWORD (counted as a failed login: the ' +
      'login’s 429 RATE_LIMITED applies); 409 TOTP_ALREADY_ENABLED: disable the active one first.',
    body: startBody,
    response: {
      200: {
        type: 'object',
        required: ['secret', 'otpauth_uri', 'algorithm', 'digits', 'period'],
        properties: {
          secret: { type: 'string', description: 'base32 (RFC 4648), for typing into the app' },
          otpauth_uri: { type: 'string', description: 'Key URI (otpauth://totp/...) for a QR code' },
          algorithm: { type: 'string', enum: [TOTP_ALGORITHM] },
          digits: { type: 'integer', enum: [TOTP_DIGITS] },
          period: { type: 'integer', enum: [TOTP_PERIOD_SECONDS] },
        },
      },
      403: { description: 'WRONG_PASSWORD' },
      409: { description: 'TOTP_ALREADY_ENABLED' },
      429: { description: 'RATE_LIMITED: too many wrong passwords or codes; see Retry-After' },
    },
  },
});

const confirmRoute = () => ({
  config: { access: 'user' as const },
  schema: {
    operationId: 'confirmTotpEnrolment',
    tags,
    summary: 'Activate the authenticator app with a current code',
    description:
      'With a current code of the app the pending secret becomes your second factor: every later login asks for a code. ' +
      'Answers 10 recovery codes, shown this once and stored hashed: each logs in once in place of a code (keep them ' +
      'apart from the phone). The confirming code itself cannot be used again. 403 INVALID_CODE; 409 TOTP_NOT_STARTED ' +
      '(no pending secret) or TOTP_ALREADY_ENABLED.',
    body: confirmBody,
    response: {
      200: {
        type: 'object',
        required: ['recovery_codes'],
        properties: { recovery_codes: { type: 'array', items: { type: 'string' }, minItems: 10, maxItems: 10 } },
      },
      403: { description: 'INVALID_CODE' },
      409: { description: 'TOTP_NOT_STARTED or TOTP_ALREADY_ENABLED' },
    },
  },
});

const disableRoute = () => ({
  config: { access: 'user' as const },
  schema: {
    operationId: 'disableTotp',
    tags,
    summary: 'Remove your second factor',
    description:
      'Asks for your current password and a current code of the app (or a recovery code). Removes the secret and ' +
      'the recovery codes; logins ask for the password only. A user who lost both the app and the recovery codes asks an ' +
      'admin (DELETE /api/v1/users/{id}/totp, or the CLI’s `users reset-totp`). 403 WRONG_PASSWORD or INVALID_CODE, ' +
      'each counted as a failed login (429 RATE_LIMITED as for logins); 409 TOTP_NOT_ENABLED. ' +
      `With SERVICE_REQUIRE_TOTP_FOR_ADMINS an admin's admin routes answer 403 MFA_ENROLMENT_REQUIRED again.`,
    body: disableBody,
    response: {
      204: noContent('removed'),
      403: { description: 'WRONG_PASSWORD or INVALID_CODE' },
      409: { description: 'TOTP_NOT_ENABLED' },
      429: { description: 'RATE_LIMITED: too many wrong passwords or codes; see Retry-After' },
    },
  },
});

const passwordRoute = () => ({
  config: { access: 'user' as const },
  schema: {
    operationId: 'changeOwnPassword',
    tags,
    summary: 'Change your password',
    description:
      `Asks for the current password; the new one follows the password policy (${PASSWORD_MIN_LENGTH} to ` +
      `${PASSWORD_MAX_LENGTH} characters) and must differ from it. Ends every other session of yours at once ` +
      '(their access and refresh tokens are refused), signs out your mobile devices (they enrol again) and voids ' +
      'the login device cookies of your browsers. This session goes on: its refresh token stays valid and the ' +
      'answer carries its new access token (the one used for this call is refused from now on). ' +
      '403 WRONG_PASSWORD (counted as a failed login: the login’s 429 RATE_LIMITED applies); 400 PASSWORD_UNCHANGED.',
    body: passwordBody,
    response: {
      200: {
        type: 'object',
        required: ['access_token', 'token_type', 'expires_in', 'sessions_ended', 'devices_signed_out'],
        properties: {
          access_token: { type: 'string', description: 'the new access token of this session' },
          token_type: { type: 'string', enum: ['Bearer'] },
          expires_in: { type: 'integer' },
          sessions_ended: { type: 'integer', description: 'your other browser or API sessions that were live' },
          devices_signed_out: { type: 'integer', description: 'your mobile devices whose session ended' },
        },
      },
      400: { description: 'PASSWORD_UNCHANGED, or VALIDATION_FAILED (the policy)' },
      403: { description: 'WRONG_PASSWORD' },
      429: { description: 'RATE_LIMITED: too many wrong passwords; see Retry-After' },
    },
  },
});

const accountRoutes: FastifyPluginAsync = async (app) => {
  const { deps } = app;
  const { pg } = deps;
  const ctx = loginContext(deps);
  const verifySlots = verifySlotsOf(deps);

  /** The caller's current password, verified in one of the login's scrypt slots (503 when none is free). */
  const passwordIsRight = async (req: FastifyRequest, password: string): Promise<boolean> => {
    const slot = await verifySlots.run(async () => {
      const u = await getUserByName(pg, req.user!.username);
      return u !== null && (await verifyPassword(password, u.passwordHash));
    });
    if (!slot)
      throw new ApiError(503, 'UNAVAILABLE', 'too many password checks at once; try again shortly', undefined, {
        'retry-after': '1',
      });
    return slot.value;
  };

  /** The password step of the routes that ask for it: counted, audited, 403 WRONG_PASSWORD. */
  const requirePassword = (req: FastifyRequest, password: string, purpose: string) =>
    countedCheck(ctx, req, req.user!.username, async () =>
      (await passwordIsRight(req, password))
        ? { ok: true }
        : { ok: false, details: { purpose, reason: 'wrong_password' }, refusal: wrongPassword() },
    );

  const entry = (req: FastifyRequest, action: string, details?: Record<string, unknown>) =>
    auditCaller(pg, req, action, { target: req.user!.username, details });

  app.get('/account/security', securityRoute(), async (req) => {
    const s = await totpState(pg, req.user!.id);
    if (!s) throw unauthenticated('invalid or expired token');
    return {
      totp_enabled: s.enabled,
      totp_enabled_at: s.enabledAt?.toISOString() ?? null,
      totp_pending: s.pending,
      recovery_codes_left: s.recoveryCodesLeft,
      totp_required: req.user!.role === 'admin' && deps.auth.requireTotpForAdmins,
    };
  });

  app.post<{ Body: FromSchema<typeof startBody> }>('/account/totp/start', startRoute(), async (req, reply) => {
    await requirePassword(req, req.body.password, 'totp_start');
    const started = await startTotpEnrolment(pg, await secretsKeyOf(deps), req.user!);
    if (!started.ok) {
      if (started.reason === 'already_enabled')
        throw new ApiError(409, 'TOTP_ALREADY_ENABLED', 'a second factor is active already: disable it first');
      throw unauthenticated('invalid or expired token');
    }
    await entry(req, 'account.totp.start');
    void reply.header('cache-control', 'no-store');
    return {
      secret: started.secret,
      otpauth_uri: started.uri,
      algorithm: TOTP_ALGORITHM,
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    };
  });

  app.post<{ Body: FromSchema<typeof confirmBody> }>('/account/totp/confirm', confirmRoute(), async (req, reply) => {
    // Not counted as a login attempt: the caller has just been shown the secret, there is nothing to guess.
    const r = await confirmTotpEnrolment(pg, await secretsKeyOf(deps), req.user!.id, req.body.code);
    if (!r.ok) {
      if (r.reason === 'invalid_code') throw wrongCode();
      if (r.reason === 'not_started') throw new ApiError(409, 'TOTP_NOT_STARTED', 'start the enrolment first');
      throw new ApiError(409, 'TOTP_ALREADY_ENABLED', 'a second factor is active already');
    }
    await entry(req, 'account.totp.enable');
    void reply.header('cache-control', 'no-store');
    return { recovery_codes: r.recoveryCodes };
  });

  app.post<{ Body: DisableBody }>('/account/totp/disable', disableRoute(), async (req, reply) => {
    if (!(await totpState(pg, req.user!.id))?.enabled) throw new ApiError(409, 'TOTP_NOT_ENABLED', 'no second factor is active');
    let method = '';
    // Password first: a wrong one never spends the code.
    await countedCheck(ctx, req, req.user!.username, async () => {
      if (!(await passwordIsRight(req, req.body.password)))
        return { ok: false, details: { purpose: 'totp_disable', reason: 'wrong_password' }, refusal: wrongPassword() };
      const f = await checkSecondFactor(deps, req.user!.id, req.body);
      method = f.method;
      if (f.ok) return { ok: true };
      return { ok: false, details: { purpose: 'totp_disable', method: f.method, reason: f.reason }, refusal: wrongCode() };
    });
    await removeTotp(pg, req.user!.id);
    await entry(req, 'account.totp.disable', { method });
    return reply.code(204).send();
  });

  app.post<{ Body: FromSchema<typeof passwordBody> }>('/account/password', passwordRoute(), async (req, reply) => {
    const { current_password: current, new_password: next } = req.body;
    await requirePassword(req, current, 'password_change');
    if (next.normalize('NFC') === current.normalize('NFC'))
      throw new ApiError(400, 'PASSWORD_UNCHANGED', 'the new password must differ from the current one');
    const changed = await changeOwnPassword(pg, req.user!.id, next, req.sessionId!);
    if (!changed) throw unauthenticated('invalid or expired token');
    await entry(req, 'account.password_change', { sessions_ended: changed.sessions, devices_signed_out: changed.devices });
    const token = await sessionAccessToken(deps.auth, changed.user, req.sessionId!);
    void reply.header('cache-control', 'no-store');
    return { ...token, sessions_ended: changed.sessions, devices_signed_out: changed.devices };
  });
};

export default accountRoutes;
