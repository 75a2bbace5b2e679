import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@watchpost/runtime';
import { checkConfiguredSecrets } from './secret-policy.ts';

function refusal(env: Record<string, string>): ConfigError | undefined {
  try {
    checkConfiguredSecrets(loadConfig(env));
  } catch (err) {
    return err as ConfigError;
  }
  return undefined;
}

describe('configured secrets', () => {
  it('none configured (all generated), or each at the policy: accepted', () => {
    expect(refusal({})).toBeUndefined();
    expect(
      refusal({
        SERVICE_ADMIN_PASSWORD: 'twelve-chars',
        SERVICE_BOOTSTRAP_API_KEY: 'k'.repeat(32),
        SERVICE_JWT_SECRET: 's'.repeat(32),
        METRICS_TOKEN: 'm'.repeat(32),
      }),
    ).toBeUndefined();
  });

  it.each([
    ['SERVICE_ADMIN_PASSWORD', 'eleven-char', /12 to 1024 characters.*got 11/],
    ['SERVICE_BOOTSTRAP_API_KEY', 'wpk_short', /at least 32 bytes.*got 9/],
    ['SERVICE_JWT_SECRET', 'x'.repeat(31), /at least 32 bytes.*got 31/],
    ['METRICS_TOKEN', 'token', /at least 32 bytes/],
  ])('%s below the policy is refused, naming the variable and never the value', (name, value, message) => {
    const err = refusal({ [name]: value });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.variable).toBe(name);
    expect(err!.message).toMatch(message);
    expect(err!.message).not.toContain(value);
  });

  it('counts characters of the password, bytes of keys (a 4-byte character is one character, four bytes)', () => {
    expect(refusal({ SERVICE_ADMIN_PASSWORD: '😀'.repeat(11) })?.variable).toBe('SERVICE_ADMIN_PASSWORD');
    expect(refusal({ SERVICE_ADMIN_PASSWORD: '😀'.repeat(12) })).toBeUndefined();
    expect(refusal({ SERVICE_JWT_SECRET: '😀'.repeat(8) })).toBeUndefined();
  });
});
