// The management CLI end to end: spawned as a process on a test database, as an operator runs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createKafka, createRedis, repoRoot } from '@watchpost/runtime';
import { createTestStores, memoryLogger, sampleEvent, testConfig, type TestStores } from '@watchpost/testkit';
import { hashApiKey, verifyApiKey, verifyPassword } from '@watchpost/core';
import { buildIngestApp } from '@watchpost/ingest';

const node = join(repoRoot, 'node_modules', '.bin', 'node');
let stores: TestStores;

function cli(
  args: string[],
  stdin = '',
  viaNpm = false,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = viaNpm
      ? ['npm', ['run', '--silent', 'cli', '--', ...args]]
      : [node, [join(repoRoot, 'ops/src/cli/main.ts'), ...args]];
    const child = spawn(cmd, argv, {
      cwd: repoRoot,
      env: { ...process.env, SERVICE_AGENT_KEY_PREFIX: '', DATABASE_URL: stores.config.databaseUrl, ...env },
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
  // Kafka too: an imported key is tried against the real ingest.
  stores = await createTestStores(testConfig('cli'));
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

  it('removes a user (audited, the audit log keeps the name), never the last active admin', async () => {
    const last = await cli(['users', 'remove', 'alice']);
    expect(last).toMatchObject({ code: 1, stderr: expect.stringMatching(/the last active admin cannot be removed/) });
    expect(await row('alice')).toBeDefined();
    const r = await cli(['users', 'remove', 'BOB'], '', true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/removed user bob: 0 session\(s\) ended, 0 device\(s\) removed/);
    expect(await row('bob')).toBeUndefined();
    const audit = await stores.pg.query("SELECT action, target, details FROM audit_log WHERE action = 'user.remove'");
    expect(audit.rows).toEqual([
      { action: 'user.remove', target: 'bob', details: { role: 'admin', active: false, sessions: 0, devices: 0 } },
    ]);
    expect(await cli(['users', 'remove', 'bob'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/no user "bob"/) });
  });

  it('removes the second factor of a user locked out of it (the way back for the last admin)', async () => {
    await stores.pg.query("UPDATE users SET totp_secret_enc = 'v1:AA:AA:AA', totp_enabled_at = now() WHERE username = 'alice'");
    await stores.pg.query(
      "INSERT INTO user_recovery_codes (user_id, code_hash) SELECT id, repeat('0', 64) FROM users WHERE username = 'alice'",
    );
    expect((await cli(['users', 'list'])).stdout).toMatch(/\talice\tadmin\tyes\tyes\t/);
    const r = await cli(['users', 'reset-totp', 'alice']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/second factor of alice removed/);
    expect(await row('alice')).toMatchObject({ totp_secret_enc: null, totp_enabled_at: null, totp_last_step: null });
    expect((await stores.pg.query('SELECT 1 FROM user_recovery_codes')).rowCount).toBe(0);
    const audit = await stores.pg.query("SELECT actor FROM audit_log WHERE action = 'user.totp_reset' AND target = 'alice'");
    expect(audit.rows).toEqual([{ actor: 'cli' }]);
    expect(await cli(['users', 'reset-totp', 'alice'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/alice has no second factor/),
    });
  });
});

describe('npm run cli -- api-keys', () => {
  it('creates a key (printed once), lists it without the key, revokes it', async () => {
    const c = await cli(['api-keys', 'create', 'edge-gw']);
    expect(c.code, c.stderr).toBe(0);
    const key = c.stdout.trim();
    // The default prefix (SERVICE_AGENT_KEY_PREFIX unset): sac_, which Deploy-LoginMonitor.ps1 keeps.
    expect(key).toMatch(/^sac_[A-Za-z0-9_-]{43}$/);
    expect(await verifyApiKey(stores.pg, key)).not.toBeNull();
    const list = await cli(['api-keys', 'list']);
    expect(list.stdout).toMatch(/\tedge-gw\tsac_/);
    expect(list.stdout).not.toContain(key);
    expect(await cli(['api-keys', 'revoke', 'edge-gw'])).toMatchObject({ code: 0, stdout: 'revoked 1 key\n' });
    expect(await verifyApiKey(stores.pg, key)).toBeNull();
    expect((await cli(['api-keys', 'list'])).stdout).not.toMatch(/\tedge-gw\tsac_\S+\t\S+\t-\t/);
    expect(await cli(['api-keys', 'revoke', 'edge-gw'])).toMatchObject({ code: 1 });
  });

  it('creates keys with SERVICE_AGENT_KEY_PREFIX; an invalid prefix is a configuration error (exit 2)', async () => {
    const c = await cli(['agent-keys', 'create', 'legacy-gw'], '', false, { SERVICE_AGENT_KEY_PREFIX: 'wpk_' });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.trim()).toMatch(/^wpk_[A-Za-z0-9_-]{43}$/);
    expect(await verifyApiKey(stores.pg, c.stdout.trim())).not.toBeNull();
    const bad = await cli(['api-keys', 'create', 'x'], '', false, { SERVICE_AGENT_KEY_PREFIX: "sac'; rm" });
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/SERVICE_AGENT_KEY_PREFIX: expected 1 to 16 characters/),
    });
  });
});

describe('npm run cli -- agent-keys import', () => {
  // A key as the Windows agent holds it in login_monitor.settings.ps1 (`$SacApiKey = 'sac_...'`,
  // Deploy-LoginMonitor.ps1 Test-RdpMonitorSettingsNeedsSacBootstrap) and sends it (Sac-Client.ps1: `Authorization: Bearer`).
  const windowsKey = `sac_${randomBytes(24).toString('base64url')}`;

  it('registers a key read from stdin (hashed, never printed, audited); the agent then posts events with it (201)', async () => {
    const r = await cli(['agent-keys', 'import', '--name', 'rdp-fleet'], `${windowsKey}\n`, true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^imported API key \\d+ "rdp-fleet" \\(${windowsKey.slice(0, 12)}…\\)\\n$`));
    expect(r.stdout + r.stderr).not.toContain(windowsKey.slice(12));
    const row = (await stores.pg.query("SELECT id, key_hash, prefix FROM api_keys WHERE name = 'rdp-fleet'")).rows[0];
    expect(row).toMatchObject({ key_hash: hashApiKey(windowsKey), prefix: windowsKey.slice(0, 12) });
    const audit = await stores.pg.query("SELECT actor, target, details FROM audit_log WHERE action = 'api_key.import'");
    expect(audit.rows).toEqual([{ actor: 'cli', target: 'rdp-fleet', details: { id: row.id, prefix: windowsKey.slice(0, 12) } }]);
    expect((await cli(['api-keys', 'list'])).stdout).toMatch(new RegExp(`\\trdp-fleet\\t${windowsKey.slice(0, 12)}\\t`));

    const redis = createRedis(stores.config.redisUrl);
    const { app } = await buildIngestApp({
      config: stores.config,
      log: memoryLogger().log,
      redis,
      pg: stores.pg,
      kafka: createKafka(stores.config.kafkaBrokers, 'cli-test'),
    });
    try {
      const post = (key: string) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/events',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          payload: JSON.stringify(sampleEvent()),
        });
      const ok = await post(windowsKey);
      expect(ok.statusCode, ok.body).toBe(201);
      expect((await post(`${windowsKey}x`)).statusCode).toBe(401);
    } finally {
      await app.close();
      await redis.quit();
    }
  });

  it('takes the name as an argument too; refuses a duplicate (exit 1) and a bad key (exit 2) without echoing it', async () => {
    const dup = await cli(['api-keys', 'import', 'again'], windowsKey);
    expect(dup).toMatchObject({ code: 1, stderr: expect.stringMatching(/already registered as API key \d+ "rdp-fleet"/) });
    expect(dup.stderr).not.toContain(windowsKey.slice(4));
    const placeholder = await cli(['api-keys', 'import', 'ph'], 'sac_CHANGE_ME\n');
    expect(placeholder).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/24 to 512 characters, got 13 \(read from stdin\)/),
    });
    expect(placeholder.stderr).not.toContain('CHANGE_ME');
    const spaced = await cli(['api-keys', 'import', 'sp'], `sac_${randomBytes(12).toString('hex')} more\n`);
    expect(spaced).toMatchObject({ code: 2, stderr: expect.stringMatching(/printable ASCII without spaces/) });
    expect(await cli(['api-keys', 'import'], windowsKey)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/usage: api-keys import <name>/),
    });
    const n = await stores.pg.query("SELECT count(*)::int AS n FROM api_keys WHERE name IN ('again', 'ph', 'sp')");
    expect(n.rows[0].n).toBe(0);
    const other = `sac_${randomBytes(24).toString('base64url')}`;
    const ok = await cli(['api-keys', 'import', 'second-fleet'], `  ${other}  \r\n`);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await verifyApiKey(stores.pg, other)).not.toBeNull();
  });
});
