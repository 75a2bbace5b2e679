// Management CLI on the service's database (DATABASE_URL): `npm run cli -- <command>`.
//   users add <name> --role admin|monitor     password read from stdin (first line), min 12 characters
//   users list | set-role <name> --role R | deactivate <name> | activate <name> | reset-password <name> | reset-totp <name>
//   | remove <name>
//   api-keys create <name>                    prints the key once (prefix SERVICE_AGENT_KEY_PREFIX, default sac_)
//   api-keys import <name> | --name <name>    registers an existing agent key read from stdin (stored hashed)
//   api-keys list | revoke <id|name>          (`agent-keys` is the same command group)
// Exit codes: 0 ok, 1 refused/failed, 2 usage or configuration error.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@watchpost/runtime';
import { createPostgres } from '@watchpost/runtime';
import { usersCommand } from './users.ts';
import { apiKeysCommand } from './api-keys.ts';
import { UsageError } from './io.ts';

const HELP = `usage: npm run cli -- <command>
  users add <name> --role admin|monitor   (password on stdin)
  users list
  users set-role <name> --role admin|monitor
  users deactivate <name>
  users activate <name>
  users reset-password <name>             (password on stdin)
  users reset-totp <name>                 (removes the second factor of a user locked out of it)
  users remove <name>                     (ends its sessions, removes its devices; never the last active admin)
  api-keys create <name>                  (prints the key once; prefix SERVICE_AGENT_KEY_PREFIX, default sac_)
  api-keys import <name>                  (or --name <name>; registers a key agents already have, read
                                           from stdin: api-keys import gw-01 < key.txt; stored hashed,
                                           never printed; 24-512 printable ASCII characters, no spaces)
  api-keys list
  api-keys revoke <id|name>
  (agent-keys is another name for api-keys)`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { role: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${HELP}\n`);
    return 2;
  }
  const [group, ...rest] = parsed.positionals;
  if (parsed.values.help || !group) {
    process.stdout.write(`${HELP}\n`);
    return group || parsed.values.help ? 0 : 2;
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const pool = createPostgres(config.databaseUrl, 2);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  try {
    if (group === 'users') await usersCommand(pool, rest, parsed.values, out);
    else if (group === 'api-keys' || group === 'agent-keys')
      await apiKeysCommand(pool, rest, out, { prefix: config.agentKeyPrefix, name: parsed.values.name });
    else throw new UsageError(`unknown command "${group}"\n${HELP}`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    const e = err as Error & { code?: string };
    // Expected refusals (duplicate user, invalid name) are one line, not a stack trace.
    process.stderr.write(`error: ${e.code === '42P01' ? 'the database is not migrated (run `npm run migrate`)' : e.message}\n`);
    return 1;
  } finally {
    await pool.end();
  }
}

process.exitCode = await main(process.argv.slice(2));
