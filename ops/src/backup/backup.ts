// `npm run backup -- <dir>`: Postgres (pg_dump, custom format, one snapshot with the row counts),
// ClickHouse (every table with data of its own, TabSeparated), the state folder's secrets, a manifest.
import { chmod, copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClickhouse, createPostgresClient, queryRows, sql, VERSION, type Config } from '@watchpost/runtime';
import { BOOTSTRAP_KEY_FILE, SECRETS_KEY_FILE, loadSecretsKey } from '@watchpost/core';
import { exportTable, listTables } from './clickhouse.ts';
import { findPgTool, runPgTool, splitPassword } from './pg-tools.ts';
import {
  CLICKHOUSE_DIR,
  MANIFEST_FORMAT,
  POSTGRES_FILE,
  STATE_DIR,
  keyFingerprint,
  writeManifest,
  type ClickhouseTableEntry,
  type Manifest,
} from './manifest.ts';

/**
 * The state folder's files worth keeping: the settings secrets key (core/src/actions/secrets.ts), the
 * JWT signing secret (api/src/auth/secret.ts), the generated bootstrap agent key and first admin
 * password (core/src/agent-keys.ts, api/src/auth/first-admin.ts). Only these: the default state folder
 * is the local stack's own folder (.stack) with the servers' data in it.
 */
export const STATE_FILES = [SECRETS_KEY_FILE, 'jwt-secret', BOOTSTRAP_KEY_FILE, 'initial-admin-password'] as const;

export const NOT_INCLUDED = [
  'Kafka topics: transient; events answered 201 but not yet stored in ClickHouse (or not yet correlated) when the backup ran are not in it',
  'Redis: login rate limits, live-stream state and queued jobs (actions, notifications) waiting at backup time',
  'SERVICE_SECRETS_KEY / SERVICE_JWT_SECRET when set in the environment: keep them with the backup',
];

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

export async function backup(config: Config, dir: string, log: (msg: string) => void = () => {}): Promise<Manifest> {
  if (!(await isEmptyDir(dir))) throw new Error(`${dir} exists and is not empty: give a new folder for each backup`);
  await mkdir(join(dir, CLICKHOUSE_DIR), { recursive: true, mode: 0o700 });
  await mkdir(join(dir, STATE_DIR), { recursive: true, mode: 0o700 });
  const created_at = new Date().toISOString();

  // Postgres: counts and dump read the same snapshot (exported by a REPEATABLE READ transaction held open).
  const pgDump = findPgTool('pg_dump');
  const pgDumpVersion = (await runPgTool(pgDump, ['--version'])).trim();
  const pg = createPostgresClient({ connectionString: config.databaseUrl });
  await pg.connect();
  let postgres: Manifest['postgres'];
  try {
    await pg.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await pg.query<{ s: string }>('SELECT pg_export_snapshot() AS s')).rows[0]!.s;
    const server_version = (await pg.query<{ v: string }>('SHOW server_version')).rows[0]!.v;
    const tables = await pg.query<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    const counts: Record<string, number> = {};
    for (const { t } of tables.rows) {
      counts[t] = Number((await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${pg.escapeIdentifier(t)}`)).rows[0]!.n);
    }
    const migrations =
      'pgmigrations' in counts
        ? (await pg.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id')).rows.map((r) => r.name)
        : [];
    const { url, password } = splitPassword(config.databaseUrl);
    log(`postgres: dumping ${tables.rows.length} tables`);
    await runPgTool(
      pgDump,
      [
        '--format=custom',
        '--no-owner',
        '--no-privileges',
        `--snapshot=${snapshot}`,
        `--file=${join(dir, POSTGRES_FILE)}`,
        `--dbname=${url}`,
      ],
      password,
    );
    await chmod(join(dir, POSTGRES_FILE), 0o600); // password hashes, encrypted credentials
    await pg.query('COMMIT');
    postgres = { server_version, pg_dump_version: pgDumpVersion, migrations, counts };
  } finally {
    await pg.end().catch(() => {});
  }

  // ClickHouse, after Postgres: events stored meanwhile are in it (more events than problems reference, never fewer).
  const ch = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  let clickhouse: Manifest['clickhouse'];
  try {
    const [v] = await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`);
    const migrations = (await queryRows<{ name: string }>(ch, sql`SELECT name FROM schema_migrations ORDER BY name`)).map(
      (r) => r.name,
    );
    const { tables, derived } = await listTables(ch, config.clickhouseDatabase);
    const entries: Record<string, ClickhouseTableEntry> = {};
    for (const t of tables) {
      const file = join(CLICKHOUSE_DIR, `${t.name}.tsv.gz`);
      const e = await exportTable(ch, config.clickhouseDatabase, t, join(dir, file));
      entries[t.name] = { file, ...e };
      log(`clickhouse: ${t.name} ${e.rows} rows`);
    }
    clickhouse = { server_version: v!.v, database: config.clickhouseDatabase, migrations, tables: entries, derived };
  } finally {
    await ch.close();
  }

  // State folder. The key in effect is recorded by fingerprint so a restore can tell a wrong one.
  const files: string[] = [];
  for (const name of STATE_FILES) {
    try {
      await copyFile(join(config.stateDir, name), join(dir, STATE_DIR, name));
      files.push(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  // No key anywhere: nothing was ever encrypted (the api creates the key on first use).
  const secretsKey =
    config.actions.secretsKey || files.includes(SECRETS_KEY_FILE)
      ? await loadSecretsKey(config.actions.secretsKey, config.stateDir)
      : undefined;
  const jwtFile = await readFile(join(config.stateDir, 'jwt-secret')).then(
    () => true,
    () => false,
  );
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    created_at,
    service_version: VERSION,
    postgres,
    clickhouse,
    state: {
      files,
      secrets_key_sha256: secretsKey ? keyFingerprint(secretsKey) : null,
      secrets_key_source: config.actions.secretsKey ? 'environment' : secretsKey ? 'file' : 'none',
      jwt_secret_source: config.jwtSecret ? 'environment' : jwtFile ? 'file' : 'none',
    },
    not_included: NOT_INCLUDED,
  };
  await writeManifest(dir, manifest);
  log(`backup written to ${dir}`);
  return manifest;
}
