// The backup folder: manifest.json (what is inside and how many rows), postgres.dump (pg_dump custom
// format), clickhouse/<table>.tsv.gz (TabSeparated, gzip), state/secrets-key (only when asked for).
// Encrypted (encryption.ts): key.age, and each of those as <name>.age, the manifest included, so a
// manifest cannot be altered without the key.
import { SECRETS_KEY_FILE } from '@watchpost/core/secrets';
import { BOOTSTRAP_KEY_FILE } from '@watchpost/core/agent-keys';
import { createHash } from 'node:crypto';
import type { BackupFiles } from './encryption.ts';

export const MANIFEST_FILE = 'manifest.json';
export const POSTGRES_FILE = 'postgres.dump';
export const CLICKHOUSE_DIR = 'clickhouse';
export const STATE_DIR = 'state';
/** 2: encrypted (or --unencrypted), without the JWT secret, the bootstrap key and the first admin password. */
export const MANIFEST_FORMAT = 2;
/** Format 1 (unencrypted, held all four state files) is still restored. */
const READABLE_FORMATS = [1, 2];

/**
 * The state folder files a backup of each format may name: format 1 copied the settings secrets key, the
 * JWT secret (api/src/auth/secret.ts), the generated bootstrap agent key and first admin password
 * (api/src/auth/first-admin.ts); format 2 at most the secrets key.
 */
export const STATE_FILE_NAMES: Record<number, readonly string[]> = {
  1: [SECRETS_KEY_FILE, 'jwt-secret', BOOTSTRAP_KEY_FILE, 'initial-admin-password'],
  2: [SECRETS_KEY_FILE],
};

export interface ClickhouseTableEntry {
  file: string;
  engine: string;
  /** Columns exported, in file order (restored with this explicit list). */
  columns: { name: string; type: string }[];
  /** Rows in the file (exactly: counted while writing it). */
  rows: number;
  /** Exported with FINAL (merging engines): rows are what readers see, and later merges cannot collapse them. */
  final: boolean;
}

export interface Manifest {
  format: number;
  created_at: string;
  service_version: string;
  /** `age`: every file but key.age is <name>.age (format 2; format 1 backups are `none`). */
  encryption?: 'age' | 'none';
  postgres: {
    server_version: string;
    pg_dump_version: string;
    /** node-pg-migrate names applied (pgmigrations), in run order. */
    migrations: string[];
    /** Rows per table of the public schema, in the same snapshot as the dump. */
    counts: Record<string, number>;
  };
  clickhouse: {
    server_version: string;
    database: string;
    migrations: string[];
    tables: Record<string, ClickhouseTableEntry>;
    /** Targets of materialized views: not exported, refilled when their source table is restored. */
    derived: string[];
  };
  state: {
    /** Files copied from SERVICE_STATE_DIR into state/ (format 2: the secrets key, with --include-secrets-key). */
    files: string[];
    /** sha256 of the settings secrets key in effect (identifies it, reveals nothing). */
    secrets_key_sha256: string | null;
    /** `none`: no key existed, so nothing was encrypted. */
    secrets_key_source: 'file' | 'environment' | 'none';
    jwt_secret_source: 'file' | 'environment' | 'none';
  };
  not_included: string[];
}

export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A ClickHouse table name as the migrations write them (and nothing a path could be made of). */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const tableFile = (table: string) => `${CLICKHOUSE_DIR}/${table}.tsv.gz`;

/** Why a manifest's file name is not one a backup holds: absolute paths and `..` named as such first. */
function badName(name: unknown, known: (n: string) => boolean, unknown: string): string | undefined {
  if (typeof name !== 'string' || name === '') return 'not a file name';
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split(/[/\\]/).includes('..')) return 'a parent folder (..)';
  if (known(name)) return undefined;
  return unknown;
}

/**
 * Restore writes and reads only the files a backup holds: state files by their fixed names (no path
 * separator), ClickHouse files as clickhouse/<table>.tsv.gz of their own table. Anything else is refused,
 * every entry named, before anything is written.
 */
export function checkManifestNames(m: Manifest): void {
  const problems: string[] = [];
  const stateNames = STATE_FILE_NAMES[m.format] ?? [];
  const files: unknown = m.state?.files;
  if (!Array.isArray(files)) problems.push('state.files is not a list');
  else
    for (const f of files as unknown[]) {
      const sep = typeof f === 'string' && /[/\\]/.test(f);
      const why = badName(f, (n) => stateNames.includes(n), sep ? 'a path separator' : 'an unknown name');
      if (why) problems.push(`state file ${JSON.stringify(f)}: ${why}`);
    }
  const tables: unknown = m.clickhouse?.tables;
  if (!tables || typeof tables !== 'object') problems.push('clickhouse.tables is not an object');
  else
    for (const [t, e] of Object.entries(tables as Record<string, { file?: unknown } | null>)) {
      if (!TABLE_NAME.test(t)) problems.push(`ClickHouse table ${JSON.stringify(t)}: not a table name`);
      const why = badName(e?.file, (n) => TABLE_NAME.test(t) && n === tableFile(t), `not ${tableFile(t)}`);
      if (why) problems.push(`ClickHouse file ${JSON.stringify(e?.file)} of table ${JSON.stringify(t)}: ${why}`);
    }
  if (problems.length)
    throw new Error(
      `refusing the backup: its manifest names files a backup does not hold (nothing was written): ${problems.join('; ')}`,
    );
}

export async function writeManifest(files: BackupFiles, m: Manifest): Promise<void> {
  await files.write(MANIFEST_FILE, `${JSON.stringify(m, null, 2)}\n`);
}

export async function readManifest(files: BackupFiles): Promise<Manifest> {
  let text: string;
  try {
    text = (await files.read(MANIFEST_FILE)).toString('utf8');
  } catch (err) {
    throw new Error(`${files.path(MANIFEST_FILE)} cannot be read (${(err as Error).message})`, { cause: err });
  }
  const m = JSON.parse(text) as Manifest;
  if (!READABLE_FORMATS.includes(m.format))
    throw new Error(`unsupported backup format ${String(m.format)} (this version reads ${READABLE_FORMATS.join(', ')})`);
  if (m.format >= 2 && (m.encryption === 'age') !== files.encrypted)
    throw new Error(`the manifest says encryption ${String(m.encryption)}, the files say otherwise`);
  checkManifestNames(m);
  return m;
}
