// Where a PostgreSQL server of our own comes from on this machine: Debian's postgresql binaries (the
// newest installed version) and, as root, the `postgres` OS user it must run as (PostgreSQL refuses to
// run as root). Shared by the local stack (ops/src/stack/cli.ts) and a test's own server
// (testkit/src/postgres-server.ts), so that both pick the same binaries and the same user.
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const PG_LIB = '/usr/lib/postgresql';

/** The path of a PostgreSQL program (`initdb`, `postgres`) of the newest installed version, or undefined when none has it. */
export function findPostgresBin(name: string): string | undefined {
  if (!existsSync(PG_LIB)) return undefined;
  const versions = readdirSync(PG_LIB).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const p = `${PG_LIB}/${v}/bin/${name}`;
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** As root: the uid and gid of the `postgres` OS user to run PostgreSQL as (throws when there is none); else undefined. */
export function postgresOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root but there is no postgres OS user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
