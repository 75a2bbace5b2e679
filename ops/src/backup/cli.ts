// `npm run backup -- <dir>` and `npm run restore -- <dir> [--force]` on the configured stores
// (DATABASE_URL, CLICKHOUSE_URL/CLICKHOUSE_DATABASE, SERVICE_STATE_DIR). Exit codes: 0 ok, 1 failed, 2 usage.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadConfig } from '@watchpost/runtime';
import { backup } from './backup.ts';
import { restore } from './restore.ts';

const HELP = `usage: npm run backup -- <dir>            (a new or empty folder)
       npm run restore -- <dir> [--force]  (into empty databases; --force replaces existing data)`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${HELP}\n`);
    return 2;
  }
  const [command, dir, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if ((command !== 'backup' && command !== 'restore') || !dir || extra.length || (command === 'backup' && parsed.values.force)) {
    process.stderr.write(`${HELP}\n`);
    return 2;
  }
  const log = (m: string) => process.stdout.write(`[${command}] ${m}\n`);
  const config = loadConfig(process.env);
  if (command === 'backup') {
    const m = await backup(config, resolve(dir), log);
    for (const n of m.not_included) log(`not included: ${n}`);
  } else {
    const r = await restore(config, resolve(dir), { force: parsed.values.force }, log);
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
