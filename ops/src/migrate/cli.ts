import { loadConfig } from '@watchpost/runtime';
import { migrateAll } from '@watchpost/core/migrate';

try {
  await migrateAll(loadConfig(), (m) => process.stdout.write(`[migrate] ${m}\n`));
  process.stdout.write('[migrate] up to date\n');
} catch (err) {
  process.stderr.write(`[migrate] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
