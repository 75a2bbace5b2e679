// npm run backup / restore on the real local stack: a seeded service (users, an agent key, a WinRM
// password encrypted with the state folder's key, a problem, events in ClickHouse, the state folder's
// generated secrets) is backed up encrypted, restored into databases and a state folder of another name,
// and everything is found there again. What a backup must not hold is looked for in its bytes; a wrong
// key, a missing secrets key and crafted manifests stop a restore before it writes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import {
  createClickhouse,
  createPostgres,
  createPostgresClient,
  ident,
  queryRows,
  repoRoot,
  sql,
  type Config,
} from '@watchpost/runtime';
import {
  WINRM_SETTINGS_KEY,
  createApiKey,
  loadSecretsKey,
  loadWinrmSettings,
  saveWinrmSettings,
  verifyApiKey,
} from '@watchpost/core';
import { testConfig } from '@watchpost/testkit';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { backup, type BackupOptions } from './backup/backup.ts';
import { restore } from './backup/restore.ts';
import { MANIFEST_FILE, readManifest, type Manifest } from './backup/manifest.ts';
import { openBackupFiles } from './backup/encryption.ts';

async function dropDatabases(config: Config): Promise<void> {
  const ch = createClickhouse(config.clickhouseUrl, 'default');
  await ch.command({ query: `DROP DATABASE IF EXISTS ${ident(config.clickhouseDatabase).text}` }).finally(() => ch.close());
  const u = new URL(config.databaseUrl);
  const name = u.pathname.slice(1);
  u.pathname = '/postgres';
  const admin = createPostgresClient({ connectionString: u.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${ident(name).text} WITH (FORCE)`).finally(() => admin.end());
}

/** Whether a restore has written to the target databases yet (it creates the Postgres one, recreates ClickHouse's). */
async function databasesExist(config: Config): Promise<{ postgres: boolean; clickhouse: boolean }> {
  const u = new URL(config.databaseUrl);
  const name = u.pathname.slice(1);
  u.pathname = '/postgres';
  const admin = createPostgresClient({ connectionString: u.toString() });
  await admin.connect();
  const pg = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]).finally(() => admin.end());
  const ch = createClickhouse(config.clickhouseUrl, 'default');
  const [n] = await queryRows<{ n: string }>(
    ch,
    sql`SELECT toString(count()) AS n FROM system.databases WHERE name = ${config.clickhouseDatabase}`,
  ).finally(() => ch.close());
  return { postgres: pg.rowCount === 1, clickhouse: n!.n !== '0' };
}

/** Every file under `dir` (relative path → bytes). */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const f of await readdir(dir, { recursive: true })) {
    const p = join(dir, f);
    if ((await stat(p)).isFile()) out.set(f, await readFile(p));
  }
  return out;
}

/** Which of the secrets are in clear in any of the files ("name in file"). */
function secretsIn(files: Map<string, Buffer>, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [f, bytes] of files)
    for (const [name, value] of Object.entries(secrets)) if (bytes.includes(value)) found.push(`${name} in ${f}`);
  return found;
}

let src: ApiHarness;
let dst: Config;
let lost: Config;
let crafted: Config;
let dir: string; // encrypted to a passphrase, without the secrets key
let keyDir: string; // encrypted to an age public key, with the secrets key (--include-secrets-key)
let plainDir: string; // --unencrypted
let identity: string;
let agentKey: string;
let secrets: Record<string, string>;
const passphrase = 'correct horse battery staple 7';
const password = 'S3cret pass\nwith a newline';
const problemId = randomUUID();
const eventIds = [randomUUID(), randomUUID(), randomUUID()];
const dirs: string[] = [];
const newDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'watchpost-backup-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  src = await createApiHarness('backup_src');
  const pg = src.stores.pg;
  await addUser(src, 'alice', 'admin');
  await addUser(src, 'bob', 'monitor');
  agentKey = (await createApiKey(pg, 'gw-01')).key;
  const key = await loadSecretsKey(undefined, src.config.stateDir);
  await saveWinrmSettings(pg, src.config.actions, key, { username: 'CORP\\svc', password }, 'alice');
  await pg.query(
    `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen)
     VALUES ($1, 'open', 'web-01|ssh.login.failed', 'web-01', 'ssh.login.failed', 'threshold', 'Failed logins', 'high', 3, now(), now())`,
    [problemId],
  );
  await pg.query(
    `INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset) VALUES ('correlate', 'old.events.v1', 0, 5000)`,
  );
  // Values TabSeparated must escape: quote, backslash, tab, newline; an array.
  await src.stores.ch.insert({
    table: 'events',
    format: 'JSONEachRow',
    values: eventIds.map((id, i) => ({
      event_id: id,
      occurred_at: `2026-11-21 10:0${i}:00`,
      received_at: `2026-11-21 10:0${i}:01`,
      hostname: "web-01'",
      type: 'ssh.login.failed',
      severity: 'warning',
      title: `line one\nline\ttwo \\ ${i}`,
      tags: ['a', 'b c'],
      event_json: JSON.stringify({ event_id: id, n: i }),
    })),
  });
  // A redelivered event (same sorting key): restored once, as readers (FINAL) see it.
  await src.stores.ch.insert({
    table: 'events',
    format: 'JSONEachRow',
    values: [
      {
        event_id: eventIds[0],
        occurred_at: '2026-11-21 10:00:00',
        received_at: '2026-11-21 10:00:01',
        hostname: "web-01'",
        type: 'ssh.login.failed',
        severity: 'warning',
        title: 'line one\nline\ttwo \\ 0',
        tags: ['a', 'b c'],
        event_json: JSON.stringify({ event_id: eventIds[0], n: 0 }),
      },
    ],
  });
  // The state folder as a first start leaves it (the harness keeps its JWT secret in memory).
  secrets = {
    'JWT secret': randomBytes(36).toString('base64url'),
    'admin password': randomBytes(18).toString('base64url'),
    'bootstrap agent key': agentKey,
    'secrets key': (await readFile(join(src.config.stateDir, 'secrets-key'), 'utf8')).trim(),
    'WinRM password ciphertext': (
      await pg.query<{ c: string }>(`SELECT value->>'password_enc' AS c FROM settings WHERE key = $1`, [WINRM_SETTINGS_KEY])
    ).rows[0]!.c,
  };
  for (const [file, value] of [
    ['jwt-secret', secrets['JWT secret']],
    ['initial-admin-password', secrets['admin password']],
    ['bootstrap-api-key', agentKey],
  ] as const)
    await writeFile(join(src.config.stateDir, file), `${value}\n`, { mode: 0o600 });
  identity = await generateX25519Identity();
  dir = await newDir();
  keyDir = await newDir();
  plainDir = await newDir();
  dst = testConfig('backup_dst');
  lost = testConfig('backup_lost');
  crafted = testConfig('backup_crafted');
});

afterAll(async () => {
  await src?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  for (const c of [src?.config, dst, lost, crafted]) if (c) await rm(c.stateDir, { recursive: true, force: true });
  for (const c of [dst, lost, crafted]) if (c) await dropDatabases(c);
});

/** A copy of keyDir whose manifest `change` alters, re-encrypted with the backup's own key as an attacker with it would. */
async function craftedCopy(change: (m: Manifest) => void, payload?: string): Promise<string> {
  const copy = await newDir();
  await cp(keyDir, copy, { recursive: true });
  const files = await openBackupFiles(copy, { identities: [identity] });
  const m = JSON.parse((await files.read(MANIFEST_FILE)).toString('utf8')) as Manifest;
  change(m);
  await rm(files.path(MANIFEST_FILE));
  await files.write(MANIFEST_FILE, JSON.stringify(m));
  // What the entry points at, so that a restore without the check would find a file to copy.
  if (payload) await files.write(`state/${payload}`, 'crafted').catch(() => {});
  return copy;
}

describe('backup and restore', () => {
  it('refuses to write a backup that is not encrypted unless asked (--unencrypted); one in clear holds no key either', async () => {
    const empty = await newDir();
    await expect(backup(src.config, empty, {} as BackupOptions)).rejects.toThrow(/refusing to write an unencrypted backup/);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: src.config.databaseUrl,
      CLICKHOUSE_DATABASE: src.config.clickhouseDatabase,
      SERVICE_STATE_DIR: src.config.stateDir,
    };
    delete env.BACKUP_PASSPHRASE;
    delete env.BACKUP_RECIPIENT;
    const r = spawnSync('npm', ['run', '-s', 'backup', '--', empty], { cwd: repoRoot, encoding: 'utf8', env });
    expect(r.stderr).toMatch(/refusing to write an unencrypted backup.*BACKUP_PASSPHRASE.*BACKUP_RECIPIENT.*--unencrypted/);
    expect(r.status).toBe(2);
    expect(await readdir(empty)).toEqual([]);

    const m = await backup(src.config, plainDir, { seal: { unencrypted: true } });
    expect(m).toMatchObject({ encryption: 'none', state: { files: [] } });
    const { 'WinRM password ciphertext': _inTheDump, ...keys } = secrets;
    expect(secretsIn(await filesOf(plainDir), keys)).toEqual([]);
    expect(existsSync(join(plainDir, 'state'))).toBe(false);
    // Nor is a backup in clear restored without saying so.
    await expect(restore(dst, plainDir, { unseal: { passphrase } })).rejects.toThrow(/is not encrypted .*--unencrypted/);
  });

  it('writes an encrypted backup: every file an age file, no secret in clear, a manifest with the counts of one snapshot', async () => {
    const m = await backup(src.config, dir, { seal: { passphrase } });
    expect(m.postgres.counts).toMatchObject({ users: 2, api_keys: 1, problems: 1, settings: 1, consumer_offsets: 1 });
    expect(m.postgres.migrations.length).toBeGreaterThan(10);
    expect(Object.keys(m.clickhouse.tables).sort()).toEqual([
      'events',
      'events_hourly',
      'events_hourly_state',
      'events_hourly_values',
    ]);
    expect(m.clickhouse.tables.events).toMatchObject({ rows: 3, final: true });
    expect(m.clickhouse.derived).toEqual(expect.arrayContaining(['events_by_id', 'events_changed_hours']));
    expect(m.encryption).toBe('age');
    // The secrets key stays out (escrow); the JWT secret, first admin password and bootstrap key always.
    expect(m.state).toMatchObject({
      files: [],
      secrets_key_source: 'file',
      secrets_key_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      jwt_secret_source: 'file',
    });
    expect(m.not_included.join('\n')).toMatch(/secrets key .*kept apart/);

    const files = await filesOf(dir);
    expect([...files.keys()].sort()).toEqual(
      [
        'key.age',
        'manifest.json.age',
        'postgres.dump.age',
        ...Object.values(m.clickhouse.tables).map((e) => `${e.file}.age`),
      ].sort(),
    );
    for (const [f, bytes] of files) {
      expect(bytes.subarray(0, 22).toString('latin1'), f).toBe('age-encryption.org/v1\n');
      expect((await stat(join(dir, f))).mode & 0o077, f).toBe(0);
    }
    expect(secretsIn(files, secrets)).toEqual([]);
    expect(await readManifest(await openBackupFiles(dir, { passphrase }))).toEqual(m);
    await expect(backup(src.config, dir, { seal: { passphrase } })).rejects.toThrow(/not empty/);
  });

  it('holds the secrets key only with --include-secrets-key, encrypted like the rest (here to an age public key)', async () => {
    const m = await backup(src.config, keyDir, {
      seal: { recipients: [await identityToRecipient(identity)] },
      includeSecretsKey: true,
    });
    expect(m.state.files).toEqual(['secrets-key']);
    const files = await filesOf(keyDir);
    expect([...files.keys()].filter((f) => f.startsWith('state'))).toEqual([join('state', 'secrets-key.age')]);
    expect(secretsIn(files, secrets)).toEqual([]);
    const opened = await openBackupFiles(keyDir, { identities: [identity] });
    expect((await opened.read('state/secrets-key')).toString('utf8').trim()).toBe(secrets['secrets key']);
    await expect(openBackupFiles(keyDir, {})).rejects.toThrow(/encrypted to a public key: set BACKUP_IDENTITY_FILE/);
    await expect(openBackupFiles(keyDir, { identities: [await generateX25519Identity()] })).rejects.toThrow(
      /wrong key: .*key\.age does not open with the identity given/,
    );
  });

  it('stops a restore with a wrong passphrase, or without the secrets key, before anything is written', async () => {
    await expect(restore(dst, dir, { unseal: { passphrase: 'not the passphrase' } })).rejects.toThrow(
      /wrong key: .*key\.age does not open with the passphrase given/,
    );
    await expect(restore(dst, dir, {})).rejects.toThrow(/encrypted to a passphrase: set BACKUP_PASSPHRASE/);
    await expect(restore(dst, dir, { unseal: { passphrase } })).rejects.toThrow(
      /secrets key is not in it .*copy the key kept apart to .*secrets-key.*--without-secrets-key/,
    );
    expect(await databasesExist(dst)).toEqual({ postgres: false, clickhouse: false });
    expect(existsSync(dst.stateDir)).toBe(false);
  });

  it('restores into fresh databases and state folder, the secrets key put back from escrow; the same users, key, settings, problem and events are there', async () => {
    await mkdir(dst.stateDir, { recursive: true, mode: 0o700 });
    await copyFile(join(src.config.stateDir, 'secrets-key'), join(dst.stateDir, 'secrets-key'));
    const report = await restore(dst, dir, { unseal: { passphrase } });
    expect(report.postgres).toMatchObject({ users: 2, api_keys: 1, problems: 1 });
    expect(report.clickhouse).toMatchObject({ events: 3, events_by_id: 3 });
    expect(report.warnings.join('\n')).toMatch(/JWT secret is not in a backup/);
    expect((await readdir(dst.stateDir)).sort()).toEqual(['secrets-key']);

    // The API on the restored stores: log in with the same password, read the restored event.
    const h = await createApiHarness('backup_api', {
      env: { DATABASE_URL: dst.databaseUrl, CLICKHOUSE_DATABASE: dst.clickhouseDatabase, SERVICE_STATE_DIR: dst.stateDir },
    });
    try {
      const r = await login(h, 'alice', 'pw-alice-secret');
      expect(r.statusCode).toBe(200);
      expect((await login(h, 'bob', 'wrong-password-123')).statusCode).toBe(401);
      const auth = { authorization: `Bearer ${r.json().access_token}` };
      const ev = await h.app.inject({ method: 'GET', url: `/api/v1/events/${eventIds[1]}`, headers: auth });
      expect(ev.statusCode).toBe(200);
      expect(JSON.stringify(ev.json())).toContain('line one\\nline\\ttwo \\\\ 1');
      const pr = await h.app.inject({ method: 'GET', url: `/api/v1/problems/${problemId}`, headers: auth });
      expect(pr.statusCode).toBe(200);
      expect(pr.json()).toMatchObject({ id: problemId, count: 3, host: 'web-01' });

      expect(await verifyApiKey(h.deps.pg, agentKey)).not.toBeNull();
      expect(await verifyApiKey(h.deps.pg, `${agentKey}x`)).toBeNull();
      const winrm = await loadWinrmSettings(h.deps.pg, dst.actions, await loadSecretsKey(dst.actions.secretsKey, dst.stateDir));
      expect(winrm).toMatchObject({ username: 'CORP\\svc', password });
      expect((await h.deps.pg.query('SELECT count(*)::int AS n FROM consumer_offsets')).rows[0].n).toBe(0);
      const ids = await queryRows<{ event_id: string; tags: string[] }>(
        h.deps.clickhouse,
        sql`SELECT event_id, tags FROM events FINAL ORDER BY event_id`,
      );
      expect(ids).toEqual([...eventIds].sort().map((event_id) => ({ event_id, tags: ['a', 'b c'] })));
    } finally {
      await h.close(); // drops the restored databases too
    }
  }, 120_000);

  it('refuses to restore over data without --force, and replaces it with --force (a backup holding its secrets key)', async () => {
    const unseal = { identities: [identity] };
    await restore(dst, keyDir, { unseal }); // databases dropped by the previous test: created again
    await expect(restore(dst, keyDir, { unseal })).rejects.toThrow(
      /refusing to restore over existing data .*Postgres database holds data.*ClickHouse database/,
    );
    const pg = createPostgres(dst.databaseUrl, 1);
    try {
      await pg.query('DELETE FROM problems');
      const report = await restore(dst, keyDir, { force: true, unseal });
      expect(report.postgres.problems).toBe(1);
      expect(report.clickhouse.events).toBe(3);
      expect(await readFile(join(dst.stateDir, 'secrets-key'), 'utf8')).toBe(
        await readFile(join(src.config.stateDir, 'secrets-key'), 'utf8'),
      );
    } finally {
      await pg.end();
    }
  }, 120_000);

  it('restores without a lost secrets key only with --without-secrets-key, removing the settings that held stored secrets', async () => {
    const report = await restore(lost, dir, { unseal: { passphrase }, withoutSecretsKey: true });
    expect(report.postgres).toMatchObject({ users: 2, settings: 1 });
    expect(report.warnings.join('\n')).toMatch(/--without-secrets-key: the settings holding secrets .* enter them again/);
    const pg = createPostgres(lost.databaseUrl, 1);
    try {
      expect((await pg.query('SELECT key FROM settings WHERE key = $1', [WINRM_SETTINGS_KEY])).rowCount).toBe(0);
      expect((await pg.query('SELECT count(*)::int AS n FROM users')).rows[0].n).toBe(2);
    } finally {
      await pg.end();
    }
    expect(existsSync(join(lost.stateDir, 'secrets-key'))).toBe(false);
  }, 120_000);

  it('refuses a crafted manifest naming ../x, /etc/x, a/b or an unknown name, before writing anything', async () => {
    const cases: { change: (m: Manifest) => void; payload?: string; error: RegExp }[] = [
      { change: (m) => void (m.state.files = ['../x']), payload: '../x', error: /state file "\.\.\/x": a parent folder/ },
      { change: (m) => void (m.state.files = ['/etc/x']), error: /state file "\/etc\/x": an absolute path/ },
      { change: (m) => void (m.state.files = ['a/b']), error: /state file "a\/b": a path separator/ },
      {
        change: (m) => void (m.state.files = ['authorized_keys']),
        payload: 'authorized_keys',
        error: /state file "authorized_keys": an unknown name/,
      },
      {
        change: (m) => void (m.clickhouse.tables.events!.file = '../../x.tsv.gz'),
        error: /ClickHouse file "\.\.\/\.\.\/x\.tsv\.gz" of table "events": a parent folder/,
      },
      {
        change: (m) => void (m.clickhouse.tables.events!.file = '/etc/x'),
        error: /ClickHouse file "\/etc\/x" of table "events": an absolute path/,
      },
    ];
    for (const c of cases) {
      const copy = await craftedCopy(c.change, c.payload);
      await expect(restore(crafted, copy, { unseal: { identities: [identity] }, force: true })).rejects.toThrow(
        new RegExp(`refusing the backup: its manifest names files a backup does not hold .*${c.error.source}`),
      );
    }
    expect(existsSync(join(crafted.stateDir, '..', 'x'))).toBe(false);
    expect(existsSync(crafted.stateDir)).toBe(false);
    expect(await databasesExist(crafted)).toEqual({ postgres: false, clickhouse: false });
  });

  it('runs as npm run backup with a usage error for a missing folder', () => {
    const r = spawnSync('npm', ['run', '-s', 'backup'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: npm run backup -- <dir>/);
  });
});
