// The platform every role builds on. Import from '@watchpost/runtime' only (the package exports nothing else).
export * from './config/config.ts';
export { LOCAL_SENTINEL_MASTER, localStack, localUrls } from './config/local-stack.ts';
export { redisNodeConf, sentinelConf, type RedisNodeConf, type SentinelConf } from './config/redis-sentinel-conf.ts';
export {
  kafkaNodeProperties,
  kafkaLog4j,
  kafkaSmallNodeSettings,
  newKafkaClusterId,
  type KafkaNodeProperties,
} from './config/kafka-broker.ts';
export * from './roles.ts';
export { Clients } from './clients/index.ts';
export * from './clients/postgres.ts';
export * from './clients/redis.ts';
export * from './clients/clickhouse.ts';
export * from './clients/kafka.ts';
export * from './clickhouse/sql.ts';
export * from './clickhouse/events-table.ts';
export * from './clickhouse/cluster.ts';
export * from './queues.ts';
export * from './error-body.ts';
export * from './secret-file.ts';
export { findPostgresBin, postgresOsUser } from './postgres-tools.ts';
export { createLogger, eventLineWriter, type Logger } from './logger.ts';
export { Lifecycle } from './lifecycle.ts';
export { applyHeapSettings } from './heap.ts';
export { registerHealth, type HealthCheck } from './health.ts';
export { VERSION } from './version.ts';
export { metrics, counter, gauge, histogram } from './metrics.ts';
export * from './failures.ts';
export * from './request-reply.ts';
export * from './config/env.ts';
export * from './ingest-claims.ts';
