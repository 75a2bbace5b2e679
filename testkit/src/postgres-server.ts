// A PostgreSQL server of a test's own (Debian's postgresql binaries, initdb into a temp dir, a free
// loopback port, trust auth), for faults a test must not apply to the shared stack Postgres: kill -9 of
// the postmaster, then a restart on the same data dir and port. As root it runs as the `postgres` OS
// user, as the local stack does (ops/src/stack/cli.ts).
import { spawnSync } from 'node:child_process';
import { chown, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findPostgresBin, postgresOsUser } from '@watchpost/runtime';
import { freePort } from './ports.ts';
import { startOwnServer, type OwnServer } from './own-server.ts';

/**
 * url: postgres://postgres@127.0.0.1:<port>/postgres; pid(): the postmaster's; kill9(): the postmaster
 * only (its backends notice and exit on their own); stop(): fast shutdown (SIGKILL after 10 s).
 */
export interface OwnPostgres extends OwnServer {
  port: number;
}

function pgBin(name: string): string {
  const p = findPostgresBin(name);
  if (!p) throw new Error(`no PostgreSQL ${name} under /usr/lib/postgresql (npm run stack:up installs it)`);
  return p;
}

async function ping(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

/** initdb + postgres with the given extra settings (`-c name=value`). */
export async function startPostgresServer(settings: Record<string, string> = {}): Promise<OwnPostgres> {
  const user = postgresOsUser();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-pg-'));
  if (user) await chown(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const init = spawnSync(
    pgBin('initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
    { encoding: 'utf8', ...(user ?? {}) },
  );
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  const conf: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    max_connections: '100',
    shared_buffers: '32MB',
    // A killed process loses nothing the OS has; only a machine crash would need fsync.
    fsync: 'off',
    logging_collector: 'off',
    ...settings,
  };
  const args = ['-D', data, '-p', String(port), '-k', dir, ...Object.entries(conf).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // After a kill -9 the old backends hold the shared memory until they notice the postmaster is gone,
  // so a new postmaster may refuse to start for a moment: the launch tries again until the deadline.
  const server = await startOwnServer(
    url,
    dir,
    {
      name: `postgres on port ${port}`,
      cmd: pgBin('postgres'),
      args,
      user,
      answers: () => ping(url),
      startMs: 30_000,
      pollMs: 100,
      retryMs: 250,
    },
    { signal: 'SIGINT', killAfterMs: 10_000 }, // fast shutdown
  );
  return { port, ...server };
}
