// One role as its own process (`node ops/src/start.ts <role>`) on the test's stores, for the tests that
// kill -9 it mid-stream and check what the next process makes of it (processors' crash and scale-out
// tests). Spawned by path: nothing of ops or the roles is imported here. Unlike startServiceProcess
// (outage-load.ts) nothing waits for /healthz: these tests wait for the role's own progress in the stores,
// and kill it at any point of its start.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, type Config } from '@watchpost/runtime';

/**
 * The environment of a role process on the test's databases and topics, no HTTP port of its own, errors
 * only; `extra` is the role's own settings.
 */
export function crashChildEnv(config: Config, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: config.databaseUrl,
    KAFKA_TOPIC_PREFIX: config.topicPrefix,
    CLICKHOUSE_DATABASE: config.clickhouseDatabase,
    PORT: '0',
    LOG_LEVEL: 'error',
    ...extra,
  };
}

export interface CrashChildren {
  /** Spawns `node ops/src/start.ts <role>` with `env` (crashChildEnv). */
  start(role: string, env: NodeJS.ProcessEnv): ChildProcess;
  /** SIGKILL to every child still running, so that none outlives its test. */
  killAll(): void;
  /** The last 4,000 characters the children wrote to stderr; always empty unless started with `keepStderr`. */
  stderr(): string;
}

/**
 * The role processes of one test file (or test). Their stderr goes to the test's own stderr, or with
 * `keepStderr` into `stderr()`, for a failed expectation to show.
 */
export function crashChildren(opts: { keepStderr?: boolean } = {}): CrashChildren {
  const running = new Set<ChildProcess>();
  let stderr = '';
  return {
    start(role, env) {
      const child = spawn(join(repoRoot, 'node_modules/.bin/node'), ['ops/src/start.ts', role], {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'ignore', opts.keepStderr ? 'pipe' : 'inherit'],
      });
      if (opts.keepStderr) child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
      running.add(child);
      child.on('exit', () => running.delete(child));
      return child;
    },
    killAll() {
      for (const c of running) c.kill('SIGKILL');
    },
    stderr: () => stderr,
  };
}

/** Resolves once the child has ended (at once when it already has). */
export function childExited(c: ChildProcess): Promise<void> {
  return new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));
}
