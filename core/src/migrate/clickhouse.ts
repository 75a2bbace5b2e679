import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { repoRoot } from '@watchpost/runtime';
import { ident, sql } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import {
  CLUSTER_MIGRATION_SETTINGS,
  checkClusterTarget,
  clusterMigrationsTable,
  clusterStatements,
  type ClickhouseClusterTarget,
} from './clickhouse-cluster.ts';

export const clickhouseMigrationsDir = join(repoRoot, 'core', 'migrations', 'clickhouse');

/**
 * The migrations in order; with a cluster, each statement in its cluster form (clickhouse-cluster.ts).
 * Without one, the files' statements as written.
 */
export function clickhouseMigrations(cluster?: ClickhouseClusterTarget): { name: string; statements: string[] }[] {
  const files = singleServerMigrations();
  if (!cluster) return files;
  const schema = new Map<string, string[]>();
  return files.map((m) => ({ name: m.name, statements: m.statements.flatMap((st) => clusterStatements(st, cluster, schema)) }));
}

function singleServerMigrations(): { name: string; statements: string[] }[] {
  return readdirSync(clickhouseMigrationsDir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({
      name,
      // Statements are separated by a line holding only ';' or by ';' at a line end.
      statements: readFileSync(join(clickhouseMigrationsDir, name), 'utf8')
        .split(/;\s*(?:\n|$)/)
        .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
        .filter(Boolean),
    }));
}

/**
 * Applies each file once, in name order, recording it in `schema_migrations` of the target database.
 * Migrations name tables without a database, so they land in `database`. Works on 18.16 and current engines.
 */
export async function migrateClickhouse(
  url: string,
  database: string,
  log: (msg: string) => void = () => {},
  cluster?: string,
): Promise<string[]> {
  const db = ident(database);
  const target = cluster ? { cluster, database } : undefined;
  if (target) checkClusterTarget(target);
  const server = createClient({ url, request_timeout: 60_000 });
  try {
    await server.command({
      query: target
        ? `CREATE DATABASE IF NOT EXISTS ${db.text} ON CLUSTER ${target.cluster}`
        : `CREATE DATABASE IF NOT EXISTS ${db.text}`,
    });
  } finally {
    await server.close();
  }
  const ch = clickhouseForDatabase(url, database);
  try {
    return await applyClickhouseMigrations(ch, log, target);
  } finally {
    await ch.close();
  }
}

/**
 * Applies pending migrations in the client's database (also used on chDB in the compatibility test).
 * With a cluster target (its database the client's), in their cluster form, from any one server.
 */
export async function applyClickhouseMigrations(
  ch: ClickHouseClient,
  log: (msg: string) => void = () => {},
  cluster?: ClickhouseClusterTarget,
): Promise<string[]> {
  await ch.command({
    query: cluster
      ? clusterMigrationsTable(cluster)
      : 'CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime) ENGINE = MergeTree ORDER BY name',
  });
  const applied = new Set((await queryRows<{ name: string }>(ch, sql`SELECT name FROM schema_migrations`)).map((r) => r.name));
  const done: string[] = [];
  const settings = cluster ? { clickhouse_settings: CLUSTER_MIGRATION_SETTINGS } : {};
  for (const m of clickhouseMigrations(cluster)) {
    if (applied.has(m.name)) continue;
    for (const statement of m.statements) await ch.command({ query: statement, ...settings });
    await ch.command({
      query: sql`INSERT INTO schema_migrations (name, applied_at) VALUES (${m.name}, now())`.text,
      ...settings,
    });
    log(`clickhouse: applied ${m.name}`);
    done.push(m.name);
  }
  return done;
}

export function clickhouseForDatabase(url: string, database: string): ClickHouseClient {
  return createClient({ url, database, request_timeout: 60_000 });
}
