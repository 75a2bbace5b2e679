// Users' and devices' settings: token lifetimes, login limits and lockouts, the second factor, mobile
// enrollment and Web Push (api/README.md, api/MOBILE.md).
import { createECDH } from 'node:crypto';
import { ConfigError, envReader, type EnvVars } from '../env.ts';

export interface AuthConfig {
  accessTtlSeconds: number;
  refreshTtlDays: number;
  /** Absolute lifetime of a session (refresh-token family), however often it is refreshed. */
  sessionMaxDays: number;
  loginWindowSeconds: number;
  lockoutSeconds: number;
  maxFailuresPerUser: number;
  maxFailuresPerAddress: number;
  maxConcurrentVerifications: number;
  /** Lifetime of the device cookie a successful login sets (OWASP device cookies); also how long an address counts as known. */
  deviceCookieDays: number;
  /** Failed logins with one valid device cookie before that cookie alone is locked. */
  maxFailuresPerDevice: number;
  /** A user's most recent successful addresses exempt from the per-username lockout (0: none). */
  knownAddresses: number;
  /** Failed enrollment-code guesses per client address (IPv6: per /64) in the login window (api/MOBILE.md). */
  enrollMaxFailuresPerAddress: number;
  /** Failed enrollment-code guesses a minute across all addresses, then every enrollment waits. */
  enrollMaxFailuresPerMinute: number;
  /** Live streams (SSE) at once per user, and per mobile device, in one API process. */
  maxStreamsPerUser: number;
  maxStreamsPerDevice: number;
  /**
   * SERVICE_REQUIRE_TOTP_FOR_ADMINS: an admin without an active second factor may log in, but every
   * admin route answers 403 MFA_ENROLMENT_REQUIRED until the admin enrols (api/README.md).
   */
  requireTotpForAdmins: boolean;
}

export interface DevicesConfig {
  codeTtlMinutes: number;
  vapidPublicKey: string | undefined;
  vapidPrivateKey: string | undefined;
  /** VAPID `sub`: a mailto: or https: contact for push services. */
  vapidSubject: string;
}

export function authConfig(env: EnvVars): AuthConfig {
  const r = envReader(env);
  return {
    accessTtlSeconds: r.int('SERVICE_ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
    refreshTtlDays: r.int('SERVICE_REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    sessionMaxDays: r.int('SERVICE_SESSION_MAX_DAYS', 90, 1, 3650),
    loginWindowSeconds: r.int('SERVICE_LOGIN_WINDOW_SECONDS', 900, 10, 86_400),
    lockoutSeconds: r.int('SERVICE_LOGIN_LOCKOUT_SECONDS', 900, 10, 86_400),
    maxFailuresPerUser: r.int('SERVICE_LOGIN_MAX_FAILURES_PER_USER', 10, 3, 1000),
    maxFailuresPerAddress: r.int('SERVICE_LOGIN_MAX_FAILURES_PER_ADDRESS', 30, 3, 10_000),
    maxConcurrentVerifications: r.int('SERVICE_LOGIN_MAX_CONCURRENT', 4, 1, 256),
    deviceCookieDays: r.int('SERVICE_LOGIN_DEVICE_COOKIE_DAYS', 30, 1, 365),
    maxFailuresPerDevice: r.int('SERVICE_LOGIN_MAX_FAILURES_PER_DEVICE', 3, 1, 1000),
    knownAddresses: r.int('SERVICE_LOGIN_KNOWN_ADDRESSES', 5, 0, 100),
    enrollMaxFailuresPerAddress: r.int('SERVICE_ENROLL_MAX_FAILURES_PER_ADDRESS', 10, 3, 1000),
    enrollMaxFailuresPerMinute: r.int('SERVICE_ENROLL_MAX_FAILURES_PER_MINUTE', 60, 1, 100_000),
    maxStreamsPerUser: r.int('SERVICE_STREAM_MAX_PER_USER', 10, 1, 100_000),
    maxStreamsPerDevice: r.int('SERVICE_STREAM_MAX_PER_DEVICE', 2, 1, 100),
    requireTotpForAdmins: r.bool('SERVICE_REQUIRE_TOTP_FOR_ADMINS', false),
  };
}

export function devicesConfig(env: EnvVars): DevicesConfig {
  const r = envReader(env);
  return {
    codeTtlMinutes: r.int('SERVICE_ENROLLMENT_CODE_TTL_MINUTES', 15, 1, 10_080),
    ...vapidPair(env),
    vapidSubject: r.url('VAPID_SUBJECT', 'mailto:watchpost@localhost', ['mailto:', 'https:']),
  };
}

/** Both VAPID keys or neither (generated then); a pair that does not match would fail every push. */
function vapidPair(env: EnvVars): { vapidPublicKey: string | undefined; vapidPrivateKey: string | undefined } {
  const pub = env.VAPID_PUBLIC_KEY || undefined;
  const priv = env.VAPID_PRIVATE_KEY || undefined;
  if (!pub && !priv) return { vapidPublicKey: undefined, vapidPrivateKey: undefined };
  if (!pub || !priv)
    throw new ConfigError(
      pub ? 'VAPID_PRIVATE_KEY' : 'VAPID_PUBLIC_KEY',
      'set both VAPID keys, or neither to have them generated',
    );
  let derived: string;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(priv, 'base64url'));
    derived = ecdh.getPublicKey().toString('base64url');
  } catch {
    throw new ConfigError('VAPID_PRIVATE_KEY', 'not a base64url P-256 private key (web-push generate-vapid-keys)');
  }
  if (derived !== pub.replace(/=+$/, '')) throw new ConfigError('VAPID_PUBLIC_KEY', 'is not the public key of VAPID_PRIVATE_KEY');
  return { vapidPublicKey: pub, vapidPrivateKey: priv };
}
