// Ingest's settings: the HTTP intake (batching, claims, admission, rate buckets), the SMTP intake of
// ssh-monitor's e-mail channel, and the prefix of generated agent keys (ingest/README.md, README.md).
import { ConfigError, envReader, type EnvVars } from '../env.ts';

export interface IngestConfig {
  maxBodyBytes: number;
  batchMaxEvents: number;
  lingerMs: number;
  batchMaxBytes: number;
  microBatchMaxEvents: number;
  produceTimeoutMs: number;
  claimProvisionalMs: number;
  claimTtlDays: number;
  /** How long a stored event's content answers for its re-sends under new ids (0: off; ingest/src/resend.ts). */
  resendWindowHours: number;
  keyCacheSeconds: number;
  /** How long known keys keep working from the cache while Postgres cannot be asked. */
  keyStaleSeconds: number;
  /** Token bucket per agent key, in events: the ceiling over all its hosts (0 = no ceiling). */
  ratePerKey: number;
  rateBurst: number;
  /** Token bucket per host (hostname, agent instance) under a key, in events (0 = no per-host limit). */
  ratePerHost: number;
  rateHostBurst: number;
  /** Admission caps: events submitted and not yet answered, request body bytes held. */
  maxInFlightEvents: number;
  maxInFlightBytes: number;
}

export interface SmtpIntakeConfig {
  /** SERVICE_SMTP_PORT: unset = no listener (the role idles); 0 = any free port (tests). */
  port: number | null;
  host: string;
  /** PEM files for STARTTLS (ssh-monitor verifies the certificate by default). */
  tlsCertFile: string;
  tlsKeyFile: string;
  /** AUTH without TLS (MAIL_SMTP_STARTTLS=0 on the agent): only on a trusted network. */
  allowInsecureAuth: boolean;
  maxMessageBytes: number;
  maxMessagesPerConnection: number;
  maxClients: number;
}

export function ingestConfig(env: EnvVars): IngestConfig {
  const r = envReader(env);
  return {
    // 256 KiB: a valid event at every length limit in 4-byte characters takes ~110 KB before details.
    maxBodyBytes: r.int('SERVICE_INGEST_MAX_BODY_BYTES', 262144, 1024),
    batchMaxEvents: r.int('SERVICE_INGEST_BATCH_MAX_EVENTS', 5000, 1, 100000),
    lingerMs: r.int('SERVICE_INGEST_LINGER_MS', 2, 0, 1000),
    batchMaxBytes: r.int('SERVICE_INGEST_BATCH_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    microBatchMaxEvents: r.int('SERVICE_INGEST_MICROBATCH_MAX_EVENTS', 1000, 1, 100000),
    produceTimeoutMs: r.int('SERVICE_INGEST_PRODUCE_TIMEOUT_MS', 5000, 100, 120_000),
    claimProvisionalMs: ingestProvisionalMs(env),
    // 7 days: well past how long an agent keeps retrying one event (ingest/README.md, claims);
    // a resend after that is appended again and stored once by the idempotent sinks.
    claimTtlDays: r.int('SERVICE_INGEST_CLAIM_TTL_DAYS', 7, 1, 3650),
    // 24 h: the Windows agent re-sends on its first pass after the service answers again, so this is
    // the longest outage after which a re-send is still recognised; never longer than the claims live.
    resendWindowHours: Math.min(
      r.int('SERVICE_INGEST_RESEND_WINDOW_HOURS', 24, 0, 87_600),
      r.int('SERVICE_INGEST_CLAIM_TTL_DAYS', 7, 1, 3650) * 24,
    ),
    keyCacheSeconds: r.int('SERVICE_INGEST_KEY_CACHE_SECONDS', 5, 0, 3600),
    keyStaleSeconds: r.int('SERVICE_INGEST_KEY_STALE_SECONDS', 600, 0, 86_400),
    // A key's ceiling is sized for a fleet sharing it (ingest/README.md, admission); each host
    // gets what a whole key got before.
    ratePerKey: r.int('SERVICE_INGEST_RATE_PER_KEY', 50_000, 0, 10_000_000),
    rateBurst: r.int('SERVICE_INGEST_RATE_BURST', 500_000, 1, 100_000_000),
    ratePerHost: r.int('SERVICE_INGEST_RATE_PER_HOST', 5000, 0, 10_000_000),
    rateHostBurst: r.int('SERVICE_INGEST_RATE_HOST_BURST', 50_000, 1, 100_000_000),
    maxInFlightEvents: r.int('SERVICE_INGEST_MAX_IN_FLIGHT_EVENTS', 20_000, 1, 10_000_000),
    maxInFlightBytes: r.int('SERVICE_INGEST_MAX_IN_FLIGHT_BYTES', 64 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
  };
}

export function smtpIntakeConfig(env: EnvVars): SmtpIntakeConfig {
  const r = envReader(env);
  return {
    port: r.str('SERVICE_SMTP_PORT', '').trim() === '' ? null : r.int('SERVICE_SMTP_PORT', 2525, 0, 65_535),
    host: r.str('SERVICE_SMTP_HOST', '0.0.0.0'),
    tlsCertFile: r.str('SERVICE_SMTP_TLS_CERT_FILE', ''),
    tlsKeyFile: r.str('SERVICE_SMTP_TLS_KEY_FILE', ''),
    allowInsecureAuth: r.bool('SERVICE_SMTP_ALLOW_INSECURE_AUTH', false),
    // ssh-monitor's largest alert, the daily report, is a few KB; 256 KiB as for one event over HTTP.
    maxMessageBytes: r.int('SERVICE_SMTP_MAX_MESSAGE_BYTES', 262_144, 1024, 16 * 1024 * 1024),
    maxMessagesPerConnection: r.int('SERVICE_SMTP_MAX_MESSAGES_PER_CONNECTION', 100, 1, 100_000),
    maxClients: r.int('SERVICE_SMTP_MAX_CLIENTS', 200, 1, 100_000),
  };
}

// A provisional idempotency claim must outlive the longest produce attempt, or a second request
// could claim the same event_id while the first may still answer 201.
function ingestProvisionalMs(env: EnvVars): number {
  const r = envReader(env);
  const produce = r.int('SERVICE_INGEST_PRODUCE_TIMEOUT_MS', 5000, 100, 120_000);
  const provisional = r.int('SERVICE_INGEST_CLAIM_PROVISIONAL_MS', 30_000, 200, 3_600_000);
  if (provisional <= produce) {
    throw new ConfigError(
      'SERVICE_INGEST_CLAIM_PROVISIONAL_MS',
      `must be greater than SERVICE_INGEST_PRODUCE_TIMEOUT_MS (${produce}), got ${provisional}`,
    );
  }
  return provisional;
}

/**
 * Prefix of generated agent keys. Default `sac_`: rdp-login-monitor's Deploy-LoginMonitor.ps1
 * (Test-RdpMonitorSettingsNeedsSacBootstrap) rewrites a `$SacApiKey` that does not match `sac_[^'"]+`.
 * Short and URL/shell/PowerShell-quote safe, since it ends up in agents' settings files.
 */
export function agentKeyPrefix(env: EnvVars): string {
  const v = envReader(env).str('SERVICE_AGENT_KEY_PREFIX', 'sac_');
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(v))
    throw new ConfigError('SERVICE_AGENT_KEY_PREFIX', `expected 1 to 16 characters of A-Z a-z 0-9 _ -, got "${v}"`);
  return v;
}
