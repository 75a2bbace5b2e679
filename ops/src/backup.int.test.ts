// npm run backup / restore on the real local stack: a seeded service (users, an agent key, a WinRM
// password encrypted with the state folder's key, a problem, events in ClickHouse) is backed up, restored
// into databases and a state folder of another name, and everything is found there again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
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
import { createApiKey, loadSecretsKey, loadWinrmSettings, saveWinrmSettings, verifyApiKey } from '@watchpost/core';
import { testConfig } from '@watchpost/testkit';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { backup } from './backup/backup.ts';
import { restore } from './backup/restore.ts';
import { readManifest } from './backup/manifest.ts';

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

let src: ApiHarness;
let dst: Config;
let dir: string;
let agentKey: string;
const password = 'S3cret pass\nwith a newline';
const problemId = randomUUID();
const eventIds = [randomUUID(), randomUUID(), randomUUID()];

beforeAll(async () => {
  src = await createApiHarness('backup_src');
  const pg = src.stores.pg;
  await addUser(src, 'alice', 'admin');
  await addUser(src, 'bob', 'monitor');
  agentKey = (await createApiKey(pg, 'gw-01')).key;
  const key = await loadSecretsKey(undefined, src.config.stateDir);
  await saveWinrmSettings(pg, key, { username: 'CORP\\svc', password }, 'alice');
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
  dir = await mkdtemp(join(tmpdir(), 'watchpost-backup-'));
  dst = testConfig('backup_dst');
});

afterAll(async () => {
  await src?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const d of [src?.config.stateDir, dst?.stateDir]) if (d) await rm(d, { recursive: true, force: true });
  if (dst) await dropDatabases(dst);
});

describe('backup and restore', () => {
  it('writes a manifest with the counts of one Postgres snapshot and of each ClickHouse file', async () => {
    const m = await backup(src.config, dir);
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
    expect(m.state.files).toContain('secrets-key');
    expect(await readManifest(dir)).toEqual(m);
    expect((await stat(join(dir, 'state', 'secrets-key'))).mode & 0o077).toBe(0);
    expect((await stat(join(dir, 'postgres.dump'))).mode & 0o077).toBe(0);
    expect(m.state).toMatchObject({ secrets_key_source: 'file', secrets_key_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await expect(backup(src.config, dir)).rejects.toThrow(/not empty/);
  });

  it('restores into fresh databases and state folder; the same users, key, settings, problem and events are there', async () => {
    const report = await restore(dst, dir);
    expect(report.postgres).toMatchObject({ users: 2, api_keys: 1, problems: 1 });
    expect(report.clickhouse).toMatchObject({ events: 3, events_by_id: 3 });
    expect(await readFile(join(dst.stateDir, 'secrets-key'), 'utf8')).toBe(
      await readFile(join(src.config.stateDir, 'secrets-key'), 'utf8'),
    );

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
  });

  it('refuses to restore over data without --force, and replaces it with --force', async () => {
    await restore(dst, dir); // databases dropped by the previous test: created again
    await expect(restore(dst, dir)).rejects.toThrow(
      /refusing to restore over existing data .*Postgres database holds data.*ClickHouse database/,
    );
    const pg = createPostgres(dst.databaseUrl, 1);
    try {
      await pg.query('DELETE FROM problems');
      const report = await restore(dst, dir, { force: true });
      expect(report.postgres.problems).toBe(1);
      expect(report.clickhouse.events).toBe(3);
    } finally {
      await pg.end();
    }
  });

  it('runs as npm run backup with a usage error for a missing folder', () => {
    const r = spawnSync('npm', ['run', '-s', 'backup'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: npm run backup -- <dir>/);
  });
});
