import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { repoRoot } from '@watchpost/runtime';
import { ident, sql } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';

export const clickhouseMigrationsDir = join(repoRoot, 'core', 'migrations', 'clickhouse');

export function clickhouseMigrations(): { name: string; statements: string[] }[] {
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
export async function migrateClickhouse(url: string, database: string, log: (msg: string) => void = () => {}): Promise<string[]> {
  const db = ident(database);
  const server = createClient({ url, request_timeout: 60_000 });
  try {
    await server.command({ query: `CREATE DATABASE IF NOT EXISTS ${db.text}` });
  } finally {
    await server.close();
  }
  const ch = clickhouseForDatabase(url, database);
  try {
    return await applyClickhouseMigrations(ch, log);
  } finally {
    await ch.close();
  }
}

/** Applies pending migrations in the client's database (also used on chDB in the compatibility test). */
export async function applyClickhouseMigrations(ch: ClickHouseClient, log: (msg: string) => void = () => {}): Promise<string[]> {
  await ch.command({
    query: 'CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_at DateTime) ENGINE = MergeTree ORDER BY name',
  });
  const applied = new Set((await queryRows<{ name: string }>(ch, sql`SELECT name FROM schema_migrations`)).map((r) => r.name));
  const done: string[] = [];
  for (const m of clickhouseMigrations()) {
    if (applied.has(m.name)) continue;
    for (const statement of m.statements) await ch.command({ query: statement });
    await ch.command({ query: sql`INSERT INTO schema_migrations (name, applied_at) VALUES (${m.name}, now())`.text });
    log(`clickhouse: applied ${m.name}`);
    done.push(m.name);
  }
  return done;
}

export function clickhouseForDatabase(url: string, database: string): ClickHouseClient {
  return createClient({ url, database, request_timeout: 60_000 });
}
