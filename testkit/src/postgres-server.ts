// A PostgreSQL server of a test's own (Debian's postgresql binaries, initdb into a temp dir, a free
// loopback port, trust auth), for faults a test must not apply to the shared stack Postgres: kill -9 of
// the postmaster, then a restart on the same data dir and port. As root it runs as the `postgres` OS
// user, as the local stack does (ops/src/stack/cli.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';

export interface OwnPostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** The postmaster's pid while it runs. */
  pid(): number | undefined;
  /** SIGKILL to the postmaster (its backends notice and exit on their own); resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts the postmaster again on the same data dir and port; resolves once it answers. */
  restart(): Promise<void>;
  /** Fast shutdown (or SIGKILL after 10 s) and removes the data dir. */
  stop(): Promise<void>;
}

function pgBin(name: string): string {
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) {
    const p = `/usr/lib/postgresql/${v}/bin/${name}`;
    if (existsSync(p)) return p;
  }
  throw new Error(`no PostgreSQL ${name} under /usr/lib/postgresql (npm run stack:up installs it)`);
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root but there is no postgres OS user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
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
  const user = postgresUser();
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
  let child: ChildProcess | undefined;
  let output = '';

  async function launch(): Promise<void> {
    // After a kill -9 the old backends hold the shared memory until they notice the postmaster is gone,
    // so a new postmaster may refuse to start for a moment: try again until the deadline.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const c = spawn(pgBin('postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) });
      const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
      c.stdout!.on('data', keep);
      c.stderr!.on('data', keep);
      child = c;
      while (c.exitCode === null && c.signalCode === null) {
        if (await ping(url)) return;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await once(c, 'exit');
      }
      if (Date.now() > deadline) throw new Error(`postgres on port ${port} did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  async function kill(signal: NodeJS.Signals): Promise<void> {
    if (!running()) return;
    const exited = once(child!, 'exit');
    child!.kill(signal);
    await exited;
  }

  await launch();
  return {
    port,
    url,
    pid: () => (running() ? child!.pid : undefined),
    kill9: () => kill('SIGKILL'),
    restart: launch,
    async stop() {
      if (running()) {
        const exited = once(child!, 'exit');
        const t = setTimeout(() => child!.kill('SIGKILL'), 10_000);
        child!.kill('SIGINT'); // fast shutdown
        await exited;
        clearTimeout(t);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
