// The process side of a server a test runs itself (clickhouse-server.ts, postgres-server.ts,
// redis-server.ts, redis-sentinel.ts, kafka-cluster.ts): start it until it answers its own protocol,
// kill -9 it, start it again on the same data and ports, stop it. Kept in one place so that every such
// server survives a restart the same way (a port or shared memory a killed server held may be refused
// for a moment) and so that a test's fault is the same kill -9 whatever the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The child has not exited (nor been ended by a signal). */
export const isRunning = (c: ChildProcess | undefined): c is ChildProcess =>
  c !== undefined && c.exitCode === null && c.signalCode === null;

/** Sends `signal` (SIGKILL after `killAfterMs`, if given); resolves once the child is gone. */
export async function endProcess(c: ChildProcess | undefined, signal: NodeJS.Signals, killAfterMs?: number): Promise<void> {
  if (!isRunning(c)) return;
  const exited = once(c, 'exit');
  const t = killAfterMs === undefined ? undefined : setTimeout(() => c.kill('SIGKILL'), killAfterMs);
  c.kill(signal);
  await exited;
  clearTimeout(t);
}

export interface ServerCommand {
  /** For the error when it does not start. */
  name: string;
  cmd: string;
  args: string[];
  /** Run as this OS user (PostgreSQL as root runs as `postgres`). */
  user?: { uid: number; gid: number };
  /** Resolves true once the server answers its own protocol (not merely an open port). */
  answers(): Promise<boolean>;
  /** How long one launch may take, tries again included. */
  startMs: number;
  /** Between two probes of a starting server. */
  pollMs: number;
  /** Before another try once a start failed. */
  retryMs: number;
}

interface ServerProcess {
  /**
   * Starts the server; resolves once it answers. A server that exits (or does not answer) is killed and
   * started again until `startMs` has passed: a port or shared memory a server killed a moment ago held
   * may be refused for a while.
   */
  launch: () => Promise<void>;
  pid: () => number | undefined;
  /** SIGKILL; resolves once the server is gone. */
  kill9: () => Promise<void>;
  /** `signal`, SIGKILL after `killAfterMs` if given; resolves once the server is gone. */
  end: (signal: NodeJS.Signals, killAfterMs?: number) => Promise<void>;
  /** The last 4 kB it printed. */
  output: () => string;
}

function serverProcess(s: ServerCommand): ServerProcess {
  let child: ChildProcess | undefined;
  let output = '';

  async function launch(): Promise<void> {
    const deadline = Date.now() + s.startMs;
    for (;;) {
      const c = spawn(s.cmd, s.args, { stdio: ['ignore', 'pipe', 'pipe'], ...(s.user ?? {}) });
      const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
      c.stdout!.on('data', keep);
      c.stderr!.on('data', keep);
      child = c;
      while (isRunning(c)) {
        if (await s.answers()) return;
        if (Date.now() > deadline) break;
        await sleep(s.pollMs);
      }
      await endProcess(c, 'SIGKILL');
      if (Date.now() > deadline) throw new Error(`${s.name} did not start: ${output}`);
      await sleep(s.retryMs);
    }
  }

  return {
    launch,
    pid: () => (isRunning(child) ? child.pid : undefined),
    kill9: () => endProcess(child, 'SIGKILL'),
    end: (signal, killAfterMs) => endProcess(child, signal, killAfterMs),
    output: () => output,
  };
}

/** A server a test runs itself, in a temp dir of its own. */
export interface OwnServer {
  url: string;
  pid(): number | undefined;
  /** SIGKILL to the server; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts the server again on the same data dir and ports; resolves once it answers. */
  restart(): Promise<void>;
  /** Ends the server (its own shutdown signal) and removes its dir. */
  stop(): Promise<void>;
}

/**
 * Launches `s` (resolves once it answers) as an OwnServer whose files live in `dir`; stop() sends
 * `shutdown.signal` (SIGKILL after `shutdown.killAfterMs`, if given) and removes `dir`.
 */
export async function startOwnServer(
  url: string,
  dir: string,
  s: ServerCommand,
  shutdown: { signal: NodeJS.Signals; killAfterMs?: number },
): Promise<OwnServer> {
  const server = serverProcess(s);
  await server.launch();
  return {
    url,
    pid: server.pid,
    kill9: server.kill9,
    restart: server.launch,
    async stop() {
      await server.end(shutdown.signal, shutdown.killAfterMs);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
