// `cli api-keys ...`: agent API keys (core/src/agent-keys.ts).
import type { Pool } from '@watchpost/runtime';
import { audit, createApiKey, listApiKeys, revokeApiKey } from '@watchpost/core';
import { RefusedError, UsageError } from './io.ts';

export async function apiKeysCommand(pool: Pool, args: string[], out: (s: string) => void): Promise<void> {
  const [sub, arg] = args;
  switch (sub) {
    case 'create': {
      if (!arg?.trim()) throw new UsageError('usage: api-keys create <name>');
      const { id, key } = await createApiKey(pool, arg);
      await audit(pool, { actor: 'cli', address: null, action: 'api_key.create', target: arg.trim(), details: { id } });
      // The key itself goes alone on stdout (scripts capture it); the note goes to stderr.
      process.stderr.write(`created API key ${id} "${arg.trim()}"; it is shown this once:\n`);
      out(key);
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
