// The management CLI end to end: spawned as a process on a test database, as an operator runs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@watchpost/runtime';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { verifyApiKey, verifyPassword } from '@watchpost/core';

const node = join(repoRoot, 'node_modules', '.bin', 'node');
let stores: TestStores;

function cli(args: string[], stdin = '', viaNpm = false): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = viaNpm
      ? ['npm', ['run', '--silent', 'cli', '--', ...args]]
      : [node, [join(repoRoot, 'ops/src/cli/main.ts'), ...args]];
    const child = spawn(cmd, argv, {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: stores.config.databaseUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  stores = await createTestStores(testConfig('cli'), { kafka: false });
});
afterAll(async () => stores?.drop());

const row = async (name: string) => (await stores.pg.query('SELECT * FROM users WHERE username = $1', [name])).rows[0];

describe('npm run cli -- users', () => {
  it('adds a user with the password read from stdin', async () => {
    const r = await cli(['users', 'add', 'Alice', '--role', 'admin'], 'alice-password-123\n', true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/created user alice \(id \d+, role admin\)/);
    const u = await row('alice');
    expect(u).toMatchObject({ role: 'admin', active: true });
    expect(await verifyPassword('alice-password-123', u.password_hash)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain('alice-password-123');
  });

  it('refuses bad input with a clear message and exit code', async () => {
    expect(await cli(['users', 'add', 'bob', '--role', 'root'], 'bob-password-123\n')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--role must be one of admin, monitor/),
    });
    expect(await cli(['users', 'add', 'bob', '--role', 'monitor'], 'short\n')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/at least 12/),
    });
    expect(await cli(['users', 'add', 'alice', '--role', 'monitor'], 'another-password-1\n')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/already exists/),
    });
    expect(await cli(['users', 'set-role', 'nobody', '--role', 'admin'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no user "nobody"/),
    });
    expect(await cli(['frobnicate'])).toMatchObject({ code: 2 });
  });

  it('lists, changes the role of, and deactivates users (never the last admin)', async () => {
    expect((await cli(['users', 'add', 'bob', '--role', 'monitor'], 'bob-password-123\n')).code).toBe(0);
    const list = await cli(['users', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\talice\tadmin\tyes\t/);
    expect(list.stdout).toMatch(/\tbob\tmonitor\tyes\t/);
    expect((await cli(['users', 'set-role', 'bob', '--role', 'admin'])).code).toBe(0);
    const bob = await row('bob');
    expect(bob.role).toBe('admin');
    expect((await cli(['users', 'deactivate', 'bob'])).code).toBe(0);
    expect((await row('bob')).active).toBe(false);
    const last = await cli(['users', 'deactivate', 'alice']);
    expect(last).toMatchObject({ code: 1, stderr: expect.stringMatching(/no active admin/) });
    expect((await row('alice')).active).toBe(true);
    const audit = await stores.pg.query("SELECT action, target FROM audit_log WHERE actor = 'cli' ORDER BY id");
    expect(audit.rows).toEqual([
      { action: 'user.create', target: 'alice' },
      { action: 'user.create', target: 'bob' },
      { action: 'user.update', target: 'bob' },
      { action: 'user.update', target: 'bob' },
    ]);
  });
});

describe('npm run cli -- api-keys', () => {
  it('creates a key (printed once), lists it without the key, revokes it', async () => {
    const c = await cli(['api-keys', 'create', 'edge-gw']);
    expect(c.code, c.stderr).toBe(0);
    const key = c.stdout.trim();
    expect(key).toMatch(/^wpk_[A-Za-z0-9_-]{40,}$/);
    expect(await verifyApiKey(stores.pg, key)).not.toBeNull();
    const list = await cli(['api-keys', 'list']);
    expect(list.stdout).toMatch(/\tedge-gw\twpk_/);
    expect(list.stdout).not.toContain(key);
    expect(await cli(['api-keys', 'revoke', 'edge-gw'])).toMatchObject({ code: 0, stdout: 'revoked 1 key\n' });
    expect(await verifyApiKey(stores.pg, key)).toBeNull();
    expect((await cli(['api-keys', 'list'])).stdout).not.toMatch(/\tedge-gw\twpk_\S+\t\S+\t-\t/);
    expect(await cli(['api-keys', 'revoke', 'edge-gw'])).toMatchObject({ code: 1 });
  });
});
