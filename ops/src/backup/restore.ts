// `npm run restore -- <dir> [--force]`: into a fresh stack. Everything is checked before anything is
// written: the backup's migrations are known to this version, the target databases hold no data and the
// state folder holds no other secrets (else --force), the secrets key in effect is the backup's.
// Postgres: the dump is restored into an empty public schema (a migrated but unused database counts as
// empty), row counts are checked against the manifest, then this version's newer migrations run.
// ClickHouse: the database is recreated and migrated, then each table is loaded and counted.
import { existsSync, readdirSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClickhouse, createPostgresClient, ident, repoRoot, type Config } from '@watchpost/runtime';
import { migrateClickhouse, migratePostgres } from '@watchpost/core/migrate';
import { SECRETS_KEY_FILE, loadSecretsKey } from '@watchpost/core';
import { countRows, importTable, listTables } from './clickhouse.ts';
import { findPgTool, runPgTool, splitPassword, toolMajor } from './pg-tools.ts';
import { POSTGRES_FILE, STATE_DIR, keyFingerprint, readManifest, type Manifest } from './manifest.ts';

export interface RestoreReport {
  manifest: Manifest;
  postgres: Record<string, number>;
  clickhouse: Record<string, number>;
  warnings: string[];
}

const localMigrations = (kind: 'postgres' | 'clickhouse') =>
  new Set(
    readdirSync(join(repoRoot, 'core', 'migrations', kind))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => (kind === 'postgres' ? f.replace(/\.sql$/, '') : f)),
  );

function pgAdminUrl(url: string): { admin: string; name: string } {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unsupported database name in DATABASE_URL: ${name}`);
  u.pathname = '/postgres';
  return { admin: u.toString(), name };
}

/** Tables of the public schema holding at least one row (pgmigrations alone is an unused database). */
async function pgTablesWithRows(url: string): Promise<{ exists: boolean; tables: string[]; withRows: string[] }> {
  const { admin, name } = pgAdminUrl(url);
  const a = createPostgresClient({ connectionString: admin });
  await a.connect();
  const exists = await a.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]).finally(() => a.end().catch(() => {}));
  if (exists.rowCount === 0) return { exists: false, tables: [], withRows: [] };
  const c = createPostgresClient({ connectionString: url });
  await c.connect();
  try {
    const tables = (
      await c.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
      )
    ).rows.map((r) => r.t);
    const withRows: string[] = [];
    for (const t of tables) {
      if (t === 'pgmigrations') continue;
      if ((await c.query(`SELECT 1 FROM ${c.escapeIdentifier(t)} LIMIT 1`)).rowCount) withRows.push(t);
    }
    return { exists: true, tables, withRows };
  } finally {
    await c.end().catch(() => {});
  }
}

async function pgCounts(url: string, tables: string[]): Promise<Record<string, number>> {
  const c = createPostgresClient({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of tables)
      out[t] = Number((await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${c.escapeIdentifier(t)}`)).rows[0]!.n);
    return out;
  } finally {
    await c.end().catch(() => {});
  }
}

async function sameFile(a: string, b: string): Promise<boolean | undefined> {
  try {
    return (await readFile(a)).equals(await readFile(b));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function restore(
  config: Config,
  dir: string,
  opts: { force?: boolean } = {},
  log: (msg: string) => void = () => {},
): Promise<RestoreReport> {
  const m = await readManifest(dir);
  const warnings: string[] = [];
  const refusals: string[] = [];

  // 1. This version must know every migration the backup was made with.
  const pgLocal = localMigrations('postgres');
  const chLocal = localMigrations('clickhouse');
  const unknown = [
    ...m.postgres.migrations.filter((n) => !pgLocal.has(n)),
    ...m.clickhouse.migrations.filter((n) => !chLocal.has(n)),
  ];
  if (unknown.length)
    throw new Error(`the backup is from a newer version (${m.service_version}): unknown migrations ${unknown.join(', ')}`);
  const pgRestore = findPgTool('pg_restore');
  const restoreMajor = toolMajor(await runPgTool(pgRestore, ['--version']));
  if (restoreMajor < toolMajor(m.postgres.pg_dump_version))
    throw new Error(
      `${pgRestore} is version ${restoreMajor}; the dump was made by ${m.postgres.pg_dump_version}: install a newer PostgreSQL client`,
    );
  if (!existsSync(join(dir, POSTGRES_FILE))) throw new Error(`${join(dir, POSTGRES_FILE)} is missing`);
  for (const [t, e] of Object.entries(m.clickhouse.tables))
    if (!existsSync(join(dir, e.file))) throw new Error(`${join(dir, e.file)} is missing (table ${t})`);

  // 2. Targets empty, state folder without other secrets, the right secrets key.
  const pgState = await pgTablesWithRows(config.databaseUrl);
  if (pgState.withRows.length) refusals.push(`Postgres database holds data (${pgState.withRows.join(', ')})`);
  const ch = createClickhouse(config.clickhouseUrl, 'default');
  try {
    const db = config.clickhouseDatabase;
    const [exists] = await ch
      .query({ query: `SELECT count() AS n FROM system.databases WHERE name = '${ident(db).text}'`, format: 'JSONEachRow' })
      .then((r) => r.json<{ n: string }>());
    if (Number(exists!.n) > 0) {
      const { tables, derived } = await listTables(ch, db);
      const full: string[] = [];
      for (const t of [...tables.map((x) => x.name), ...derived]) if ((await countRows(ch, db, t)) > 0) full.push(t);
      if (full.length) refusals.push(`ClickHouse database ${db} holds data (${full.join(', ')})`);
    }
  } finally {
    await ch.close();
  }
  for (const f of m.state.files) {
    if ((await sameFile(join(dir, STATE_DIR, f), join(config.stateDir, f))) === false)
      refusals.push(`${join(config.stateDir, f)} differs from the backup's`);
  }
  if (m.state.secrets_key_source === 'environment') {
    if (!config.actions.secretsKey)
      throw new Error('the backup was made with SERVICE_SECRETS_KEY set: set it to the same value and run again');
    if (
      m.state.secrets_key_sha256 &&
      keyFingerprint(await loadSecretsKey(config.actions.secretsKey, config.stateDir)) !== m.state.secrets_key_sha256
    )
      throw new Error('SERVICE_SECRETS_KEY is not the key the backup was made with: stored credentials would not decrypt');
  } else if (m.state.secrets_key_source === 'file' && config.actions.secretsKey) {
    throw new Error(
      `the backup holds its secrets key in ${STATE_DIR}/${SECRETS_KEY_FILE}: unset SERVICE_SECRETS_KEY (or set it to that file's content)`,
    );
  }
  if (m.state.jwt_secret_source === 'environment' && !config.jwtSecret)
    warnings.push('the backup was made with SERVICE_JWT_SECRET set: without the same value every session must log in again');
  if (refusals.length && !opts.force)
    throw new Error(`refusing to restore over existing data (use --force to replace it): ${refusals.join('; ')}`);
  for (const r of refusals) log(`--force: replacing: ${r}`);

  // 3. Postgres: empty public schema, pg_restore in one transaction, counts, then newer migrations.
  const { admin, name } = pgAdminUrl(config.databaseUrl);
  if (!pgState.exists) {
    const a = createPostgresClient({ connectionString: admin });
    await a.connect();
    await a.query(`CREATE DATABASE ${name}`).finally(() => a.end().catch(() => {}));
  } else if (pgState.tables.length) {
    const c = createPostgresClient({ connectionString: config.databaseUrl });
    await c.connect();
    await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public').finally(() => c.end().catch(() => {}));
  }
  const { url, password } = splitPassword(config.databaseUrl);
  log('postgres: restoring');
  await runPgTool(
    pgRestore,
    ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${url}`, join(dir, POSTGRES_FILE)],
    password,
  );
  const postgres = await pgCounts(config.databaseUrl, Object.keys(m.postgres.counts));
  const pgWrong = Object.entries(m.postgres.counts).filter(([t, n]) => postgres[t] !== n);
  if (pgWrong.length)
    throw new Error(
      `Postgres counts differ from the manifest: ${pgWrong.map(([t, n]) => `${t} ${postgres[t]} (expected ${n})`).join(', ')}`,
    );
  // Correlate's positions name offsets of the old Kafka topics; the new stack's topics start again at 0.
  if ('consumer_offsets' in m.postgres.counts) {
    const c = createPostgresClient({ connectionString: config.databaseUrl });
    await c.connect();
    await c.query('DELETE FROM consumer_offsets').finally(() => c.end().catch(() => {}));
  }
  await migratePostgres(config.databaseUrl, log);

  // 4. ClickHouse: a new, migrated database; sources before nothing else (views refill the derived tables).
  const server = createClickhouse(config.clickhouseUrl, 'default');
  await server
    .command({ query: `DROP DATABASE IF EXISTS ${ident(config.clickhouseDatabase).text}` })
    .finally(() => server.close());
  await migrateClickhouse(config.clickhouseUrl, config.clickhouseDatabase, log);
  const target = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  const clickhouse: Record<string, number> = {};
  try {
    for (const [t, e] of Object.entries(m.clickhouse.tables)) {
      await importTable(target, config.clickhouseDatabase, t, e, join(dir, e.file));
      clickhouse[t] = await countRows(target, config.clickhouseDatabase, t);
      log(`clickhouse: ${t} ${clickhouse[t]} rows`);
    }
    for (const t of m.clickhouse.derived) clickhouse[t] = await countRows(target, config.clickhouseDatabase, t);
  } finally {
    await target.close();
  }
  const chWrong = Object.entries(m.clickhouse.tables).filter(([t, e]) => clickhouse[t] !== e.rows);
  if (chWrong.length)
    throw new Error(
      `ClickHouse counts differ from the manifest: ${chWrong.map(([t, e]) => `${t} ${clickhouse[t]} (expected ${e.rows})`).join(', ')}`,
    );

  // 5. State folder, then the key in effect must be the backup's.
  await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  for (const f of m.state.files) {
    await copyFile(join(dir, STATE_DIR, f), join(config.stateDir, f));
    await chmod(join(config.stateDir, f), 0o600);
  }
  if (
    m.state.secrets_key_sha256 &&
    keyFingerprint(await loadSecretsKey(config.actions.secretsKey, config.stateDir)) !== m.state.secrets_key_sha256
  )
    throw new Error("the secrets key in effect after the restore is not the backup's: stored credentials would not decrypt");
  log(`restored the backup of ${m.created_at} (version ${m.service_version})`);
  return { manifest: m, postgres, clickhouse, warnings };
}
