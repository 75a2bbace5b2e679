// `npm run restore -- <dir> [--force]`: into a fresh stack. Everything is checked before anything is
// written: the operator's key opens the backup (encryption.ts), its manifest names only files a backup
// holds, the backup's migrations are known to this version, the target databases hold no data and the
// state folder holds no other secrets (else --force), the secrets key in effect is the backup's.
// Postgres: the dump is restored into an empty public schema (a migrated but unused database counts as
// empty), row counts are checked against the manifest, then this version's newer migrations run.
// ClickHouse: the database is recreated and migrated, then each table is loaded and counted.
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createClickhouse, createPostgres, createPostgresClient, ident, repoRoot, type Config } from '@watchpost/runtime';
import { migrateClickhouse, migratePostgres } from '@watchpost/core/migrate';
import { SECRETS_KEY_FILE, loadSecretsKey } from '@watchpost/core/secrets';
import { removeEveryTotp } from '@watchpost/core/users';
import { countRows, importTable, listTables } from './clickhouse.ts';
import { openBackupFiles, type BackupFiles, type Unseal } from './encryption.ts';
import { findPgTool, runPgTool, splitPassword, toolMajor } from './pg-tools.ts';
import { POSTGRES_FILE, STATE_DIR, keyFingerprint, readManifest, type Manifest } from './manifest.ts';

export interface RestoreOptions {
  /** Replace existing data and state files. */
  force?: boolean;
  /** The operator's passphrase or age identities; `unencrypted` accepts a backup written in clear. */
  unseal?: Unseal;
  /** The backup's secrets key is lost: restore anyway and remove the settings holding ciphertexts. */
  withoutSecretsKey?: boolean;
}

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

async function differs(file: string, data: Buffer): Promise<boolean> {
  try {
    return !(await readFile(file)).equals(data);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** This version must know every migration of the backup, pg_restore must read its dump, every file must open. */
async function checkBackup(m: Manifest, files: BackupFiles): Promise<string> {
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
  const missing = async (file: string, what: string) =>
    files.check(file).catch((err: Error) => {
      throw new Error(`${files.path(file)} (${what}): ${err.message}`, { cause: err });
    });
  await missing(POSTGRES_FILE, 'the Postgres dump');
  for (const [t, e] of Object.entries(m.clickhouse.tables)) await missing(e.file, `table ${t}`);
  return pgRestore;
}

/** The state files to restore, decrypted (a few bytes each). A format 1 backup's first admin password is left out. */
async function readState(m: Manifest, files: BackupFiles, warnings: string[]): Promise<Map<string, Buffer>> {
  const state = new Map<string, Buffer>();
  for (const f of m.state.files) {
    if (f === 'initial-admin-password') {
      warnings.push(`not restored: ${STATE_DIR}/${f} of this older backup (the first start's generated password)`);
      continue;
    }
    state.set(f, await files.read(`${STATE_DIR}/${f}`));
  }
  return state;
}

/** Targets empty and the state folder without other secrets, else refusals (--force replaces). */
async function checkTargets(config: Config, state: Map<string, Buffer>) {
  const refusals: string[] = [];
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
  for (const [f, data] of state) {
    if (await differs(join(config.stateDir, f), data)) refusals.push(`${join(config.stateDir, f)} differs from the backup's`);
  }
  return { refusals, pgState };
}

const LOST_KEY =
  'if it is lost, --without-secrets-key restores without it: the settings holding stored secrets (WinRM password, ' +
  'SSH key, notification channel secrets, web-push key) are removed and must be entered again, and the users’ second ' +
  'factors (TOTP) are removed: they log in with their password and enrol again';

/**
 * The key the restored service uses must be the backup's, else its stored credentials do not decrypt. It
 * comes in the backup (--include-secrets-key) or the operator puts it in place first, from where it was
 * kept apart: the state folder's secrets-key or SERVICE_SECRETS_KEY. True: it is lost (--without-secrets-key).
 */
async function checkSecretsKey(
  config: Config,
  m: Manifest,
  inBackup: Buffer | undefined,
  withoutKey: boolean,
  warnings: string[],
): Promise<boolean> {
  const want = m.state.secrets_key_sha256;
  if (!want) return false;
  if (inBackup) {
    if (keyFingerprint(await loadSecretsKey(inBackup.toString('utf8'), config.stateDir)) !== want)
      throw new Error(`the backup's ${STATE_DIR}/${SECRETS_KEY_FILE} is not the key its manifest names`);
    if (config.actions.secretsKey)
      throw new Error(
        `the backup holds its secrets key in ${STATE_DIR}/${SECRETS_KEY_FILE}: unset SERVICE_SECRETS_KEY (or set it to that file's content)`,
      );
    return false;
  }
  const keyFile = join(config.stateDir, SECRETS_KEY_FILE);
  const where = config.actions.secretsKey ? 'SERVICE_SECRETS_KEY' : existsSync(keyFile) ? keyFile : undefined;
  // Only read: loadSecretsKey creates a key when there is none, and nothing is written before the checks end.
  const inEffect = where && keyFingerprint(await loadSecretsKey(config.actions.secretsKey, config.stateDir));
  if (inEffect === want) {
    if (withoutKey) warnings.push(`--without-secrets-key ignored: ${where} is the backup's key, nothing is removed`);
    return false;
  }
  if (withoutKey) {
    warnings.push(
      "--without-secrets-key: the settings holding secrets encrypted with the backup's key were removed; enter them again. " +
        'The users’ second factors (TOTP) were removed too: they enrol again',
    );
    return true;
  }
  const put =
    m.state.secrets_key_source === 'environment'
      ? 'set SERVICE_SECRETS_KEY to the value it had'
      : `copy the key kept apart to ${keyFile} (mode 0600) or set SERVICE_SECRETS_KEY to its content`;
  throw new Error(
    where
      ? `${where} is not the secrets key the backup was made with (sha256 ${want}): stored credentials would not decrypt; ${put}; ${LOST_KEY}`
      : `the backup's secrets key is not in it (kept apart, sha256 ${want}): ${put}, and run again; ${LOST_KEY}`,
  );
}

/**
 * A value encrypted with the secrets key (core/src/actions/secrets.ts: `v1:<nonce>:<tag>:<ciphertext>`,
 * base64url) anywhere in a setting's JSON. Without the key the whole setting goes: a half setting (the
 * web-push public key without its private key) would fail where a missing one falls back to its default.
 */
const CIPHERTEXT_IN_JSON = '"v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*"';

/** Empty public schema, pg_restore in one transaction, counts, then newer migrations. */
async function restorePostgres(
  config: Config,
  files: BackupFiles,
  m: Manifest,
  target: { pgRestore: string; exists: boolean; tables: string[]; dropSecrets: boolean },
  log: (msg: string) => void,
): Promise<Record<string, number>> {
  const { admin, name } = pgAdminUrl(config.databaseUrl);
  if (!target.exists) {
    const a = createPostgresClient({ connectionString: admin });
    await a.connect();
    await a.query(`CREATE DATABASE ${name}`).finally(() => a.end().catch(() => {}));
  } else if (target.tables.length) {
    const c = createPostgresClient({ connectionString: config.databaseUrl });
    await c.connect();
    await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public').finally(() => c.end().catch(() => {}));
  }
  const { url, password } = splitPassword(config.databaseUrl);
  log('postgres: restoring');
  await files.withPlainFile(POSTGRES_FILE, (dump) =>
    runPgTool(
      target.pgRestore,
      ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${url}`, dump],
      password,
    ),
  );
  const postgres = await pgCounts(config.databaseUrl, Object.keys(m.postgres.counts));
  const pgWrong = Object.entries(m.postgres.counts).filter(([t, n]) => postgres[t] !== n);
  if (pgWrong.length)
    throw new Error(
      `Postgres counts differ from the manifest: ${pgWrong.map(([t, n]) => `${t} ${postgres[t]} (expected ${n})`).join(', ')}`,
    );
  const c = createPostgresClient({ connectionString: config.databaseUrl });
  await c.connect();
  try {
    // Correlate's positions name offsets of the old Kafka topics; the new stack's topics start again at 0.
    if ('consumer_offsets' in m.postgres.counts) await c.query('DELETE FROM consumer_offsets');
    if (target.dropSecrets) {
      const gone = await c.query<{ key: string }>('DELETE FROM settings WHERE value::text ~ $1 RETURNING key', [
        CIPHERTEXT_IN_JSON,
      ]);
      log(`--without-secrets-key: removed settings ${gone.rows.map((r) => r.key).join(', ') || '(none held a secret)'}`);
    }
  } finally {
    await c.end().catch(() => {});
  }
  await migratePostgres(config.databaseUrl, log);
  // After the migrations: a backup older than the second factor has no TOTP columns yet.
  if (target.dropSecrets) await dropTotpSecrets(config.databaseUrl, log);
  return postgres;
}

/** The users' TOTP secrets are encrypted with the lost key too: those users log in with the password and enrol again. */
async function dropTotpSecrets(url: string, log: (line: string) => void): Promise<void> {
  const pool = createPostgres(url, 1);
  try {
    const users = await removeEveryTotp(pool);
    log(`--without-secrets-key: removed the second factor (TOTP) of ${users.length ? users.join(', ') : 'no user'}`);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** A new, migrated database; each table streamed in (the views refill the derived tables), then counted. */
async function restoreClickhouse(
  config: Config,
  files: BackupFiles,
  m: Manifest,
  log: (msg: string) => void,
): Promise<Record<string, number>> {
  const server = createClickhouse(config.clickhouseUrl, 'default');
  // On a cluster: on every server, and each replicated table leaves ZooKeeper with it
  const onCluster = config.clickhouseCluster ? ` ON CLUSTER ${ident(config.clickhouseCluster).text}` : '';
  await server
    .command({ query: `DROP DATABASE IF EXISTS ${ident(config.clickhouseDatabase).text}${onCluster}` })
    .finally(() => server.close());
  await migrateClickhouse(config.clickhouseUrl, config.clickhouseDatabase, log, config.clickhouseCluster || undefined);
  const target = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
  const clickhouse: Record<string, number> = {};
  try {
    for (const [t, e] of Object.entries(m.clickhouse.tables)) {
      await importTable(target, config.clickhouseDatabase, t, e, await files.open(e.file));
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
  return clickhouse;
}

/** State folder, then the key in effect must be the backup's. */
async function writeState(config: Config, m: Manifest, state: Map<string, Buffer>, dropSecrets: boolean): Promise<void> {
  await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  const folder = resolve(config.stateDir);
  for (const [f, data] of state) {
    const file = resolve(folder, f);
    // The names were checked against a fixed list (manifest.ts); this keeps every write in the folder regardless.
    if (dirname(file) !== folder) throw new Error(`refusing to write ${file}: outside ${folder}`);
    await writeFile(file, data, { mode: 0o600 });
    await chmod(file, 0o600); // writeFile's mode applies only when it creates the file
  }
  if (
    !dropSecrets &&
    m.state.secrets_key_sha256 &&
    keyFingerprint(await loadSecretsKey(config.actions.secretsKey, config.stateDir)) !== m.state.secrets_key_sha256
  )
    throw new Error("the secrets key in effect after the restore is not the backup's: stored credentials would not decrypt");
}

export async function restore(
  config: Config,
  dir: string,
  opts: RestoreOptions = {},
  log: (msg: string) => void = () => {},
): Promise<RestoreReport> {
  // 1. The backup: its key opens (a wrong passphrase stops here), its manifest names only what a backup holds.
  const files = await openBackupFiles(dir, opts.unseal ?? {});
  const m = await readManifest(files);
  const warnings: string[] = [];
  const pgRestore = await checkBackup(m, files);
  const state = await readState(m, files, warnings);

  // 2. Targets empty, state folder without other secrets, the right secrets key.
  const { refusals, pgState } = await checkTargets(config, state);
  const dropSecrets = await checkSecretsKey(config, m, state.get(SECRETS_KEY_FILE), opts.withoutSecretsKey ?? false, warnings);
  if (m.state.jwt_secret_source === 'environment' && !config.jwtSecret)
    warnings.push('the backup was made with SERVICE_JWT_SECRET set: without the same value every session must log in again');
  else if (!state.has('jwt-secret') && !config.jwtSecret && !existsSync(join(config.stateDir, 'jwt-secret')))
    warnings.push('the JWT secret is not in a backup: the restored service makes a new one, everyone logs in again');
  if (refusals.length && !opts.force)
    throw new Error(`refusing to restore over existing data (use --force to replace it): ${refusals.join('; ')}`);
  for (const r of refusals) log(`--force: replacing: ${r}`);

  // 3. Postgres, 4. ClickHouse, 5. the state folder.
  const postgres = await restorePostgres(config, files, m, { pgRestore, ...pgState, dropSecrets }, log);
  const clickhouse = await restoreClickhouse(config, files, m, log);
  await writeState(config, m, state, dropSecrets);
  log(`restored the backup of ${m.created_at} (version ${m.service_version})`);
  return { manifest: m, postgres, clickhouse, warnings };
}
