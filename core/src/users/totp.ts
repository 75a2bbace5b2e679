// The second factor's pure parts: TOTP (RFC 6238) secrets, URIs and code checks, and recovery codes.
//
// The library is `otpauth` (hectorm/otpauth): maintained for years, no dependency beyond @noble/hashes,
// typed, with the RFC 4226/6238 test vectors in its suite, a constant-time comparison of codes and the
// Key URI format authenticator apps read. HMAC-based OTP is small, but its edge cases (dynamic
// truncation, base32 without padding, counter encoding) are where a hand-written copy goes wrong.
//
// Parameters: SHA-1, 6 digits, 30 s: what every authenticator app (Google Authenticator, Microsoft
// Authenticator, Aegis, 1Password...) expects; several silently ignore other values in the URI and
// would then show codes that never match. A window of ±1 step (RFC 6238 section 5.2) allows for a
// phone clock up to 30 s off and for a code typed as it changes.
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { CROCKFORD_ALPHABET } from '../devices.ts';

export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;
export const TOTP_ISSUER = 'watchpost';
/** 160 bits: the key length RFC 4226 section 4 recommends for HMAC-SHA-1. */
const SECRET_BYTES = 20;

export const RECOVERY_CODE_COUNT = 10;
/**
 * 24 Crockford base32 symbols = 120 bits: at or above ASVS 5.0 6.5.2's 112 bits, so a plain SHA-256
 * stores them safely (no salted slow hash, which would cost ten scrypt runs per check).
 */
const RECOVERY_CODE_SYMBOLS = 24;
/** What a person may type for a recovery code: the symbols, in groups or not. */
export const RECOVERY_CODE_PATTERN = '^[0-9A-Za-z -]{24,40}$';
export const TOTP_CODE_PATTERN = '^[0-9 ]{6,8}$';

/** A new random secret, base32 (RFC 4648, no padding): what the user types into an app by hand. */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

function totp(secretBase32: string, username = ''): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: username,
    secret: Secret.fromBase32(secretBase32),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** The Key URI (`otpauth://totp/watchpost:<user>?secret=…&issuer=watchpost&algorithm=SHA1&digits=6&period=30`) an app scans. */
export function totpUri(secretBase32: string, username: string): string {
  return totp(secretBase32, username).toString();
}

/** Digits only: apps show codes as `123 456`. */
export function normalizeTotpCode(input: string): string {
  return input.replace(/\s+/g, '');
}

/**
 * The time step a code belongs to when it is right within ±TOTP_WINDOW steps of `nowMs`, else null.
 * Replay protection is the caller's: a step once used must never be accepted again (core/src/users/mfa.ts).
 */
export function totpStepOf(secretBase32: string, code: string, nowMs = Date.now()): number | null {
  const token = normalizeTotpCode(code);
  if (!/^\d+$/.test(token) || token.length !== TOTP_DIGITS) return null;
  const delta = totp(secretBase32).validate({ token, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: nowMs }) + delta;
}

/** The code of the step around `nowMs` (tests, and nothing else: the service never shows a code). */
export function totpCodeAt(secretBase32: string, nowMs = Date.now()): string {
  return totp(secretBase32).generate({ timestamp: nowMs });
}

/** Ten new recovery codes as shown: `XXXX-XXXX-XXXX-XXXX-XXXX-XXXX`. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    let s = '';
    for (let i = 0; i < RECOVERY_CODE_SYMBOLS; i++) s += CROCKFORD_ALPHABET[randomInt(CROCKFORD_ALPHABET.length)];
    return s.match(/.{4}/g)!.join('-');
  });
}

/** Upper case, no dashes or spaces, the look-alikes O->0 and I/L->1: what a person typed becomes the code. */
export function normalizeRecoveryCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

/** How a recovery code is stored (and looked up): the SHA-256 hex of its normalized form. */
export function recoveryCodeHash(input: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(input)).digest('hex');
}
