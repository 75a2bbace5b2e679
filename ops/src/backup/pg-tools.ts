// pg_dump / pg_restore: the Debian PostgreSQL package the local stack runs (/usr/lib/postgresql/<major>/bin,
// newest first, as ops/src/stack/cli.ts finds `postgres`), else the ones on PATH (postgresql-client).
// Always spawned with an argument array; the password travels in PGPASSWORD, never on the command line.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type PgTool = 'pg_dump' | 'pg_restore';

export function findPgTool(name: PgTool): string {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    for (const m of majors) {
      const p = join(debian, m, 'bin', name);
      if (existsSync(p)) return p;
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  throw new Error(
    `${name} not found: install the PostgreSQL client tools (Debian: postgresql-client) of the server's major version or newer`,
  );
}

/** `pg_dump (PostgreSQL) 15.20 (Debian ...)` → 15. */
export function toolMajor(versionLine: string): number {
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(versionLine);
  if (!m) throw new Error(`cannot read the version of: ${versionLine.trim()}`);
  return Number(m[1]);
}

/** A libpq URL without its password, and the password for PGPASSWORD. */
export function splitPassword(url: string): { url: string; password: string | undefined } {
  const u = new URL(url);
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  u.password = '';
  return { url: u.toString(), password };
}

function toolEnv(password: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (password !== undefined) env.PGPASSWORD = password;
  return env;
}

/** Runs a tool to completion; rejects with its stderr on a non-zero exit. */
export function runPgTool(bin: string, args: string[], password?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: toolEnv(password), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${bin} exited with ${code}: ${err.trim() || out.trim()}`));
    });
  });
}

/**
 * Runs a tool whose standard output is data (pg_dump's archive, so it is encrypted on its way to disk
 * and never lies there in clear), handed to `sink`; rejects with its stderr on a non-zero exit.
 */
export async function runPgToolStreaming(
  bin: string,
  args: string[],
  password: string | undefined,
  sink: (stdout: Readable) => Promise<void>,
): Promise<void> {
  const child = spawn(bin, args, { env: toolEnv(password), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  exited.catch(() => {}); // awaited below; a spawn error must not count as unhandled meanwhile
  try {
    await sink(child.stdout);
  } catch (e) {
    child.kill();
    await exited.catch(() => {});
    throw e;
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${bin} exited with ${code}: ${err.trim()}`);
}
