// The backup folder: manifest.json (what is inside and how many rows), postgres.dump (pg_dump custom
// format), clickhouse/<table>.tsv.gz (TabSeparated, gzip), state/<file> (the state folder's secrets).
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
export const POSTGRES_FILE = 'postgres.dump';
export const CLICKHOUSE_DIR = 'clickhouse';
export const STATE_DIR = 'state';
export const MANIFEST_FORMAT = 1;

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
    /** Files copied from SERVICE_STATE_DIR into state/. */
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

export async function writeManifest(dir: string, m: Manifest): Promise<void> {
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(m, null, 2)}\n`, { mode: 0o600 });
}

export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch (err) {
    throw new Error(`${dir} is not a backup: ${MANIFEST_FILE} cannot be read (${(err as Error).message})`, { cause: err });
  }
  const m = JSON.parse(text) as Manifest;
  if (m.format !== MANIFEST_FORMAT)
    throw new Error(`unsupported backup format ${String(m.format)} (this version reads ${MANIFEST_FORMAT})`);
  return m;
}
