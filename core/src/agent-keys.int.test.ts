import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import {
  ApiKeyVerifier,
  BOOTSTRAP_KEY_FILE,
  createApiKey,
  ensureBootstrapKey,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
  verifyApiKey,
} from './agent-keys.ts';

let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores(testConfig('ingest_keys'), { kafka: false });
});
afterAll(async () => {
  await stores?.drop();
});

describe('agent API keys (Postgres)', () => {
  it('generates a key once when none exists: written 0600, never printed (the line says where it is), stored hashed', async () => {
    const printed: string[] = [];
    const stateDir = stores.config.stateDir;
    expect(await ensureBootstrapKey(stores.pg, { bootstrapApiKey: undefined, stateDir, print: (l) => printed.push(l) })).toBe(
      'generated',
    );
    const file = join(stateDir, BOOTSTRAP_KEY_FILE);
    const key = (await readFile(file, 'utf8')).trim();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(printed).toHaveLength(1);
    expect(printed[0]).not.toContain(key);
    expect(printed[0]).not.toContain(key.slice(4, 20));
    expect(printed[0]).toContain(file);
    const rows = await stores.pg.query('SELECT name, key_hash, prefix FROM api_keys');
    expect(rows.rows).toEqual([{ name: 'bootstrap', key_hash: hashApiKey(key), prefix: key.slice(0, 12) }]);
    expect(JSON.stringify(rows.rows)).not.toContain(key);
    expect(await verifyApiKey(stores.pg, key)).not.toBeNull();
    // A second start generates nothing and prints nothing.
    expect(await ensureBootstrapKey(stores.pg, { bootstrapApiKey: undefined, stateDir, print: (l) => printed.push(l) })).toBe(
      'exists',
    );
    expect(printed).toHaveLength(1);
  });

  it('registers SERVICE_BOOTSTRAP_API_KEY once', async () => {
    const key = 'wpk_configured-bootstrap-key-for-tests';
    const opts = { bootstrapApiKey: key, stateDir: stores.config.stateDir, print: () => {} };
    expect(await ensureBootstrapKey(stores.pg, opts)).toBe('registered');
    expect(await ensureBootstrapKey(stores.pg, opts)).toBe('exists');
    expect(await verifyApiKey(stores.pg, key)).not.toBeNull();
  });

  it('creates, lists, verifies and revokes keys by id and by name', async () => {
    const a = await createApiKey(stores.pg, 'edge-a');
    const b = await createApiKey(stores.pg, 'edge-b');
    expect(a.key).toMatch(/^wpk_[A-Za-z0-9_-]{43}$/);
    expect(await verifyApiKey(stores.pg, a.key)).toEqual({ id: a.id });
    expect(await verifyApiKey(stores.pg, a.key + 'x')).toBeNull();
    expect(await verifyApiKey(stores.pg, '')).toBeNull();
    const listed = await listApiKeys(stores.pg);
    expect(listed.find((k) => k.id === a.id)).toMatchObject({ name: 'edge-a', prefix: a.key.slice(0, 12), revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(a.key);
    expect(await revokeApiKey(stores.pg, String(a.id))).toBe(1);
    expect(await revokeApiKey(stores.pg, a.id)).toBe(0);
    expect(await verifyApiKey(stores.pg, a.key)).toBeNull();
    expect(await revokeApiKey(stores.pg, 'edge-b')).toBe(1);
    expect(await verifyApiKey(stores.pg, b.key)).toBeNull();
    expect((await listApiKeys(stores.pg)).find((k) => k.id === b.id)?.revoked_at).toBeInstanceOf(Date);
    await expect(createApiKey(stores.pg, '  ')).rejects.toThrow(/name/);
  });

  it('the verifier caches results for its TTL, so revocation lands within it, and records last use', async () => {
    const { id, key } = await createApiKey(stores.pg, 'cached');
    const v = new ApiKeyVerifier(stores.pg, { ttlMs: 300 });
    expect(await v.verify(key)).toBe(id);
    expect(v.verify(key)).toBe(id); // cached: answered synchronously
    await revokeApiKey(stores.pg, id);
    expect(v.verify(key)).toBe(id); // still within the cache TTL
    await new Promise((r) => setTimeout(r, 350));
    expect(await v.verify(key)).toBeNull();
    expect(v.verify('wpk_unknown')).toBeInstanceOf(Promise);
    const row = await stores.pg.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id]);
    expect(row.rows[0].last_used_at).toBeInstanceOf(Date);
  });
});
