// Ports and URLs of the local stack (`npm run stack -- up`). The service's config defaults to these,
// so a newcomer's `npm run up` needs no environment at all.
export const localStack = {
  pgPort: Number(process.env.STACK_PG_PORT ?? 15432),
  redisPort: Number(process.env.STACK_REDIS_PORT ?? 16379),
  chHttpPort: Number(process.env.STACK_CLICKHOUSE_HTTP_PORT ?? 18123),
  chTcpPort: Number(process.env.STACK_CLICKHOUSE_TCP_PORT ?? 19000),
  kafkaPort: Number(process.env.STACK_KAFKA_PORT ?? 19092),
  kafkaControllerPort: Number(process.env.STACK_KAFKA_CONTROLLER_PORT ?? 19093),
  /** STACK_KAFKA_BROKERS=3: a KRaft cluster; node n listens on kafkaPort + 2(n-1), its controller on kafkaControllerPort + 2(n-1). */
  kafkaBrokers: Number(process.env.STACK_KAFKA_BROKERS ?? 1),
  /**
   * STACK_REDIS_SENTINEL=1: Redis behind Sentinel instead of the one Redis (which keeps its port): two
   * data nodes (first the master) on redisSentinelNodePort and +1, three sentinels on redisSentinelPort, +1, +2.
   */
  redisSentinel: /^(1|true|yes|on)$/i.test(process.env.STACK_REDIS_SENTINEL ?? ''),
  redisSentinelNodePort: Number(process.env.STACK_REDIS_SENTINEL_NODE_PORT ?? 16380),
  redisSentinelPort: Number(process.env.STACK_REDIS_SENTINEL_PORT ?? 16390),
  /**
   * STACK_CLICKHOUSE_REPLICAS / STACK_CLICKHOUSE_SHARDS: the stack's ClickHouse cluster (ops/src/stack/
   * clickhouse-cluster.ts) beside the one server; the service then uses the cluster through its first server.
   */
  chCluster: Boolean(process.env.STACK_CLICKHOUSE_REPLICAS || process.env.STACK_CLICKHOUSE_SHARDS),
  chClusterHttpPort: Number(process.env.STACK_CLICKHOUSE_CLUSTER_HTTP_PORT ?? 18131),
};

/** The name of the local stack's ClickHouse cluster in its servers' <remote_servers>. */
export const LOCAL_CLICKHOUSE_CLUSTER = 'watchpost';

/** The master group name the local stack's sentinels monitor (and REDIS_SENTINEL_MASTER's default). */
export const LOCAL_SENTINEL_MASTER = 'watchpost';

export const localUrls = {
  postgres: `postgres://postgres@127.0.0.1:${localStack.pgPort}/watchpost`,
  redis: `redis://127.0.0.1:${localStack.redisSentinel ? localStack.redisSentinelNodePort : localStack.redisPort}`,
  /** The stack's sentinels (STACK_REDIS_SENTINEL=1), else empty: REDIS_SENTINELS' default. */
  redisSentinels: localStack.redisSentinel ? [0, 1, 2].map((i) => `127.0.0.1:${localStack.redisSentinelPort + i}`).join(',') : '',
  /** The stack's one ClickHouse (it runs beside a cluster too). */
  clickhouse: `http://127.0.0.1:${localStack.chHttpPort}`,
  /** CLICKHOUSE_URL's default: the cluster's first server when the stack runs a cluster, else the one server. */
  clickhouseService: `http://127.0.0.1:${localStack.chCluster ? localStack.chClusterHttpPort : localStack.chHttpPort}`,
  /** CLICKHOUSE_CLUSTER's default: the stack's cluster when it runs one, else none (one server). */
  clickhouseCluster: localStack.chCluster ? LOCAL_CLICKHOUSE_CLUSTER : '',
  kafka: Array.from({ length: localStack.kafkaBrokers }, (_, i) => `127.0.0.1:${localStack.kafkaPort + 2 * i}`).join(','),
};
