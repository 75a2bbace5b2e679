// Checking a user's second factor: a TOTP code (its time step spent at once, so a code works once) or
// a recovery code (spent at once). Used by the login's second step and by the user's own disable.
import { loadSecretsKey } from '@watchpost/core/secrets';
import { RECOVERY_CODE_PATTERN, TOTP_CODE_PATTERN, useRecoveryCode, verifyTotpCode } from '@watchpost/core/users';
import type { ApiDeps } from '../types.ts';

const keys = new WeakMap<object, Promise<Buffer>>();

/** The secrets key (SERVICE_SECRETS_KEY, else the state dir's file), loaded once per app. */
export function secretsKeyOf(deps: ApiDeps): Promise<Buffer> {
  let key = keys.get(deps);
  if (!key) {
    key = loadSecretsKey(deps.config.actions.secretsKey, deps.config.stateDir);
    // A failed load (a bad SERVICE_SECRETS_KEY) is not cached: the next call says so again.
    key.catch(() => keys.delete(deps));
    keys.set(deps, key);
  }
  return key;
}

/** Exactly one of them (the route schemas say so). */
export interface FactorInput {
  code?: string;
  recovery_code?: string;
}

export type FactorMethod = 'totp' | 'recovery_code';

export type FactorOutcome =
  | { ok: true; method: FactorMethod; recoveryCodesLeft?: number }
  | { ok: false; method: FactorMethod; reason: 'invalid' | 'replayed' | 'not_enabled' };

export async function checkSecondFactor(deps: ApiDeps, userId: number, input: FactorInput): Promise<FactorOutcome> {
  if (input.code !== undefined) {
    const r = await verifyTotpCode(deps.pg, await secretsKeyOf(deps), userId, input.code);
    return r.ok ? { ok: true, method: 'totp' } : { ok: false, method: 'totp', reason: r.reason };
  }
  const r = await useRecoveryCode(deps.pg, userId, input.recovery_code ?? '');
  return r.ok
    ? { ok: true, method: 'recovery_code', recoveryCodesLeft: r.left }
    : { ok: false, method: 'recovery_code', reason: r.reason };
}

/** The body schema's part for the factor: a TOTP code or a recovery code, exactly one. */
export const factorProperties = {
  code: { type: 'string', pattern: TOTP_CODE_PATTERN, description: 'the 6-digit code of the authenticator app (spaces ignored)' },
  recovery_code: {
    type: 'string',
    pattern: RECOVERY_CODE_PATTERN,
    description: 'one of the recovery codes shown at enrolment (dashes, spaces and case ignored); each works once',
  },
} as const;
export const exactlyOneFactor = [{ required: ['code'] }, { required: ['recovery_code'] }] as const;
