// The API's auth settings, built in one place from the configuration.
import type { Config } from '@watchpost/runtime';
import type { AuthSettings } from '../types.ts';

/** The API's auth settings from the configuration and a signing key (also for tests, benches and the document builder). */
export function authSettingsFrom(config: Config, jwtSecret: Uint8Array): AuthSettings {
  return {
    jwtSecret,
    accessTtlSeconds: config.auth.accessTtlSeconds,
    refreshTtlSeconds: config.auth.refreshTtlDays * 86_400,
    sessionMaxSeconds: config.auth.sessionMaxDays * 86_400,
    loginWindowSeconds: config.auth.loginWindowSeconds,
    lockoutSeconds: config.auth.lockoutSeconds,
    maxLoginFailures: 3,
    maxFailuresPerUser: config.auth.maxFailuresPerUser,
    maxFailuresPerAddress: config.auth.maxFailuresPerAddress,
    maxConcurrentVerifications: config.auth.maxConcurrentVerifications,
    requireTotpForAdmins: config.auth.requireTotpForAdmins,
  };
}

/** What keeps strangers from locking the owner out (api/README.md, Login lockout): device cookies and known addresses. */
export interface LoginTrustSettings {
  deviceCookieSeconds: number;
  maxFailuresPerDevice: number;
  knownAddresses: number;
  knownAddressSeconds: number;
}

export function loginTrustFrom(config: Config): LoginTrustSettings {
  const seconds = config.auth.deviceCookieDays * 86_400;
  return {
    deviceCookieSeconds: seconds,
    maxFailuresPerDevice: config.auth.maxFailuresPerDevice,
    knownAddresses: config.auth.knownAddresses,
    knownAddressSeconds: seconds,
  };
}
