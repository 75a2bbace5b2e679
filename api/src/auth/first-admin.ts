// The first admin at first start (no user exists yet): SERVICE_ADMIN_USERNAME / SERVICE_ADMIN_PASSWORD,
// or, without a password, a generated one written to `<stateDir>/initial-admin-password` (mode 0600);
// the printed line says where it is, never the password. An advisory lock keeps two processes from racing.
import { randomBytes } from 'node:crypto';
import { writeSecretFile } from '@watchpost/runtime';
import { join } from 'node:path';
import type { Config, Logger } from '@watchpost/runtime';
import { withTransaction, type Pool } from '@watchpost/runtime';
import { createUser } from '@watchpost/core/users';

export const INITIAL_ADMIN_FILE = 'initial-admin-password';

export async function ensureFirstAdmin(
  pool: Pool,
  config: Pick<Config, 'admin' | 'stateDir'>,
  log: Pick<Logger, 'info'>,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<'created' | 'generated' | 'exists'> {
  let generated: string | undefined;
  const outcome = await withTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('watchpost.users.first_admin'))");
    const any = await c.query('SELECT 1 FROM users LIMIT 1');
    if (any.rowCount) return 'exists' as const;
    const password = config.admin.password ?? randomBytes(18).toString('base64url');
    if (!config.admin.password) generated = password;
    await createUser(c, { username: config.admin.username, password, role: 'admin' });
    if (generated) {
      // Written before COMMIT: if the file cannot be written, no admin exists whose password nobody knows.
      await writeSecretFile(config.stateDir, INITIAL_ADMIN_FILE, generated);
    }
    return generated ? ('generated' as const) : ('created' as const);
  });
  if (outcome !== 'exists') log.info({ username: config.admin.username, outcome }, 'first admin user created');
  if (generated) {
    print(
      `watchpost: created admin user "${config.admin.username}" with a generated password; read it from ${join(config.stateDir, INITIAL_ADMIN_FILE)} (mode 0600)`,
    );
  }
  return outcome;
}
