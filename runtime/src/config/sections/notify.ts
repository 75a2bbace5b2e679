// The general notification settings (api/NOTIFICATIONS.md); each channel's own variables are read by
// its descriptor (core/src/notify/channels/) from `env`.
import { NOTIFY_CHANNELS, SEVERITIES, type NotifyChannel, type Severity } from '@watchpost/schemas';
import { ConfigError, envReader, type EnvVars } from '../env.ts';

/**
 * The general notification settings. Each channel's own variables (NOTIFY_TELEGRAM_*, NOTIFY_WEBHOOK_*,
 * SMTP_*, NOTIFY_<CHANNEL>_RATE_PER_SECOND...) are read by its descriptor in core/src/notify/channels/
 * from `env`.
 */
export interface NotifyConfig {
  minSeverity: Severity;
  channels: NotifyChannel[];
  /** Delivery attempts per job (exponential backoff from backoffMs); a provider's 4xx is final at once. */
  attempts: number;
  backoffMs: number;
  concurrency: number;
  /** Where the notify role's NEW consumer group starts: false (default) = at the end, never re-notifying history. */
  fromBeginning: boolean;
  /** BullMQ job lock of a delivery: a killed worker's delivery is retried after about this long. */
  lockMs: number;
  /** How long the API's test-send waits for the delivery worker. */
  testWaitMs: number;
  /** The environment as read at start, where each channel finds its own variables. */
  env: EnvVars;
}

export function notifyConfig(env: EnvVars): NotifyConfig {
  const r = envReader(env);
  return {
    minSeverity: r.oneOf('NOTIFY_MIN_SEVERITY', SEVERITIES, 'high'),
    channels: list(env, 'NOTIFY_CHANNELS', NOTIFY_CHANNELS, ['chat']),
    attempts: r.int('NOTIFY_DELIVERY_ATTEMPTS', 10, 1, 100),
    backoffMs: r.int('NOTIFY_BACKOFF_MS', 2000, 10, 3_600_000),
    concurrency: r.int('NOTIFY_DELIVERY_CONCURRENCY', 8, 1, 256),
    lockMs: r.int('NOTIFY_LOCK_MS', 30_000, 1000, 600_000),
    fromBeginning: r.bool('NOTIFY_FROM_BEGINNING', false),
    testWaitMs: r.int('NOTIFY_TEST_WAIT_MS', 20_000, 1000, 300_000),
    env: Object.freeze({ ...env }),
  };
}

function list<T extends string>(env: EnvVars, name: string, allowed: readonly T[], def: T[]): T[] {
  const raw = env[name];
  if (raw === undefined) return def;
  const items = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const i of items) {
    if (!(allowed as readonly string[]).includes(i))
      throw new ConfigError(name, `unknown value "${i}"; allowed: ${allowed.join(', ')}`);
  }
  return [...new Set(items)] as T[];
}
