import { runner } from 'node-pg-migrate';
import { join } from 'node:path';
import { createPostgresClient, repoRoot } from '@watchpost/runtime';

export const postgresMigrationsDir = join(repoRoot, 'core', 'migrations', 'postgres');

/** Creates the database named in the URL when it is missing (the local stack starts with none). */
export async function ensurePostgresDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unsupported database name in DATABASE_URL: ${name}`);
  u.pathname = '/postgres';
  const client = createPostgresClient({ connectionString: u.toString() });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) {
      await client.query(`CREATE DATABASE ${name}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

export async function migratePostgres(url: string, log: (msg: string) => void = () => {}): Promise<string[]> {
  await ensurePostgresDatabase(url);
  // Our own client (node-pg-migrate's has no error listener): a lost server fails the run, not the process.
  const client = createPostgresClient({ connectionString: url });
  await client.connect();
  const done = await runner({
    dbClient: client,
    dir: postgresMigrationsDir,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    singleTransaction: true,
    // Branches developed in parallel land migrations out of number order; run whichever are missing.
    checkOrder: false,
    log,
    logger: { debug: () => {}, info: log, warn: log, error: log },
  }).finally(() => client.end().catch(() => {}));
  return done.map((m) => m.name);
}
