// First admin at first start and the generated JWT secret file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, stat, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { ensureFirstAdmin, INITIAL_ADMIN_FILE } from './first-admin.ts';
import { loadJwtSecret, JWT_SECRET_FILE } from './secret.ts';
import { getUserByName, verifyPassword } from '@watchpost/core';

let stores: TestStores;
let dir: string;
const log = { info: () => {} };

beforeAll(async () => {
  stores = await createTestStores(testConfig('api_bootstrap'), { kafka: false });
  dir = await mkdtemp(join(tmpdir(), 'watchpost-test-'));
});
afterAll(async () => {
  await stores?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe('first admin', () => {
  it('is generated once and written to a 0600 file; the printed line names the file, never the password', async () => {
    const printed: string[] = [];
    const cfg = { admin: { username: 'admin', password: undefined }, stateDir: dir };
    expect(await ensureFirstAdmin(stores.pg, cfg, log, (l) => printed.push(l))).toBe('generated');
    const file = join(dir, INITIAL_ADMIN_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const password = (await readFile(file, 'utf8')).trim();
    expect(printed).toHaveLength(1);
    expect(printed[0]).not.toContain(password);
    expect(printed[0]).toContain(file);
    const u = await getUserByName(stores.pg, 'admin');
    expect(u).toMatchObject({ role: 'admin', active: true });
    expect(await verifyPassword(password, u!.passwordHash)).toBe(true);
    // Second start: nothing created, nothing printed.
    expect(await ensureFirstAdmin(stores.pg, cfg, log, (l) => printed.push(l))).toBe('exists');
    expect(printed).toHaveLength(1);
  });

  it('comes from SERVICE_ADMIN_USERNAME/PASSWORD when set (and only when no user exists)', async () => {
    await stores.pg.query('DELETE FROM users');
    const printed: string[] = [];
    const cfg = { admin: { username: 'Chief', password: 'chief-password-123' }, stateDir: dir };
    expect(await ensureFirstAdmin(stores.pg, cfg, log, (l) => printed.push(l))).toBe('created');
    expect(printed).toEqual([]);
    const u = await getUserByName(stores.pg, 'chief');
    expect(await verifyPassword('chief-password-123', u!.passwordHash)).toBe(true);
  });
});

describe('JWT secret', () => {
  it('is generated once into a 0600 file and reused', async () => {
    const a = await loadJwtSecret(undefined, dir);
    const b = await loadJwtSecret(undefined, dir);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect((await stat(join(dir, JWT_SECRET_FILE))).mode & 0o777).toBe(0o600);
  });

  it('uses SERVICE_JWT_SECRET when set and refuses a short one', async () => {
    const s = 'x'.repeat(40);
    expect(new TextDecoder().decode(await loadJwtSecret(s, dir))).toBe(s);
    await expect(loadJwtSecret('short', dir)).rejects.toThrow(/SERVICE_JWT_SECRET: must be at least 32 bytes/);
  });
});
