import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ApiKeyImportError,
  ApiKeyVerifier,
  BOOTSTRAP_KEY_FILE,
  createApiKey,
  displayPrefix,
  ensureBootstrapKey,
  hashApiKey,
  importApiKey,
  importedKeyProblem,
  listApiKeys,
  revokeApiKey,
  verifyApiKey,
} from './agent-keys.ts';

/**
 * What Deploy-LoginMonitor.ps1 (Test-RdpMonitorSettingsNeedsSacBootstrap, Update-RdpMonitorSettingsSacBlockIfMissing)
 * requires of `$SacApiKey` to keep it: `(?m)^\s*\$SacApiKey\s*=\s*['"]sac_[^'"]+['"]` (PowerShell -match: case-insensitive).
 */
const keptByWindowsDeploy = (key: string) =>
  new RegExp(`^\\s*\\$SacApiKey\\s*=\\s*['"]sac_[^'"]+['"]`, 'im').test(`$SacApiKey = '${key}'`);

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
    // The default prefix survives the Windows agent's deploy script.
    expect(key).toMatch(/^sac_[A-Za-z0-9_-]{43}$/);
    expect(keptByWindowsDeploy(key)).toBe(true);
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
    expect(a.key).toMatch(/^sac_[A-Za-z0-9_-]{43}$/);
    expect(a.prefix).toBe(a.key.slice(0, 12));
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

  it('creates keys with the configured prefix; keys of another prefix (wpk_ from before) keep verifying', async () => {
    const w = await createApiKey(stores.pg, 'legacy', { prefix: 'wpk_' });
    expect(w.key).toMatch(/^wpk_[A-Za-z0-9_-]{43}$/);
    expect(keptByWindowsDeploy(w.key)).toBe(false); // why the default changed
    const long = await createApiKey(stores.pg, 'long-prefix', { prefix: 'corp-agents-key-' });
    expect(long.key.startsWith('corp-agents-key-')).toBe(true);
    // The display prefix shows 8 characters past a long prefix, so two such keys can be told apart.
    expect(long.prefix).toBe(long.key.slice(0, 24));
    const s = await createApiKey(stores.pg, 'default');
    for (const k of [w, long, s]) expect(await verifyApiKey(stores.pg, k.key)).toEqual({ id: k.id });
    const v = new ApiKeyVerifier(stores.pg, { ttlMs: 0 });
    expect(await v.verify(w.key)).toBe(w.id);
  });

  it('imports an existing key: stored hashed with its display prefix, verified like a generated one', async () => {
    const key = `sac_${randomBytes(24).toString('base64url')}`;
    const { id, prefix } = await importApiKey(stores.pg, ' moved-fleet ', `  ${key}\n`);
    expect(prefix).toBe(key.slice(0, 12));
    const row = (await stores.pg.query('SELECT name, key_hash, prefix, revoked_at FROM api_keys WHERE id = $1', [id])).rows[0];
    expect(row).toEqual({ name: 'moved-fleet', key_hash: hashApiKey(key), prefix: key.slice(0, 12), revoked_at: null });
    expect(JSON.stringify(await listApiKeys(stores.pg))).not.toContain(key);
    expect(await verifyApiKey(stores.pg, key)).toEqual({ id });
    expect(await new ApiKeyVerifier(stores.pg, { ttlMs: 0 }).verify(key)).toBe(id);
    expect(keptByWindowsDeploy(key)).toBe(true);
    // A short key shows at most a third of itself.
    const short = `sac_${randomBytes(15).toString('base64url')}`; // 24 characters
    expect((await importApiKey(stores.pg, 'short', short)).prefix).toBe(short.slice(0, 8));
    expect(displayPrefix(short)).toBe(short.slice(0, 8));
  });

  it('refuses a duplicate (active or revoked) with a message naming the registered key, never the key', async () => {
    const key = `sac_${randomBytes(24).toString('base64url')}`;
    const first = await importApiKey(stores.pg, 'dup-a', key);
    const err = await importApiKey(stores.pg, 'dup-b', key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiKeyImportError);
    expect(err).toMatchObject({ reason: 'duplicate' });
    expect((err as Error).message).toMatch(new RegExp(`already registered as API key ${first.id} "dup-a"$`));
    expect((err as Error).message).not.toContain(key.slice(4));
    await revokeApiKey(stores.pg, first.id);
    await expect(importApiKey(stores.pg, 'dup-c', key)).rejects.toThrow(/revoked; a revoked key cannot be imported again/);
    expect(await verifyApiKey(stores.pg, key)).toBeNull();
    // A generated key cannot be imported a second time either.
    const made = await createApiKey(stores.pg, 'made');
    await expect(importApiKey(stores.pg, 'again', made.key)).rejects.toMatchObject({ reason: 'duplicate' });
    expect(
      (await stores.pg.query("SELECT count(*)::int AS n FROM api_keys WHERE name LIKE 'dup-%' OR name = 'again'")).rows[0].n,
    ).toBe(1);
  });

  it('refuses keys that are too short or long, not printable ASCII, placeholders or not random; never quoting them', async () => {
    const random = (n: number) => randomBytes(n).toString('base64url').slice(0, n);
    const cases: [string, RegExp][] = [
      [`sac_${random(19)}`, /24 to 512 characters, got 23/],
      [`sac_${random(600)}`, /24 to 512 characters, got 604/],
      [`sac_${random(20)} ${random(4)}`, /printable ASCII without spaces/],
      [`sac_${random(20)}é`, /printable ASCII without spaces/],
      [`sac_${random(10)}\t${random(10)}`, /printable ASCII without spaces/],
      ['sac_CHANGE_ME_0123456789abcdef', /placeholder/], // Deploy-LoginMonitor.ps1's default
      ['your-ingest-api-key-Xy7Qp2Lm9Rt', /placeholder/], // login_monitor.settings.example.ps1
      ['sac_aaaaaaaaaaaaaaaaaaaaaaaaaaaa', /too few distinct characters/],
      ['password1234password1234password1234', /repeats a pattern/],
      ['sac_0123456789abcdefghijklmnop', /consecutive characters/],
    ];
    for (const [key, want] of cases) {
      const err = await importApiKey(stores.pg, 'bad', key).catch((e: unknown) => e);
      expect(err, key).toBeInstanceOf(ApiKeyImportError);
      expect((err as ApiKeyImportError).reason).toBe('invalid');
      expect((err as Error).message, key).toMatch(want);
      expect((err as Error).message).not.toContain(key.slice(4, 16));
    }
    expect((await stores.pg.query("SELECT count(*)::int AS n FROM api_keys WHERE name = 'bad'")).rows[0].n).toBe(0);
    // Real key shapes pass: generated elsewhere as hex, a UUID, base64 with padding and symbols.
    for (const ok of [
      `sac_${randomBytes(10).toString('hex')}`,
      randomUUID(),
      randomBytes(24).toString('base64'),
      `wpk_${randomBytes(32).toString('base64url')}`,
    ])
      expect(importedKeyProblem(ok), ok).toBeNull();
    await expect(importApiKey(stores.pg, ' ', `sac_${random(30)}`)).rejects.toThrow(/name/);
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
