// One typed config, read from the environment once at start. A wrong value stops the start with a
// message naming the variable. Defaults are documented in README.md (Configuration).
import { createECDH } from 'node:crypto';
import { isIP } from 'node:net';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localStack, localUrls } from './local-stack.ts';
import { ConfigError, envReader, type EnvVars } from './env.ts';

export { ConfigError };
import {
  LIVE_CHANNEL_BASE,
  NOTIFY_CHANNELS,
  SEVERITIES,
  topicNames,
  type NotifyChannel,
  type Severity,
  type Topics,
} from '@watchpost/schemas';

/** Producer compression choices (`KAFKA_COMPRESSION`); runtime/src/clients/kafka.ts registers zstd. */
export const KAFKA_COMPRESSIONS = ['zstd', 'gzip', 'none'] as const;
export type KafkaCompression = (typeof KAFKA_COMPRESSIONS)[number];

export const CHANNELS = NOTIFY_CHANNELS;
export type Channel = NotifyChannel;
/** Every role a process can run; ops/src/role-registry.ts must start each one (its type checks that). */
export const SERVICE_ROLES = [
  'ingest',
  'api',
  'store',
  'correlate',
  'scheduler',
  'stream',
  'actions',
  'notify',
  'deliver',
  'smtp',
] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];
export const ROLES = ['all', ...SERVICE_ROLES] as const;
export type Role = (typeof ROLES)[number];

/** Consumer groups, one per processor (each an independent group; processors/README.md). */
export const CONSUMER_GROUP_BASES = {
  store: 'watchpost-store',
  correlate: 'watchpost-correlate',
  stream: 'watchpost-stream',
  notify: 'watchpost-notify',
} as const;
export type ConsumerGroupKey = keyof typeof CONSUMER_GROUP_BASES;

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * When a host goes stale: after `missed` heartbeat intervals plus `slack_minutes`, the interval being
 * the host's learned one (hosts.heartbeat_interval_seconds) or else its product's default (minutes);
 * a host with neither is stale after `fallback_minutes`. Sent to Postgres as one jsonb parameter.
 */
/** The agents' own heartbeat cadences (minutes): Deploy-LoginMonitor.ps1 forces 4 h, ssh-monitor sends one every 12 h. */
export const DEFAULT_HEARTBEAT_MINUTES: Readonly<Record<string, number>> = { 'rdp-login-monitor': 240, 'ssh-monitor': 720 };

export interface HeartbeatPolicy {
  missed: number;
  slack_minutes: number;
  fallback_minutes: number;
  defaults: Record<string, number>;
}

export interface Config {
  role: Role;
  host: string;
  port: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (login limit, audit log):
   * false (none), a hop count, or addresses/CIDRs of the proxies (fastify's trustProxy).
   */
  trustProxy: false | number | string[];
  logLevel: string;
  stateDir: string;
  databaseUrl: string;
  redisUrl: string;
  /** SERVICE_CLAIMS_REDIS_URL: the Redis of ingest's idempotency claims (default: REDIS_URL). */
  claimsRedisUrl: string;
  /** SERVICE_REDIS_MEMORY_WARN_RATIO: used_memory / maxmemory above which a Redis is reported as filling. */
  redisMemoryWarnRatio: number;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  kafkaBrokers: string[];
  kafkaPartitions: number;
  /** Replication of the topics the migration creates, and their min.insync.replicas. */
  kafkaReplicationFactor: number;
  kafkaMinInsyncReplicas: number;
  /** Connect and statement timeouts of the Postgres pools; connect and command timeouts of Redis. */
  databaseTimeouts: { connectMs: number; statementMs: number };
  redisTimeouts: { connectMs: number; commandMs: number };
  /** METRICS_HOST/METRICS_PORT: /metrics on its own listener (port undefined: on the main one); METRICS_TOKEN: bearer token. */
  metrics: { host: string; port: number | undefined; token: string | undefined };
  /** Consumer group session timeout; a killed consumer's partitions move after this long. */
  kafkaSessionTimeoutMs: number;
  /** Compression of what ingest appends to events.v1. */
  kafkaCompression: KafkaCompression;
  /** KAFKA_TOPIC_PREFIX: carried by every topic, consumer group and the live channel. */
  topicPrefix: string;
  topics: Topics;
  /** Consumer group ids (with the topic prefix: two deployments sharing a broker never join each other's group). */
  consumerGroups: Record<ConsumerGroupKey, string>;
  /** REDIS_KEY_PREFIX: prefix of the API's Redis keys (login limits). */
  redisKeyPrefix: string;
  /** Prefix of ingest's event_id claim keys (derived from the events topic). */
  claimKeyPrefix: string;
  /** SERVICE_HEARTBEAT_STALE_MINUTES: the stale threshold of a host with no learned interval and no product default. */
  heartbeatStaleMinutes: number;
  /** Liveness per agent kind (core/src/hosts/status.ts): every status computation takes this. */
  heartbeat: HeartbeatPolicy;
  problemCorrelationWindowMinutes: number;
  problemMinSeverity: Severity;
  retentionDays: number;
  /** SERVICE_DAILY_REPORT_*: local time HH:MM in an IANA zone; checkSeconds: how often the scheduler looks. */
  dailyReport: { enabled: boolean; time: string; timezone: string; recipients: string[]; checkSeconds: number };
  /** Notification policy defaults from the environment (database values override; api/NOTIFICATIONS.md). */
  notify: NotifyConfig;
  ingest: {
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
  };
  /** The SMTP intake (ingest/src/smtp): ssh-monitor's e-mail channel as an event source. */
  smtp: SmtpIntakeConfig;
  /** CONSUMER_BATCH_MAX_BYTES: a processor's batch is flushed at this many bytes too (besides its count and time). */
  consumerBatchMaxBytes: number;
  /** decodeThreads: worker threads decoding for the store (0 = on the main thread). */
  store: { batchSize: number; batchMs: number; decodeThreads: number };
  /** Live dashboard counters (processors/src/stream -> Redis pub/sub -> SSE, api/READS.md). */
  stream: { channel: string; keepAliveSeconds: number; batchSize: number; batchMs: number };
  /** Correlate consumer batching (processors/README.md, correlate). */
  correlate: { batchSize: number; batchMs: number };
  /** How often the liveness scan runs (BullMQ job scheduler in role `scheduler`). */
  livenessScanIntervalSeconds: number;
  /** period of the exact hourly events rollup (scheduler role) */
  eventsRollupIntervalSeconds: number;
  /** deliveries and actions still queued after this long with no BullMQ job get it back (scheduler role, requeue.ts) */
  requeueGraceSeconds: number;
  /** Postgres retention (scheduler role, hourly; core/src/retention.ts): every table that grows with events or time. */
  postgresRetention: {
    ledgerHours: number;
    outboxSentDays: number;
    auditDays: number;
    refreshTokenDays: number;
    notificationDays: number;
    /** Resolved problems with their timelines and flap pairs, old timeline entries, waiting gateway halves. */
    problemDays: number;
    actionDays: number;
    /** Finished agent commands and settled update offers. */
    agentCommandDays: number;
    reportDays: number;
  };
  /** Redis key prefix of every BullMQ queue (one per deployment; tests use their own). */
  queuePrefix: string;
  bootstrapApiKey: string | undefined;
  /** SERVICE_AGENT_KEY_PREFIX: prefix of generated agent keys (core/src/agent-keys.ts); `sac_` survives the Windows deploy script. */
  agentKeyPrefix: string;
  admin: { username: string; password: string | undefined };
  jwtSecret: string | undefined;
  /** API token lifetimes and login lockout (api/README.md). */
  auth: {
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
  };
  /** Remote actions (api/ACTIONS.md): the `actions` worker role, WinRM, SSH, agent updates. */
  actions: ActionsConfig;
  /** Mobile devices and Web Push (api/MOBILE.md). */
  devices: {
    codeTtlMinutes: number;
    vapidPublicKey: string | undefined;
    vapidPrivateKey: string | undefined;
    /** VAPID `sub`: a mailto: or https: contact for push services. */
    vapidSubject: string;
  };
}

/** Environment defaults of remote actions; the settings saved in the UI (database) override winrm, ssh and agentUpdate. */
export interface ActionsConfig {
  /** Bound of one remote operation (connect, command, read back), SSH and WinRM. */
  timeoutMs: number;
  /** Bound of an agent update (clone, install, read back). */
  updateTimeoutMs: number;
  /** How long the API waits for a synchronous action before answering 504. */
  waitMs: number;
  concurrency: number;
  /**
   * SERVICE_ACTION_TARGET_NETWORKS: the networks (CIDRs) remote actions may connect to, the default of the
   * setting in Settings → Remote access; empty = none (no remote action connects anywhere).
   */
  targetNetworks: string[];
  /** AES-256-GCM key for credentials at rest (base64 of 32 bytes); generated into the state dir when unset. */
  secretsKey: string | undefined;
  winrm: {
    username: string;
    password: string | undefined;
    transport: 'http' | 'https';
    port: number | undefined;
    /** HTTP authentication: Basic or NTLM (NTLMv2 session security is not used: HTTPS protects the body). */
    auth: 'basic' | 'ntlm';
    verifyTls: boolean;
    /**
     * WinRM over plain HTTP sends the credentials (Basic: the password; NTLM: a relayable response) to
     * whatever answers at an address agents report. Refused unless allowed, like Windows' AllowUnencrypted.
     */
    allowUnencrypted: boolean;
    /**
     * SERVICE_WINRM_CA_FILE: the operator's CA (PEM) for the hosts' WinRM certificates. A certificate it
     * issued for the host's name is trusted without a pin; without it every host's certificate waits for
     * an admin's acceptance. Public roots never make a certificate trusted (issue 33).
     */
    caFile: string;
  };
  ssh: { username: string; privateKeyFile: string | undefined; port: number };
  agentUpdate: {
    linux: { gitUrl: string; branch: string };
    windows: { gitUrl: string; branch: string };
    /** How long the latest version read from a repository's tags is cached. */
    refreshSeconds: number;
    /** file:// git URLs (tests and air-gapped mirrors). */
    allowFileUrls: boolean;
    /**
     * SERVICE_AGENT_UPDATE_ALLOW: addresses, CIDRs or host names the git SSRF guard lets through whatever
     * they are (loopback, link-local); public and private repositories need no entry.
     */
    allow: string[];
    /** Where the Linux updater script lives on managed hosts (installed there when missing). */
    linuxUpdaterPath: string;
    /** Minutes to wait for an agent.update event after the poll delivered an update, before the SSH/WinRM fallback. */
    fallbackMinutes: number;
    /** Base URL managed hosts use to download the Windows bundle (signed link); empty = http://HOST:PORT. */
    publicUrl: string;
  };
}

/**
 * The general notification settings. Each channel's own variables (NOTIFY_TELEGRAM_*, NOTIFY_WEBHOOK_*,
 * SMTP_*, NOTIFY_<CHANNEL>_RATE_PER_SECOND...) are read by its descriptor in core/src/notify/channels/
 * from `env`.
 */
export interface NotifyConfig {
  minSeverity: Severity;
  channels: Channel[];
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

type Env = Record<string, string | undefined>;

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

// The same typed readers as every channel's defaults (env.ts), so a variable is parsed one way.
const str = (env: Env, name: string, def: string) => envReader(env).str(name, def);
const int = (env: Env, name: string, def: number, min: number, max?: number) => envReader(env).int(name, def, min, max);
const bool = (env: Env, name: string, def: boolean) => envReader(env).bool(name, def);
const oneOf = <T extends string>(env: Env, name: string, allowed: readonly T[], def: T): T =>
  envReader(env).oneOf(name, allowed, def);
const url = (env: Env, name: string, def: string, protocols: string[]) => envReader(env).url(name, def, protocols);
/** A fraction in (0, 1], e.g. 0.8. */
const ratio = (env: Env, name: string, def: number) => {
  const raw = envReader(env).str(name, '');
  if (raw === '') return def;
  const n = Number(raw.trim());
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !(n > 0 && n <= 1))
    throw new ConfigError(name, `expected a fraction above 0 and at most 1 (e.g. 0.8), got "${raw}"`);
  return n;
};

function list<T extends string>(env: Env, name: string, allowed: readonly T[], def: T[]): T[] {
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

const IP_OR_CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2})?|[0-9a-f:]*:[0-9a-f:.]*(?:\/\d{1,3})?)$/i;

/** SERVICE_TRUST_PROXY: empty/false = none, a hop count, or a comma list of proxy addresses or CIDRs. */
function trustProxy(env: Env, name: string): false | number | string[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^\d+$/.test(raw)) return int(env, name, 0, 1, 16);
  // "true" (trust every hop) would let any client choose its own address and dodge the login limit.
  if (/^(true|yes|on)$/i.test(raw))
    throw new ConfigError(name, 'trusting every proxy lets clients forge their address; give a hop count or the proxies');
  const items = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const i of items)
    if (!IP_OR_CIDR.test(i) && !['loopback', 'linklocal', 'uniquelocal'].includes(i))
      throw new ConfigError(name, `expected a hop count or proxy addresses/CIDRs, got "${i}"`);
  return items;
}

/** The setting as fastify's `trustProxy` option (a hop count becomes the function fastify would build). */
export function trustProxyOption(t: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}

// A provisional idempotency claim must outlive the longest produce attempt, or a second request
// could claim the same event_id while the first may still answer 201.
function ingestProvisionalMs(env: Env): number {
  const produce = int(env, 'SERVICE_INGEST_PRODUCE_TIMEOUT_MS', 5000, 100, 120_000);
  const provisional = int(env, 'SERVICE_INGEST_CLAIM_PROVISIONAL_MS', 30_000, 200, 3_600_000);
  if (provisional <= produce) {
    throw new ConfigError(
      'SERVICE_INGEST_CLAIM_PROVISIONAL_MS',
      `must be greater than SERVICE_INGEST_PRODUCE_TIMEOUT_MS (${produce}), got ${provisional}`,
    );
  }
  return provisional;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[?::1\]?)$/i;

/** Warnings a process logs at start (and the migration prints): settings that are fine only on the local stack. */
export function startupWarnings(config: Pick<Config, 'kafkaBrokers' | 'kafkaReplicationFactor'>): string[] {
  const out: string[] = [];
  const local = config.kafkaBrokers.every((b) => LOOPBACK.test(b.slice(0, b.lastIndexOf(':'))));
  if (config.kafkaReplicationFactor === 1 && !local)
    out.push(
      'KAFKA_REPLICATION_FACTOR is 1 with brokers outside the local stack: topics the migration creates keep one copy, so losing that broker loses accepted events; set 3 (and KAFKA_MIN_INSYNC_REPLICAS 2) on a cluster',
    );
  return out;
}

/** min.insync.replicas must not exceed the replication factor (writes with acks=all would always fail). */
function kafkaReplication(env: Env): { rf: number; isr: number } {
  // The local stack's cluster (STACK_KAFKA_BROKERS=3) gets replicated topics without more settings.
  const rf = int(env, 'KAFKA_REPLICATION_FACTOR', env.KAFKA_BROKERS ? 1 : Math.min(3, localStack.kafkaBrokers), 1, 16);
  const isr = int(env, 'KAFKA_MIN_INSYNC_REPLICAS', rf >= 3 ? 2 : 1, 1, 16);
  if (isr > rf)
    throw new ConfigError('KAFKA_MIN_INSYNC_REPLICAS', `must not exceed KAFKA_REPLICATION_FACTOR (${rf}), got ${isr}`);
  return { rf, isr };
}

/**
 * Prefix of generated agent keys. Default `sac_`: rdp-login-monitor's Deploy-LoginMonitor.ps1
 * (Test-RdpMonitorSettingsNeedsSacBootstrap) rewrites a `$SacApiKey` that does not match `sac_[^'"]+`.
 * Short and URL/shell/PowerShell-quote safe, since it ends up in agents' settings files.
 */
function agentKeyPrefix(env: Env): string {
  const v = str(env, 'SERVICE_AGENT_KEY_PREFIX', 'sac_');
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(v))
    throw new ConfigError('SERVICE_AGENT_KEY_PREFIX', `expected 1 to 16 characters of A-Z a-z 0-9 _ -, got "${v}"`);
  return v;
}

function optionalPort(env: Env, name: string): number | undefined {
  return env[name] === undefined || env[name] === '' ? undefined : int(env, name, 0, 1, 65535);
}

export function loadConfig(env: Env = process.env, role?: string): Config {
  const brokers = str(env, 'KAFKA_BROKERS', localUrls.kafka)
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const b of brokers)
    if (!/^[\w.-]+:\d+$/.test(b)) throw new ConfigError('KAFKA_BROKERS', `expected host:port[,host:port], got "${b}"`);
  const time = str(env, 'SERVICE_DAILY_REPORT_TIME', '08:00');
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time))
    throw new ConfigError('SERVICE_DAILY_REPORT_TIME', `expected HH:MM (24 h), got "${time}"`);
  const tz = str(env, 'SERVICE_DAILY_REPORT_TIMEZONE', 'UTC');
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw new ConfigError('SERVICE_DAILY_REPORT_TIMEZONE', `unknown IANA time zone "${tz}"`);
  }
  const prefix = str(env, 'KAFKA_TOPIC_PREFIX', '');
  const topics = topicNames(prefix);
  const replication = kafkaReplication(env);
  return {
    role: oneOf(role ? { SERVICE_ROLE: role } : env, 'SERVICE_ROLE', ROLES, 'all'),
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 8080, 0, 65535),
    trustProxy: trustProxy(env, 'SERVICE_TRUST_PROXY'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    stateDir: resolve(repoRoot, str(env, 'SERVICE_STATE_DIR', '.stack')),
    databaseUrl: url(env, 'DATABASE_URL', localUrls.postgres, ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', localUrls.redis, ['redis:', 'rediss:']),
    claimsRedisUrl: url(env, 'SERVICE_CLAIMS_REDIS_URL', url(env, 'REDIS_URL', localUrls.redis, ['redis:', 'rediss:']), [
      'redis:',
      'rediss:',
    ]),
    redisMemoryWarnRatio: ratio(env, 'SERVICE_REDIS_MEMORY_WARN_RATIO', 0.8),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', localUrls.clickhouse, ['http:', 'https:']),
    clickhouseDatabase: str(env, 'CLICKHOUSE_DATABASE', 'watchpost'),
    kafkaBrokers: brokers,
    kafkaPartitions: int(env, 'KAFKA_PARTITIONS', 4, 1, 1024),
    kafkaReplicationFactor: replication.rf,
    kafkaMinInsyncReplicas: replication.isr,
    databaseTimeouts: {
      connectMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      statementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 60_000, 100, 86_400_000),
    },
    redisTimeouts: {
      connectMs: int(env, 'REDIS_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      commandMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 5000, 100, 600_000),
    },
    metrics: {
      host: str(env, 'METRICS_HOST', str(env, 'HOST', '127.0.0.1')),
      port: optionalPort(env, 'METRICS_PORT'),
      token: env.METRICS_TOKEN || undefined,
    },
    kafkaSessionTimeoutMs: int(env, 'KAFKA_SESSION_TIMEOUT_MS', 30_000, 6000, 300_000),
    kafkaCompression: oneOf(env, 'KAFKA_COMPRESSION', KAFKA_COMPRESSIONS, 'none'),
    topicPrefix: prefix,
    topics,
    consumerGroups: Object.fromEntries(Object.entries(CONSUMER_GROUP_BASES).map(([k, v]) => [k, `${prefix}${v}`])) as Record<
      ConsumerGroupKey,
      string
    >,
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX', 'watchpost:'),
    claimKeyPrefix: `${topics.events}:claim:`,
    heartbeatStaleMinutes: int(env, 'SERVICE_HEARTBEAT_STALE_MINUTES', 10, 1),
    heartbeat: {
      missed: int(env, 'SERVICE_HEARTBEAT_MISSED', 2, 1, 100),
      slack_minutes: int(env, 'SERVICE_HEARTBEAT_SLACK_MINUTES', 5, 0, 1440),
      fallback_minutes: int(env, 'SERVICE_HEARTBEAT_STALE_MINUTES', 10, 1),
      defaults: {
        'rdp-login-monitor': int(
          env,
          'SERVICE_HEARTBEAT_INTERVAL_WINDOWS_MINUTES',
          DEFAULT_HEARTBEAT_MINUTES['rdp-login-monitor']!,
          1,
          2880,
        ),
        'ssh-monitor': int(env, 'SERVICE_HEARTBEAT_INTERVAL_LINUX_MINUTES', DEFAULT_HEARTBEAT_MINUTES['ssh-monitor']!, 1, 2880),
      },
    },
    problemCorrelationWindowMinutes: int(env, 'SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES', 60, 1),
    problemMinSeverity: oneOf(env, 'SERVICE_PROBLEM_MIN_SEVERITY', SEVERITIES, 'warning'),
    retentionDays: int(env, 'SERVICE_RETENTION_DAYS', 90, 1),
    dailyReport: {
      enabled: bool(env, 'SERVICE_DAILY_REPORT_ENABLED', true),
      checkSeconds: int(env, 'SERVICE_DAILY_REPORT_CHECK_SECONDS', 60, 1, 3600),
      time,
      timezone: tz,
      recipients: str(env, 'SERVICE_DAILY_REPORT_RECIPIENTS', '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    },
    notify: notifyConfig(env),
    ingest: {
      // 256 KiB: a valid event at every length limit in 4-byte characters takes ~110 KB before details.
      maxBodyBytes: int(env, 'SERVICE_INGEST_MAX_BODY_BYTES', 262144, 1024),
      batchMaxEvents: int(env, 'SERVICE_INGEST_BATCH_MAX_EVENTS', 5000, 1, 100000),
      lingerMs: int(env, 'SERVICE_INGEST_LINGER_MS', 2, 0, 1000),
      batchMaxBytes: int(env, 'SERVICE_INGEST_BATCH_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      microBatchMaxEvents: int(env, 'SERVICE_INGEST_MICROBATCH_MAX_EVENTS', 1000, 1, 100000),
      produceTimeoutMs: int(env, 'SERVICE_INGEST_PRODUCE_TIMEOUT_MS', 5000, 100, 120_000),
      claimProvisionalMs: ingestProvisionalMs(env),
      // 7 days: well past how long an agent keeps retrying one event (ingest/README.md, claims);
      // a resend after that is appended again and stored once by the idempotent sinks.
      claimTtlDays: int(env, 'SERVICE_INGEST_CLAIM_TTL_DAYS', 7, 1, 3650),
      // 24 h: the Windows agent re-sends on its first pass after the service answers again, so this is
      // the longest outage after which a re-send is still recognised; never longer than the claims live.
      resendWindowHours: Math.min(
        int(env, 'SERVICE_INGEST_RESEND_WINDOW_HOURS', 24, 0, 87_600),
        int(env, 'SERVICE_INGEST_CLAIM_TTL_DAYS', 7, 1, 3650) * 24,
      ),
      keyCacheSeconds: int(env, 'SERVICE_INGEST_KEY_CACHE_SECONDS', 5, 0, 3600),
      keyStaleSeconds: int(env, 'SERVICE_INGEST_KEY_STALE_SECONDS', 600, 0, 86_400),
      // A key's ceiling is sized for a fleet sharing it (ingest/README.md, admission); each host
      // gets what a whole key got before.
      ratePerKey: int(env, 'SERVICE_INGEST_RATE_PER_KEY', 50_000, 0, 10_000_000),
      rateBurst: int(env, 'SERVICE_INGEST_RATE_BURST', 500_000, 1, 100_000_000),
      ratePerHost: int(env, 'SERVICE_INGEST_RATE_PER_HOST', 5000, 0, 10_000_000),
      rateHostBurst: int(env, 'SERVICE_INGEST_RATE_HOST_BURST', 50_000, 1, 100_000_000),
      maxInFlightEvents: int(env, 'SERVICE_INGEST_MAX_IN_FLIGHT_EVENTS', 20_000, 1, 10_000_000),
      maxInFlightBytes: int(env, 'SERVICE_INGEST_MAX_IN_FLIGHT_BYTES', 64 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    },
    smtp: {
      port: str(env, 'SERVICE_SMTP_PORT', '').trim() === '' ? null : int(env, 'SERVICE_SMTP_PORT', 2525, 0, 65_535),
      host: str(env, 'SERVICE_SMTP_HOST', '0.0.0.0'),
      tlsCertFile: str(env, 'SERVICE_SMTP_TLS_CERT_FILE', ''),
      tlsKeyFile: str(env, 'SERVICE_SMTP_TLS_KEY_FILE', ''),
      allowInsecureAuth: bool(env, 'SERVICE_SMTP_ALLOW_INSECURE_AUTH', false),
      // ssh-monitor's largest alert, the daily report, is a few KB; 256 KiB as for one event over HTTP.
      maxMessageBytes: int(env, 'SERVICE_SMTP_MAX_MESSAGE_BYTES', 262_144, 1024, 16 * 1024 * 1024),
      maxMessagesPerConnection: int(env, 'SERVICE_SMTP_MAX_MESSAGES_PER_CONNECTION', 100, 1, 100_000),
      maxClients: int(env, 'SERVICE_SMTP_MAX_CLIENTS', 200, 1, 100_000),
    },
    correlate: {
      batchSize: int(env, 'CORRELATE_BATCH_SIZE', 5000, 1, 100_000),
      batchMs: int(env, 'CORRELATE_BATCH_MS', 200, 10, 60_000),
    },
    livenessScanIntervalSeconds: int(env, 'SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS', 60, 1, 3600),
    eventsRollupIntervalSeconds: int(env, 'SERVICE_EVENTS_ROLLUP_INTERVAL_SECONDS', 30, 1, 3600),
    requeueGraceSeconds: int(env, 'SERVICE_REQUEUE_GRACE_SECONDS', 60, 1, 86_400),
    postgresRetention: {
      // Above the events topic's 7-day retention: an event Kafka can still redeliver is still in the ledger.
      ledgerHours: int(env, 'SERVICE_LEDGER_RETENTION_HOURS', 192, 169, 24 * 3650),
      outboxSentDays: int(env, 'SERVICE_OUTBOX_RETENTION_DAYS', 7, 1, 3650),
      auditDays: int(env, 'SERVICE_AUDIT_RETENTION_DAYS', 365, 1, 36_500),
      refreshTokenDays: int(env, 'SERVICE_REFRESH_TOKEN_RETENTION_DAYS', 1, 0, 3650),
      // Above the events topic's 7-day retention: a redelivered event still finds its decision (never sent twice).
      notificationDays: int(env, 'SERVICE_NOTIFICATION_RETENTION_DAYS', 30, 8, 3650),
      // At least 8: above the events topic's 7-day retention, so a redelivered event never reopens a deleted problem.
      problemDays: int(env, 'SERVICE_PROBLEM_RETENTION_DAYS', 90, 8, 36_500),
      actionDays: int(env, 'SERVICE_ACTION_RETENTION_DAYS', 90, 1, 36_500),
      agentCommandDays: int(env, 'SERVICE_AGENT_COMMAND_RETENTION_DAYS', 30, 1, 36_500),
      reportDays: int(env, 'SERVICE_REPORT_RETENTION_DAYS', 365, 1, 36_500),
    },
    queuePrefix: str(env, 'BULLMQ_PREFIX', 'watchpost'),
    stream: {
      channel: `${prefix}${LIVE_CHANNEL_BASE}`,
      keepAliveSeconds: int(env, 'SERVICE_STREAM_KEEPALIVE_SECONDS', 15, 1, 3600),
      batchSize: int(env, 'STREAM_BATCH_SIZE', 5000, 1, 1_000_000),
      batchMs: int(env, 'STREAM_BATCH_MS', 200, 10, 60_000),
    },
    consumerBatchMaxBytes: int(env, 'CONSUMER_BATCH_MAX_BYTES', 32 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    store: {
      batchSize: int(env, 'STORE_BATCH_SIZE', 10000, 1, 1_000_000),
      batchMs: int(env, 'STORE_BATCH_MS', 1000, 10, 60_000),
      decodeThreads: int(env, 'STORE_DECODE_THREADS', 1, 0, 64),
    },
    bootstrapApiKey: env.SERVICE_BOOTSTRAP_API_KEY || undefined,
    agentKeyPrefix: agentKeyPrefix(env),
    admin: { username: str(env, 'SERVICE_ADMIN_USERNAME', 'admin'), password: env.SERVICE_ADMIN_PASSWORD || undefined },
    jwtSecret: env.SERVICE_JWT_SECRET || undefined,
    auth: {
      accessTtlSeconds: int(env, 'SERVICE_ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
      refreshTtlDays: int(env, 'SERVICE_REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
      sessionMaxDays: int(env, 'SERVICE_SESSION_MAX_DAYS', 90, 1, 3650),
      loginWindowSeconds: int(env, 'SERVICE_LOGIN_WINDOW_SECONDS', 900, 10, 86_400),
      lockoutSeconds: int(env, 'SERVICE_LOGIN_LOCKOUT_SECONDS', 900, 10, 86_400),
      maxFailuresPerUser: int(env, 'SERVICE_LOGIN_MAX_FAILURES_PER_USER', 10, 3, 1000),
      maxFailuresPerAddress: int(env, 'SERVICE_LOGIN_MAX_FAILURES_PER_ADDRESS', 30, 3, 10_000),
      maxConcurrentVerifications: int(env, 'SERVICE_LOGIN_MAX_CONCURRENT', 4, 1, 256),
      deviceCookieDays: int(env, 'SERVICE_LOGIN_DEVICE_COOKIE_DAYS', 30, 1, 365),
      maxFailuresPerDevice: int(env, 'SERVICE_LOGIN_MAX_FAILURES_PER_DEVICE', 3, 1, 1000),
      knownAddresses: int(env, 'SERVICE_LOGIN_KNOWN_ADDRESSES', 5, 0, 100),
      enrollMaxFailuresPerAddress: int(env, 'SERVICE_ENROLL_MAX_FAILURES_PER_ADDRESS', 10, 3, 1000),
      enrollMaxFailuresPerMinute: int(env, 'SERVICE_ENROLL_MAX_FAILURES_PER_MINUTE', 60, 1, 100_000),
      maxStreamsPerUser: int(env, 'SERVICE_STREAM_MAX_PER_USER', 10, 1, 100_000),
      maxStreamsPerDevice: int(env, 'SERVICE_STREAM_MAX_PER_DEVICE', 2, 1, 100),
      requireTotpForAdmins: bool(env, 'SERVICE_REQUIRE_TOTP_FOR_ADMINS', false),
    },
    actions: actionsConfig(env),
    devices: {
      codeTtlMinutes: int(env, 'SERVICE_ENROLLMENT_CODE_TTL_MINUTES', 15, 1, 10_080),
      ...vapidPair(env),
      vapidSubject: url(env, 'VAPID_SUBJECT', 'mailto:watchpost@localhost', ['mailto:', 'https:']),
    },
  };
}

/** Both VAPID keys or neither (generated then); a pair that does not match would fail every push. */
function vapidPair(env: Env): { vapidPublicKey: string | undefined; vapidPrivateKey: string | undefined } {
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

function notifyConfig(env: Env): NotifyConfig {
  return {
    minSeverity: oneOf(env, 'NOTIFY_MIN_SEVERITY', SEVERITIES, 'high'),
    channels: list(env, 'NOTIFY_CHANNELS', CHANNELS, ['chat']),
    attempts: int(env, 'NOTIFY_DELIVERY_ATTEMPTS', 10, 1, 100),
    backoffMs: int(env, 'NOTIFY_BACKOFF_MS', 2000, 10, 3_600_000),
    concurrency: int(env, 'NOTIFY_DELIVERY_CONCURRENCY', 8, 1, 256),
    lockMs: int(env, 'NOTIFY_LOCK_MS', 30_000, 1000, 600_000),
    fromBeginning: bool(env, 'NOTIFY_FROM_BEGINNING', false),
    testWaitMs: int(env, 'NOTIFY_TEST_WAIT_MS', 20_000, 1000, 300_000),
    env: Object.freeze({ ...env }),
  };
}

/** SERVICE_ACTION_TARGET_NETWORKS: comma-separated CIDRs (a bare address is one host); checked, not widened. */
function targetNetworks(env: Env, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const i of items) {
    const [addr = '', prefix, extra] = i.split('/');
    const family = isIP(addr);
    const max = family === 6 ? 128 : 32;
    const ok =
      family !== 0 && extra === undefined && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max));
    if (!ok) throw new ConfigError(name, `expected comma-separated networks such as 10.20.0.0/16 or fd00::/8, got "${i}"`);
  }
  return [...new Set(items)];
}

/**
 * An agent-update git URL of the environment. The full check is core's checkGitUrl, where it is used; a
 * user name or token in an https:// URL stops the start here: it would be shown in the settings, stored
 * with actions and passed to the Linux hosts' command lines (ssh:// keeps its login name, not a secret).
 */
function gitUrlEnv(env: Env, name: string): string {
  const v = str(env, name, '');
  let u: URL | undefined;
  try {
    u = new URL(v.trim());
  } catch {
    u = undefined;
  }
  if (u && (u.password || (u.username && u.protocol !== 'ssh:')))
    throw new ConfigError(
      name,
      'may not carry a user name, token or password: git credentials go to git itself (api/ACTIONS.md, "Agent updates")',
    );
  return v;
}

function actionsConfig(env: Env): ActionsConfig {
  const timeoutMs = int(env, 'SERVICE_ACTION_TIMEOUT_MS', 30_000, 1000, 600_000);
  const waitMs = int(env, 'SERVICE_ACTION_WAIT_MS', timeoutMs + 15_000, 1000, 900_000);
  if (waitMs <= timeoutMs)
    throw new ConfigError(
      'SERVICE_ACTION_WAIT_MS',
      `must be greater than SERVICE_ACTION_TIMEOUT_MS (${timeoutMs}), got ${waitMs}`,
    );
  const winrmPort = int(env, 'SERVICE_WINRM_PORT', 0, 0, 65535);
  const updaterPath = str(env, 'SERVICE_AGENT_UPDATER_PATH', '/usr/local/sbin/watchpost-agent-update');
  if (!/^\/[A-Za-z0-9._/-]+$/.test(updaterPath) || updaterPath.includes('..'))
    throw new ConfigError(
      'SERVICE_AGENT_UPDATER_PATH',
      `expected an absolute path of letters, digits, . _ - /, got "${updaterPath}"`,
    );
  const publicUrl = str(env, 'SERVICE_PUBLIC_URL', '');
  if (publicUrl !== '') url(env, 'SERVICE_PUBLIC_URL', '', ['http:', 'https:']);
  return {
    timeoutMs,
    updateTimeoutMs: int(env, 'SERVICE_AGENT_UPDATE_TIMEOUT_MS', 600_000, 5000, 3_600_000),
    waitMs,
    concurrency: int(env, 'SERVICE_ACTIONS_CONCURRENCY', 4, 1, 64),
    targetNetworks: targetNetworks(env, 'SERVICE_ACTION_TARGET_NETWORKS'),
    secretsKey: env.SERVICE_SECRETS_KEY || undefined,
    winrm: {
      username: str(env, 'SERVICE_WINRM_USERNAME', ''),
      password: env.SERVICE_WINRM_PASSWORD || undefined,
      transport: oneOf(env, 'SERVICE_WINRM_TRANSPORT', ['http', 'https'] as const, 'https'),
      port: winrmPort === 0 ? undefined : winrmPort,
      auth: oneOf(env, 'SERVICE_WINRM_AUTH', ['basic', 'ntlm'] as const, 'basic'),
      verifyTls: bool(env, 'SERVICE_WINRM_VERIFY_TLS', true),
      allowUnencrypted: bool(env, 'SERVICE_WINRM_ALLOW_UNENCRYPTED', false),
      caFile: str(env, 'SERVICE_WINRM_CA_FILE', ''),
    },
    ssh: {
      username: str(env, 'SERVICE_SSH_USERNAME', ''),
      privateKeyFile: env.SERVICE_SSH_PRIVATE_KEY_FILE || undefined,
      port: int(env, 'SERVICE_SSH_PORT', 22, 1, 65535),
    },
    agentUpdate: {
      linux: {
        gitUrl: gitUrlEnv(env, 'SERVICE_AGENT_UPDATE_LINUX_GIT_URL'),
        branch: str(env, 'SERVICE_AGENT_UPDATE_LINUX_BRANCH', 'main'),
      },
      windows: {
        gitUrl: gitUrlEnv(env, 'SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL'),
        branch: str(env, 'SERVICE_AGENT_UPDATE_WINDOWS_BRANCH', 'main'),
      },
      refreshSeconds: int(env, 'SERVICE_VERSION_REFRESH_SECONDS', 900, 10, 86_400),
      allowFileUrls: bool(env, 'SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS', false),
      allow: (env.SERVICE_AGENT_UPDATE_ALLOW ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
      linuxUpdaterPath: updaterPath,
      fallbackMinutes: int(env, 'SERVICE_AGENT_UPDATE_FALLBACK_MINUTES', 30, 1, 10_080),
      publicUrl,
    },
  };
}
