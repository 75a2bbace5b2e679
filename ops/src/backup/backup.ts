// `npm run backup -- <dir>`: Postgres (pg_dump, custom format, one snapshot with the row counts),
// ClickHouse (every table with data of its own, TabSeparated), a manifest; encrypted (encryption.ts)
// unless --unencrypted. The state folder's secrets stay out (see STATE_NOT_INCLUDED), the settings
// secrets key too unless --include-secrets-key: a backup is not the keys to itself.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClickhouse, createPostgresClient, queryRows, sql, VERSION, type Config } from '@watchpost/runtime';
import { SECRETS_KEY_FILE, loadSecretsKey } from '@watchpost/core/secrets';
import { exportTable, listTables } from './clickhouse.ts';
import { createBackupFiles, REFUSE_UNENCRYPTED, type BackupFiles, type Seal } from './encryption.ts';
import { findPgTool, runPgTool, runPgToolStreaming, splitPassword } from './pg-tools.ts';
import {
  CLICKHOUSE_DIR,
  MANIFEST_FORMAT,
  POSTGRES_FILE,
  STATE_DIR,
  keyFingerprint,
  tableFile,
  writeManifest,
  type ClickhouseTableEntry,
  type Manifest,
} from './manifest.ts';

export interface BackupOptions {
  /** A passphrase or age public keys; `{ unencrypted: true }` only when asked for (--unencrypted). */
  seal: Seal;
  /** Put the settings secrets key file in (--include-secrets-key); else the operator keeps it apart. */
  includeSecretsKey?: boolean;
}

const NOT_INCLUDED = [
  'Kafka topics: transient; events answered 201 but not yet stored in ClickHouse (or not yet correlated) when the backup ran are not in it',
  'Redis: login rate limits, live-stream state and queued jobs (actions, notifications) waiting at backup time',
  // The database keeps what logs in (the password hash, the key hash): these files only told the
  // operator a generated value once, and in a backup they would be a working credential.
  "the state folder's initial-admin-password and bootstrap-api-key: the first start's generated credentials (their hashes are in Postgres, so they keep working)",
];

/** What the manifest says is left out about the two keys, by where they come from. */
function keysNotIncluded(m: Manifest['state'], stateDir: string): string[] {
  const out: string[] = [];
  if (m.secrets_key_source === 'environment')
    out.push(
      'SERVICE_SECRETS_KEY: from the environment, never written into a backup (--include-secrets-key copies only the state folder key file); keep its value apart, a restore needs it to open the stored credentials',
    );
  else if (m.secrets_key_source === 'file' && !m.files.includes(SECRETS_KEY_FILE))
    out.push(
      `the settings secrets key (${join(stateDir, SECRETS_KEY_FILE)}, sha256 ${m.secrets_key_sha256}): kept apart on purpose; a restore needs it (copy it into the new state folder) or --include-secrets-key`,
    );
  out.push(
    m.jwt_secret_source === 'environment'
      ? 'SERVICE_JWT_SECRET: from the environment; sessions outlive a restore only with the same value'
      : 'the JWT signing secret: the restored service makes a new one, so everyone logs in again (a token-signing key for the live service has no place in a backup)',
  );
  return out;
}

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/** Counts and dump read the same snapshot (exported by a REPEATABLE READ transaction held open). */
async function dumpPostgres(config: Config, files: BackupFiles, log: (msg: string) => void): Promise<Manifest['postgres']> {
  const pgDump = findPgTool('pg_dump');
  const pgDumpVersion = (await runPgTool(pgDump, ['--version'])).trim();
  const pg = createPostgresClient({ connectionString: config.databaseUrl });
  await pg.connect();
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
    // To standard output, through the encryption: the archive (password hashes, encrypted credentials)
    // never lies on disk in clear. Written to a pipe, it has no data offsets; pg_restore reads it from a
    // file, where it finds them by seeking.
    await runPgToolStreaming(
      pgDump,
      ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, `--dbname=${url}`],
      password,
      (archive) => files.write(POSTGRES_FILE, archive),
    );
    await pg.query('COMMIT');
    return { server_version, pg_dump_version: pgDumpVersion, migrations, counts };
  } finally {
    await pg.end().catch(() => {});
  }
}

async function dumpClickhouse(config: Config, files: BackupFiles, log: (msg: string) => void): Promise<Manifest['clickhouse']> {
  const ch = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  try {
    const [v] = await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`);
    const migrations = (await queryRows<{ name: string }>(ch, sql`SELECT name FROM schema_migrations ORDER BY name`)).map(
      (r) => r.name,
    );
    const { tables, derived } = await listTables(ch, config.clickhouseDatabase);
    const entries: Record<string, ClickhouseTableEntry> = {};
    for (const t of tables) {
      const file = tableFile(t.name);
      const e = await exportTable(ch, config.clickhouseDatabase, t, (data) => files.write(file, data));
      entries[t.name] = { file, ...e };
      log(`clickhouse: ${t.name} ${e.rows} rows`);
    }
    return { server_version: v!.v, database: config.clickhouseDatabase, migrations, tables: entries, derived };
  } finally {
    await ch.close();
  }
}

/** The secrets key in effect, recorded by fingerprint so a restore can tell a wrong one; its file only when asked. */
async function backupState(
  config: Config,
  dir: string,
  files: BackupFiles,
  includeSecretsKey: boolean,
): Promise<Manifest['state']> {
  const keyFile = join(config.stateDir, SECRETS_KEY_FILE);
  // No key anywhere: nothing was ever encrypted (the api creates the key on first use; not here).
  const source = config.actions.secretsKey ? 'environment' : existsSync(keyFile) ? 'file' : 'none';
  const secretsKey = source === 'none' ? undefined : await loadSecretsKey(config.actions.secretsKey, config.stateDir);
  const copied: string[] = [];
  if (includeSecretsKey && source === 'file') {
    await mkdir(join(dir, STATE_DIR), { mode: 0o700 });
    await files.write(`${STATE_DIR}/${SECRETS_KEY_FILE}`, await readFile(keyFile));
    copied.push(SECRETS_KEY_FILE);
  }
  const jwtFile = existsSync(join(config.stateDir, 'jwt-secret'));
  return {
    files: copied,
    secrets_key_sha256: secretsKey ? keyFingerprint(secretsKey) : null,
    secrets_key_source: source,
    jwt_secret_source: config.jwtSecret ? 'environment' : jwtFile ? 'file' : 'none',
  };
}

export async function backup(
  config: Config,
  dir: string,
  opts: BackupOptions,
  log: (msg: string) => void = () => {},
): Promise<Manifest> {
  // Callers without types (and mistakes) get the same refusal as the CLI.
  if (!opts?.seal) throw new Error(REFUSE_UNENCRYPTED);
  if (!(await isEmptyDir(dir))) throw new Error(`${dir} exists and is not empty: give a new folder for each backup`);
  await mkdir(join(dir, CLICKHOUSE_DIR), { recursive: true, mode: 0o700 });
  const created_at = new Date().toISOString();
  const files = await createBackupFiles(dir, opts.seal);
  if (!files.encrypted) log('writing an UNENCRYPTED backup (--unencrypted): keep it as you keep the database itself');

  // Postgres first (one snapshot), ClickHouse after it: events stored meanwhile are in it (more events
  // than problems reference, never fewer).
  const postgres = await dumpPostgres(config, files, log);
  const clickhouse = await dumpClickhouse(config, files, log);
  const state = await backupState(config, dir, files, opts.includeSecretsKey ?? false);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    created_at,
    service_version: VERSION,
    encryption: files.encrypted ? 'age' : 'none',
    postgres,
    clickhouse,
    state,
    not_included: [...NOT_INCLUDED, ...keysNotIncluded(state, config.stateDir)],
  };
  await writeManifest(files, manifest);
  log(`backup written to ${dir}${files.encrypted ? ' (encrypted)' : ''}`);
  return manifest;
}
