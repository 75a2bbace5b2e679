// `cli api-keys ...` (alias `agent-keys`): agent API keys (core/src/agent-keys.ts).
import type { Pool } from '@watchpost/runtime';
import { ApiKeyImportError, createApiKey, importApiKey, listApiKeys, revokeApiKey } from '@watchpost/core/agent-keys';
import { audit } from '@watchpost/core/audit';
import { readSecret, RefusedError, UsageError } from './io.ts';

export interface ApiKeysOptions {
  /** SERVICE_AGENT_KEY_PREFIX (config.agentKeyPrefix): prefix of created keys. */
  prefix: string;
  /** `--name`, an alternative to the positional name. */
  name?: string | undefined;
}

export async function apiKeysCommand(pool: Pool, args: string[], out: (s: string) => void, opts: ApiKeysOptions): Promise<void> {
  const [sub, positional] = args;
  const arg = positional ?? opts.name;
  switch (sub) {
    case 'create': {
      if (!arg?.trim()) throw new UsageError('usage: api-keys create <name>');
      const { id, key } = await createApiKey(pool, arg, { prefix: opts.prefix });
      await audit(pool, { actor: 'cli', address: null, action: 'api_key.create', target: arg.trim(), details: { id } });
      // The key itself goes alone on stdout (scripts capture it); the note goes to stderr.
      process.stderr.write(`created API key ${id} "${arg.trim()}"; it is shown this once:\n`);
      out(key);
      return;
    }
    case 'import': {
      if (!arg?.trim())
        throw new UsageError('usage: api-keys import <name>  (the key on stdin, e.g. `api-keys import gw-01 < key.txt`)');
      // From stdin (or a prompt without echo), never from an argument: it would land in shell history.
      const key = await readSecret('Agent key: ');
      let imported;
      try {
        imported = await importApiKey(pool, arg, key);
      } catch (err) {
        if (err instanceof ApiKeyImportError) {
          if (err.reason === 'duplicate') throw new RefusedError(err.message);
          throw new UsageError(`${err.message} (read from stdin)`);
        }
        throw err;
      }
      await audit(pool, {
        actor: 'cli',
        address: null,
        action: 'api_key.import',
        target: arg.trim(),
        details: { id: imported.id, prefix: imported.prefix },
      });
      // Never the key: only what lists show of it.
      out(`imported API key ${imported.id} "${arg.trim()}" (${imported.prefix}…)`);
      return;
    }
    case 'list': {
      out(['ID', 'NAME', 'PREFIX', 'CREATED', 'REVOKED', 'LAST USED'].join('\t'));
      for (const k of await listApiKeys(pool)) {
        out(
          [
            k.id,
            k.name,
            k.prefix,
            k.created_at.toISOString(),
            k.revoked_at?.toISOString() ?? '-',
            k.last_used_at?.toISOString() ?? '-',
          ].join('\t'),
        );
      }
      return;
    }
    case 'revoke': {
      if (!arg) throw new UsageError('usage: api-keys revoke <id|name>');
      const n = await revokeApiKey(pool, arg);
      if (n === 0) throw new RefusedError(`no active API key with id or name "${arg}"`);
      await audit(pool, { actor: 'cli', address: null, action: 'api_key.revoke', target: arg, details: { revoked: n } });
      out(`revoked ${n} key${n === 1 ? '' : 's'}`);
      return;
    }
    default:
      throw new UsageError(`unknown api-keys command "${sub ?? ''}"`);
  }
}
