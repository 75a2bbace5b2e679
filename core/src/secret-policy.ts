// Configured secrets must meet the same policy as generated ones; a weak one stops the start with a
// message naming the variable (never the value).
import { ConfigError, type Config } from '@watchpost/runtime';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './users/password-policy.ts';

/** Bytes of a configured key or token (SERVICE_BOOTSTRAP_API_KEY, SERVICE_JWT_SECRET, METRICS_TOKEN). */
export const MIN_SECRET_BYTES = 32;

export function checkConfiguredSecrets(config: Pick<Config, 'admin' | 'bootstrapApiKey' | 'jwtSecret' | 'metrics'>): void {
  const password = config.admin.password;
  if (password !== undefined) {
    const chars = [...password].length;
    if (chars < PASSWORD_MIN_LENGTH || chars > PASSWORD_MAX_LENGTH)
      throw new ConfigError(
        'SERVICE_ADMIN_PASSWORD',
        `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters (the password policy), got ${chars}`,
      );
  }
  const secrets: [string, string | undefined][] = [
    ['SERVICE_BOOTSTRAP_API_KEY', config.bootstrapApiKey],
    ['SERVICE_JWT_SECRET', config.jwtSecret],
    ['METRICS_TOKEN', config.metrics.token],
  ];
  for (const [name, value] of secrets) {
    if (value === undefined) continue;
    const bytes = Buffer.byteLength(value);
    if (bytes < MIN_SECRET_BYTES)
      throw new ConfigError(name, `must be at least ${MIN_SECRET_BYTES} bytes (e.g. openssl rand -base64 32), got ${bytes}`);
  }
}
