// Per-test databases, topics and queues on the real servers of the local stack.
import { loadConfig, type Config } from '@watchpost/runtime';
import { createPostgres, createPostgresClient, type Pool } from '@watchpost/runtime';
import { createClickhouse, type ClickHouseClient } from '@watchpost/runtime';
import { migrateClickhouse, migrateKafka, migratePostgres } from '@watchpost/core/migrate';
import { uniqueTestName, assertTestName } from './names.ts';
import { createKafka } from '@watchpost/runtime';

export { uniqueTestName };

/** A config whose Postgres database, ClickHouse database and Kafka topics belong to this test only. */
export function testConfig(prefix: string, env: Record<string, string> = {}): Config {
  const name = uniqueTestName(prefix);
  const base = loadConfig({ ...process.env, LOG_LEVEL: 'silent', ...env });
  const pgUrl = new URL(base.databaseUrl);
  pgUrl.pathname = `/${name}`;
  return loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    DATABASE_URL: pgUrl.toString(),
    CLICKHOUSE_DATABASE: name,
    KAFKA_TOPIC_PREFIX: `${name}.`,
    SERVICE_STATE_DIR: `.stack/tests/${name}`,
    BULLMQ_PREFIX: `${name}_bull`,
    REDIS_KEY_PREFIX: `${name}:`,
    ...env,
  });
}

export interface TestStores {
  config: Config;
  pg: Pool;
  ch: ClickHouseClient;
  /** Drops this test's databases and topics. */
  drop(): Promise<void>;
}

/** Deletes every topic carrying this test's prefix (the prefix itself always says test). */
async function dropTestTopics(config: Config): Promise<void> {
  const prefix = config.topicPrefix;
  if (!prefix) return;
  assertTestName(prefix.replace(/\.$/, ''));
  const admin = createKafka(config.kafkaBrokers, 'test-cleanup').admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics, timeout: 10_000 });
  } finally {
    await admin.disconnect();
  }
}

/** Creates and migrates the test's own Postgres and ClickHouse databases and Kafka topics. */
export async function createTestStores(config: Config, opts: { kafka?: boolean } = {}): Promise<TestStores> {
  const pgName = new URL(config.databaseUrl).pathname.slice(1);
  assertTestName(pgName);
  assertTestName(config.clickhouseDatabase);
  await migratePostgres(config.databaseUrl);
  await migrateClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  if (opts.kafka !== false) await migrateKafka(config);
  const pool = createPostgres(config.databaseUrl, 10);
  const ch = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  return {
    config,
    pg: pool,
    ch,
    async drop() {
      await pool.end();
      await ch.command({ query: `DROP DATABASE IF EXISTS ${config.clickhouseDatabase}` }).catch(() => {});
      await ch.close();
      const u = new URL(config.databaseUrl);
      u.pathname = '/postgres';
      const admin = createPostgresClient({ connectionString: u.toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`).catch(() => {});
      await admin.end();
      await dropTestTopics(config).catch(() => {});
    },
  };
}
