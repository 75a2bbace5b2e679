// The second factor's pure parts: RFC 6238 codes, the ±1 step window, the Key URI, recovery codes.
import { describe, expect, it } from 'vitest';
import {
  newRecoveryCodes,
  newTotpSecret,
  normalizeRecoveryCode,
  normalizeTotpCode,
  RECOVERY_CODE_COUNT,
  RECOVERY_CODE_PATTERN,
  recoveryCodeHash,
  TOTP_CODE_PATTERN,
  totpCodeAt,
  totpStepOf,
  totpUri,
} from './totp.ts';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII "12345678901234567890". Its codes are 8 digits; a
// 6-digit code is the same truncation modulo 10^6, so the last six digits.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [seconds: number, code8: string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP codes (RFC 6238, SHA-1, 6 digits, 30 s)', () => {
  it.each(RFC_VECTORS)('at %i s the code is the last six digits of %s', (seconds, code8) => {
    expect(totpCodeAt(RFC_SECRET, seconds * 1000)).toBe(code8.slice(2));
    expect(totpStepOf(RFC_SECRET, code8.slice(2), seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it('accepts the codes of one step either side and names their step; refuses two steps away', () => {
    const now = 1_700_000_015_000; // mid-step
    const step = Math.floor(now / 30_000);
    for (const d of [-1, 0, 1]) expect(totpStepOf(RFC_SECRET, totpCodeAt(RFC_SECRET, now + d * 30_000), now)).toBe(step + d);
    for (const d of [-2, 2]) expect(totpStepOf(RFC_SECRET, totpCodeAt(RFC_SECRET, now + d * 30_000), now)).toBeNull();
  });

  it('takes the code as apps show it (spaces), refuses anything but six digits', () => {
    const now = 59_000;
    expect(normalizeTotpCode(' 287 082 ')).toBe('287082');
    expect(totpStepOf(RFC_SECRET, '287 082', now)).toBe(1);
    for (const bad of ['', '28708', '2870820', '28708a', '94287082', '287-082'])
      expect(totpStepOf(RFC_SECRET, bad, now), bad).toBeNull();
    expect(totpStepOf(RFC_SECRET, '000000', now)).toBeNull();
    expect(new RegExp(TOTP_CODE_PATTERN).test('287 082')).toBe(true);
  });

  it('new secrets: 160 random bits in base32, each different, and they verify their own codes', () => {
    const a = newTotpSecret();
    const b = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(a).not.toBe(b);
    const now = Date.now();
    expect(totpStepOf(a, totpCodeAt(a, now), now)).toBe(Math.floor(now / 30_000));
  });

  it('the Key URI names the issuer and user and states the parameters apps need', () => {
    const uri = new URL(totpUri(RFC_SECRET, 'alice@example.org'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/watchpost:alice@example.org');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'watchpost',
      secret: RFC_SECRET,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('recovery codes', () => {
  it('ten codes of 24 Crockford symbols (120 bits) in groups of four, all different', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    for (const c of codes) {
      expect(c).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){5}[0-9A-HJKMNP-TV-Z]{4}$/);
      expect(new RegExp(RECOVERY_CODE_PATTERN).test(c)).toBe(true);
    }
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('as typed: case, dashes, spaces and the look-alikes do not matter; the hash is of the normalized code', () => {
    const code = '0A1B-2C3D-4E5F-6G7H-8J9K-MNPQ';
    expect(normalizeRecoveryCode('oa1b 2c3d-4e5f6g7h-8j9k-mnpq')).toBe('0A1B2C3D4E5F6G7H8J9KMNPQ');
    expect(normalizeRecoveryCode('0AIB-2C3D-4E5F-6G7H-8J9K-MNPQ')).toBe('0A1B2C3D4E5F6G7H8J9KMNPQ');
    expect(recoveryCodeHash('oa1b 2c3d 4e5f 6g7h 8j9k mnpq')).toBe(recoveryCodeHash(code));
    expect(recoveryCodeHash(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash(code)).not.toBe(recoveryCodeHash('0A1B-2C3D-4E5F-6G7H-8J9K-MNPR'));
  });
});
