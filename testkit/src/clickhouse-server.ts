// A ClickHouse server of a test's own (Debian's clickhouse-server, free loopback ports, a temp data
// dir), for faults a test must not apply to the shared stack's: kill -9, then a restart on the same
// data dir and ports. Its config files are the caller's: the ops tests pass the local stack's
// (ops/src/stack/templates.ts, which the test kit may not import), so the server killed is configured
// as the one the stack runs.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startOwnServer, type OwnServer } from './own-server.ts';

/** url: http://127.0.0.1:<httpPort>; stop(): SIGTERM (SIGKILL after 15 s). */
export interface OwnClickhouse extends OwnServer {
  httpPort: number;
}

/** The server's config files: config.xml for its dir and ports (logs in <dir>/log, data in <dir>/data, users in <dir>/users.xml), users.xml. */
export interface ClickhouseServerFiles {
  config(dir: string, httpPort: number, tcpPort: number): string;
  users: string;
}

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/?query=SELECT%201`, { signal: AbortSignal.timeout(1000) });
    return r.ok && (await r.text()).trim() === '1';
  } catch {
    return false;
  }
}

export async function startClickhouseServer(files: ClickhouseServerFiles): Promise<OwnClickhouse> {
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-ch-'));
  for (const d of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) await mkdir(join(dir, d), { recursive: true });
  await writeFile(join(dir, 'config.xml'), files.config(dir, httpPort, tcpPort));
  await writeFile(join(dir, 'users.xml'), files.users);
  const url = `http://127.0.0.1:${httpPort}`;
  const server = await startOwnServer(
    url,
    dir,
    {
      name: `clickhouse-server on port ${httpPort}`,
      cmd: 'clickhouse-server',
      args: ['--config-file', join(dir, 'config.xml')],
      answers: () => answers(url),
      startMs: 60_000,
      pollMs: 200,
      retryMs: 500,
    },
    { signal: 'SIGTERM', killAfterMs: 15_000 },
  );
  return { httpPort, ...server };
}
