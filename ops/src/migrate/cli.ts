import { loadConfig } from '@watchpost/runtime/config/config.ts';
import { migrateAll } from './index.ts';

try {
  await migrateAll(loadConfig(), (m) => process.stdout.write(`[migrate] ${m}\n`));
  process.stdout.write('[migrate] up to date\n');
} catch (err) {
  process.stderr.write(`[migrate] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
