// A Redis server of a test's own (Debian's redis-server, a free loopback port, no persistence), for
// settings a test must not apply to the shared stack Redis (a tiny maxmemory, for example).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OwnRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const port = (srv.address() as { port: number }).port;
        srv.close(() => resolve(port));
      });
  });
}

/** Starts `redis-server` with `noeviction` and the given extra settings (e.g. `{ maxmemory: '2mb' }`). */
export async function startRedisServer(settings: Record<string, string> = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  for (const [k, v] of Object.entries({ 'maxmemory-policy': 'noeviction', ...settings })) args.push(`--${k}`, v);
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = once(child, 'exit');
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
