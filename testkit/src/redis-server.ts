// A Redis server of a test's own (Debian's redis-server, a free loopback port, no persistence unless
// asked), for settings a test must not apply to the shared stack Redis (a tiny maxmemory, for example)
// and for faults: kill -9, then a restart on the same port and dir (with `{ appendonly: 'yes' }` it
// reloads what it had acknowledged, as the stack's Redis does).
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startOwnServer, type OwnServer } from './own-server.ts';

/** restart(): resolves once it answers PING; stop(): SIGTERM. */
export interface OwnRedis extends OwnServer {
  port: number;
}

/** One PING over a plain socket: true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Starts `redis-server` with `noeviction` and the given extra settings (e.g. `{ maxmemory: '2mb' }`). */
export async function startRedisServer(settings: Record<string, string> = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  for (const [k, v] of Object.entries({ 'maxmemory-policy': 'noeviction', ...settings })) args.push(`--${k}`, v);
  const url = `redis://127.0.0.1:${port}`;
  // The port of a server just killed may take a moment to be free again: the launch tries again.
  const server = await startOwnServer(
    url,
    dir,
    {
      name: `redis-server on port ${port}`,
      cmd: 'redis-server',
      args,
      answers: () => ping(port),
      startMs: 15_000,
      pollMs: 50,
      retryMs: 200,
    },
    { signal: 'SIGTERM' },
  );
  return { port, ...server };
}
