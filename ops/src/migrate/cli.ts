import { loadConfig, startupWarnings } from '@watchpost/runtime';
import { migrateAll } from '@watchpost/core/migrate';

try {
  const config = loadConfig();
  for (const w of startupWarnings(config)) process.stderr.write(`[migrate] warning: ${w}\n`);
  await migrateAll(config, (m) => process.stdout.write(`[migrate] ${m}\n`));
  process.stdout.write('[migrate] up to date\n');
} catch (err) {
  process.stderr.write(`[migrate] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
