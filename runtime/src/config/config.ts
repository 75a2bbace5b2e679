// One typed config, read from the environment once at start. A wrong value stops the start with a
// message naming the variable. Defaults are documented in README.md (Configuration). This file keeps the
// platform (stores, Kafka, listener, roles, consumer batching) and composes the sections of the features
// (./sections/: actions, auth and devices, ingest and the SMTP intake, notify, scheduler), each reading
// and validating its own variables.
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localUrls } from './local-stack.ts';
import { ConfigError, envReader } from './env.ts';
import { actionsConfig, type ActionsConfig } from './sections/actions.ts';
import { authConfig, devicesConfig, type AuthConfig, type DevicesConfig } from './sections/auth.ts';
import { agentKeyPrefix, ingestConfig, smtpIntakeConfig, type IngestConfig, type SmtpIntakeConfig } from './sections/ingest.ts';
import { notifyConfig, type NotifyConfig } from './sections/notify.ts';
import { trustProxy } from './sections/http.ts';
import { kafkaReplication } from './sections/kafka.ts';
import { redisTargets, type RedisTarget } from './sections/redis.ts';
import {
  dailyReportConfig,
  heartbeatPolicy,
  postgresRetentionConfig,
  type DailyReportConfig,
  type HeartbeatPolicy,
  type PostgresRetention,
} from './sections/scheduler.ts';

export { ConfigError };
export * from './sections/actions.ts';
export * from './sections/http.ts';
export * from './sections/kafka.ts';
export * from './sections/redis.ts';
export * from './sections/auth.ts';
export * from './sections/ingest.ts';
export * from './sections/notify.ts';
export * from './sections/scheduler.ts';
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
  /** SERVICE_GC_EXTERNAL_IN_GLOBAL_LIMIT: V8 counts Buffers into its heap's global limit (runtime/src/heap.ts). */
  gcExternalInGlobalLimit: boolean;
  stateDir: string;
  databaseUrl: string;
  /** REDIS_URL (with Sentinel: its credentials and db; the address comes from `redis.sentinels`). */
  redisUrl: string;
  /** SERVICE_CLAIMS_REDIS_URL: the Redis of ingest's idempotency claims (default: REDIS_URL). */
  claimsRedisUrl: string;
  /** What every Redis client of the service connects to: REDIS_URL, or REDIS_SENTINELS + REDIS_SENTINEL_MASTER. */
  redis: RedisTarget;
  /** The claims' Redis: SERVICE_CLAIMS_REDIS_URL / _SENTINELS / _SENTINEL_MASTER, by default `redis`. */
  claimsRedis: RedisTarget;
  /** SERVICE_REDIS_MEMORY_WARN_RATIO: used_memory / maxmemory above which a Redis is reported as filling. */
  redisMemoryWarnRatio: number;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  /**
   * CLICKHOUSE_CLUSTER: a cluster of the ClickHouse servers' own config; the migrations then create
   * replicated tables behind Distributed ones (core/src/migrate/clickhouse-cluster.ts). Empty: one server.
   */
  clickhouseCluster: string;
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
  dailyReport: DailyReportConfig;
  /** Notification policy defaults from the environment (database values override; api/NOTIFICATIONS.md). */
  notify: NotifyConfig;
  ingest: IngestConfig;
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
  postgresRetention: PostgresRetention;
  /** Redis key prefix of every BullMQ queue (one per deployment; tests use their own). */
  queuePrefix: string;
  bootstrapApiKey: string | undefined;
  /** SERVICE_AGENT_KEY_PREFIX: prefix of generated agent keys (core/src/agent-keys.ts); `sac_` survives the Windows deploy script. */
  agentKeyPrefix: string;
  admin: { username: string; password: string | undefined };
  jwtSecret: string | undefined;
  /** API token lifetimes and login lockout (api/README.md). */
  auth: AuthConfig;
  /** Remote actions (api/ACTIONS.md): the `actions` worker role, WinRM, SSH, agent updates. */
  actions: ActionsConfig;
  /** Mobile devices and Web Push (api/MOBILE.md). */
  devices: DevicesConfig;
}

type Env = Record<string, string | undefined>;

// The same typed readers as every channel's defaults (env.ts), so a variable is parsed one way.
const str = (env: Env, name: string, def: string) => envReader(env).str(name, def);
const int = (env: Env, name: string, def: number, min: number, max?: number) => envReader(env).int(name, def, min, max);
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
  const prefix = str(env, 'KAFKA_TOPIC_PREFIX', '');
  const topics = topicNames(prefix);
  const replication = kafkaReplication(env);
  const redis = redisTargets(env);
  return {
    role: oneOf(role ? { SERVICE_ROLE: role } : env, 'SERVICE_ROLE', ROLES, 'all'),
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 8080, 0, 65535),
    trustProxy: trustProxy(env, 'SERVICE_TRUST_PROXY'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    gcExternalInGlobalLimit: envReader(env).bool('SERVICE_GC_EXTERNAL_IN_GLOBAL_LIMIT', true),
    stateDir: resolve(repoRoot, str(env, 'SERVICE_STATE_DIR', '.stack')),
    databaseUrl: url(env, 'DATABASE_URL', localUrls.postgres, ['postgres:', 'postgresql:']),
    redisUrl: redis.redis.url,
    claimsRedisUrl: redis.claimsRedis.url,
    redis: redis.redis,
    claimsRedis: redis.claimsRedis,
    redisMemoryWarnRatio: ratio(env, 'SERVICE_REDIS_MEMORY_WARN_RATIO', 0.8),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', localUrls.clickhouseService, ['http:', 'https:']),
    clickhouseDatabase: str(env, 'CLICKHOUSE_DATABASE', 'watchpost'),
    // the stack's cluster only when the URL is the stack's too
    clickhouseCluster: str(env, 'CLICKHOUSE_CLUSTER', env.CLICKHOUSE_URL ? '' : localUrls.clickhouseCluster),
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
    heartbeat: heartbeatPolicy(env),
    problemCorrelationWindowMinutes: int(env, 'SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES', 60, 1),
    problemMinSeverity: oneOf(env, 'SERVICE_PROBLEM_MIN_SEVERITY', SEVERITIES, 'warning'),
    retentionDays: int(env, 'SERVICE_RETENTION_DAYS', 90, 1),
    dailyReport: dailyReportConfig(env),
    notify: notifyConfig(env),
    ingest: ingestConfig(env),
    smtp: smtpIntakeConfig(env),
    correlate: {
      batchSize: int(env, 'CORRELATE_BATCH_SIZE', 5000, 1, 100_000),
      batchMs: int(env, 'CORRELATE_BATCH_MS', 200, 10, 60_000),
    },
    livenessScanIntervalSeconds: int(env, 'SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS', 60, 1, 3600),
    eventsRollupIntervalSeconds: int(env, 'SERVICE_EVENTS_ROLLUP_INTERVAL_SECONDS', 30, 1, 3600),
    requeueGraceSeconds: int(env, 'SERVICE_REQUEUE_GRACE_SECONDS', 60, 1, 86_400),
    postgresRetention: postgresRetentionConfig(env),
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
    auth: authConfig(env),
    actions: actionsConfig(env),
    devices: devicesConfig(env),
  };
}
