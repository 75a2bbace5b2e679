import type { Config } from '@watchpost/runtime';
import { migratePostgres } from './postgres.ts';
import { applyClickhouseMigrations, migrateClickhouse } from './clickhouse.ts';
import { migrateKafka } from './kafka.ts';

// applyClickhouseMigrations: onto any client (chDB in the compatibility tests and benches).
export { migratePostgres, migrateClickhouse, migrateKafka, applyClickhouseMigrations };

/** Postgres, ClickHouse and Kafka topics; each step is idempotent. */
export async function migrateAll(config: Config, log: (msg: string) => void = () => {}): Promise<void> {
  await migratePostgres(config.databaseUrl, log);
  await migrateClickhouse(config.clickhouseUrl, config.clickhouseDatabase, log, config.clickhouseCluster || undefined);
  await migrateKafka(config);
  log(`kafka: topics ${Object.values(config.topics).join(', ')} present`);
}
