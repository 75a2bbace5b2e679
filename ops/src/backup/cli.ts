// `npm run backup -- <dir>` and `npm run restore -- <dir> [--force]` on the configured stores
// (DATABASE_URL, CLICKHOUSE_URL/CLICKHOUSE_DATABASE, SERVICE_STATE_DIR). Keys come from the environment,
// as the stores' settings do (a passphrase on the command line would show in `ps`): BACKUP_PASSPHRASE,
// BACKUP_RECIPIENT (backup) and BACKUP_IDENTITY_FILE (restore); choices are flags. Exit codes: 0 ok,
// 1 failed, 2 usage (a missing key included).
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadConfig } from '@watchpost/runtime';
import { backup } from './backup.ts';
import { restore } from './restore.ts';
import { UsageError, sealFromEnv, unsealFromEnv } from './encryption.ts';

const HELP = `usage: npm run backup -- <dir> [--include-secrets-key] [--unencrypted]
         (a new or empty folder; encrypted to BACKUP_PASSPHRASE or to BACKUP_RECIPIENT, age public keys age1...)
       npm run restore -- <dir> [--force] [--without-secrets-key] [--unencrypted]
         (into empty databases, --force replaces existing data; opened with BACKUP_PASSPHRASE or
          BACKUP_IDENTITY_FILE, an age identity file)`;

const OPTIONS = {
  force: { type: 'boolean' },
  unencrypted: { type: 'boolean' },
  'include-secrets-key': { type: 'boolean' },
  'without-secrets-key': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
const ONLY: Record<string, 'backup' | 'restore'> = {
  force: 'restore',
  'without-secrets-key': 'restore',
  'include-secrets-key': 'backup',
};

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${HELP}\n`);
    return 2;
  }
  const [command, dir, ...extra] = parsed.positionals;
  const flags = parsed.values;
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const misplaced = Object.entries(ONLY).find(([flag, only]) => flags[flag as keyof typeof flags] && command !== only);
  if ((command !== 'backup' && command !== 'restore') || !dir || extra.length || misplaced) {
    process.stderr.write(`${misplaced ? `--${misplaced[0]} is for ${misplaced[1]} only\n` : ''}${HELP}\n`);
    return 2;
  }
  const log = (m: string) => process.stdout.write(`[${command}] ${m}\n`);
  // Keys first: a missing or malformed one stops before any store is touched.
  let seal, unseal;
  try {
    if (command === 'backup') seal = sealFromEnv(process.env, flags.unencrypted ?? false);
    else unseal = await unsealFromEnv(process.env, flags.unencrypted ?? false);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`[${command}] ${err.message}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  if (seal) {
    const m = await backup(config, resolve(dir), { seal, includeSecretsKey: flags['include-secrets-key'] }, log);
    for (const n of m.not_included) log(`not included: ${n}`);
  } else {
    const r = await restore(
      config,
      resolve(dir),
      { force: flags.force, unseal, withoutSecretsKey: flags['without-secrets-key'] },
      log,
    );
    for (const w of r.warnings) log(`warning: ${w}`);
    log('counts match the manifest');
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`[${process.argv[2] ?? 'backup'}] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
