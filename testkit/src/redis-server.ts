// A Redis server of a test's own (Debian's redis-server, a free loopback port, no persistence unless
// asked), for settings a test must not apply to the shared stack Redis (a tiny maxmemory, for example)
// and for faults: kill -9, then a restart on the same port and dir (with `{ appendonly: 'yes' }` it
// reloads what it had acknowledged, as the stack's Redis does).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface OwnRedis {
  port: number;
  url: string;
  /** SIGKILL to the server; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts the server again on the same port and dir; resolves once it answers PING. */
  restart(): Promise<void>;
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

/** Starts `redis-server` with `noeviction` and the given extra settings (e.g. `{ maxmemory: '2mb' }`). */
export async function startRedisServer(settings: Record<string, string> = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  for (const [k, v] of Object.entries({ 'maxmemory-policy': 'noeviction', ...settings })) args.push(`--${k}`, v);
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    const c = spawn('redis-server', args, { stdio: 'ignore' });
    child = c;
    // The port of a server just killed may take a moment to be free again: retried until the deadline.
    const deadline = Date.now() + 15_000;
    while (!(await ping(port))) {
      if (Date.now() > deadline) {
        c.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not start`);
      }
      if (c.exitCode !== null || c.signalCode !== null) {
        await new Promise((r) => setTimeout(r, 200));
        return launch();
      }
      await new Promise((r) => setTimeout(r, 50));
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
    kill9: () => kill('SIGKILL'),
    restart: launch,
    async stop() {
      await kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
