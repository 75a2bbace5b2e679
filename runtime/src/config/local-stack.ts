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
};

export const localUrls = {
  postgres: `postgres://postgres@127.0.0.1:${localStack.pgPort}/watchpost`,
  redis: `redis://127.0.0.1:${localStack.redisPort}`,
  clickhouse: `http://127.0.0.1:${localStack.chHttpPort}`,
  kafka: Array.from({ length: localStack.kafkaBrokers }, (_, i) => `127.0.0.1:${localStack.kafkaPort + 2 * i}`).join(','),
};
