// kill -9 of Postgres under load, while the service (every role in ONE process, as `npm run up` runs it)
// holds clients between queries: correlate's transactions, the scheduler's liveness scans, ingest's key
// lookups. The process must stay up, answer again once Postgres is back on the same data dir and port,
// and correlate every event answered 201 (or 409: stored by an earlier try of the same event) exactly
// once. The test runs a Postgres of its own: the shared stack's is never killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, type Config } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import {
  createTestStores,
  freePort,
  sampleEvent,
  startPostgresServer,
  testConfig,
  waitFor,
  type OwnPostgres,
  type TestStores,
} from '@watchpost/testkit';

const AGENTS = 6;

let own: OwnPostgres;
let config: Config;
let stores: TestStores;
let key: string;
let child: ChildProcess;
let output = '';
let base: string;

beforeAll(async () => {
  own = await startPostgresServer();
  const shared = testConfig('pg_kill');
  const url = new URL(own.url);
  url.pathname = new URL(shared.databaseUrl).pathname; // the test's database name, on its own server
  config = { ...shared, databaseUrl: url.toString() };
  stores = await createTestStores(config); // migrates the test's database on its own Postgres
  key = (await createApiKey(stores.pg, 'pg-kill')).key;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), 'all'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      CLICKHOUSE_DATABASE: config.clickhouseDatabase,
      KAFKA_TOPIC_PREFIX: config.topicPrefix,
      SERVICE_STATE_DIR: config.stateDir,
      BULLMQ_PREFIX: config.queuePrefix,
      REDIS_KEY_PREFIX: config.redisKeyPrefix,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      // Many short transactions and a scan every second: clients are checked out most of the time.
      CORRELATE_BATCH_SIZE: '20',
      CORRELATE_BATCH_MS: '20',
      SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await waitFor(
    'the service to listen',
    () => health().catch(() => null),
    (h) => h !== null,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(t);
  }
  await stores?.drop().catch(() => {});
  await own?.stop();
});

async function health(): Promise<{ status: string; checks?: Record<string, string> }> {
  const r = await fetch(`${base}/health`, { signal: AbortSignal.timeout(3000) });
  return (await r.json()) as { status: string; checks?: Record<string, string> };
}

const accepted: string[] = [];
const statuses = new Map<string, number>();
let loading = true;

function newEvent(host: string) {
  const ev = sampleEvent({ severity: 'warning', dedup_key: `${host}:ssh.login.failed:root` });
  return { ...ev, host: { ...ev.host, hostname: host, fqdn: `${host}.example.org` } };
}

/** One agent: sends an event and retries the same event until 201 or 409, as agents do; then the next. */
async function post(ev: ReturnType<typeof newEvent>): Promise<number | string> {
  try {
    const r = await fetch(`${base}/api/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(ev),
      signal: AbortSignal.timeout(10_000),
    });
    await r.arrayBuffer();
    return r.status;
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code ?? 'fetch failed';
  }
}

async function agent(n: number): Promise<void> {
  while (loading) {
    const ev = newEvent(`pgkill-${n}`);
    // Retried until answered, or until the test stops the load (an event never answered 201 is not counted).
    while (loading) {
      const s = await post(ev);
      statuses.set(String(s), (statuses.get(String(s)) ?? 0) + 1);
      if (s === 201 || s === 409) {
        accepted.push(ev.event_id);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const correlated = async () => (await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM problem_events')).rows[0]!.n;

describe('Postgres killed (-9) under load while every role holds clients', () => {
  it('the process stays up, answers again once Postgres is back, and every accepted event is correlated once', async () => {
    const agents = Array.from({ length: AGENTS }, (_, n) => agent(n));
    try {
      // Load flowing through correlate's transactions before the kill.
      await waitFor('events to be correlated', correlated, (n) => n >= 30, 40_000);
      await new Promise((r) => setTimeout(r, 500));

      await own.kill9();
      await new Promise((r) => setTimeout(r, 4000));
      expect({
        exitCode: child.exitCode,
        signal: child.signalCode,
        log: child.exitCode === null ? '' : output.slice(-3000),
      }).toEqual({
        exitCode: null,
        signal: null,
        log: '',
      });

      await own.restart();
      await waitFor('/health with Postgres answering', health, (h) => h.status === 'ok', 20_000);
      const sinceRestart = accepted.length;
      await waitFor(
        'agents to be accepted again',
        async () => accepted.length,
        (n) => n >= sinceRestart + 20,
        20_000,
      );
      // A host never seen before: accepted now and correlated into a host row.
      const fresh = newEvent('pgkill-after-restart');
      expect(await post(fresh)).toBe(201);
      accepted.push(fresh.event_id);
      await waitFor(
        'the new host row',
        async () => (await stores.pg.query('SELECT 1 FROM hosts WHERE hostname = $1', ['pgkill-after-restart'])).rowCount,
        (n) => n === 1,
        20_000,
      );
    } finally {
      loading = false;
      await Promise.all(agents);
    }
    expect(child.exitCode).toBeNull();
    // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
    expect([...statuses.keys()].filter((s) => !['201', '409', '503'].includes(s))).toEqual([]);

    // Nothing lost, nothing twice: every accepted event on exactly one timeline, problem counts exact.
    const ids = [...new Set(accepted)];
    const onTimeline = async () =>
      (
        await stores.pg.query<{ n: number }>(
          'SELECT count(DISTINCT event_id)::int AS n FROM problem_events WHERE event_id = ANY($1::uuid[])',
          [ids],
        )
      ).rows[0]!.n;
    await waitFor('every accepted event to be correlated', onTimeline, (n) => n === ids.length, 30_000);
    const twice = await stores.pg.query('SELECT event_id FROM problem_events GROUP BY event_id HAVING count(*) > 1');
    expect(twice.rows).toEqual([]);
    const totals = await stores.pg.query<{ events: number; counted: number }>(
      'SELECT (SELECT count(*)::int FROM problem_events) AS events, (SELECT sum(count)::int FROM problems) AS counted',
    );
    expect(totals.rows[0]!.counted).toBe(totals.rows[0]!.events);
    expect(ids.length).toBeGreaterThan(100);
  }, 90_000);
});
