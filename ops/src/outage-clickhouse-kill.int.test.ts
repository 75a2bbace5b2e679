// kill -9 of ClickHouse under load, first with every role in ONE process (as `npm run up` runs it), then
// with the roles that hold a ClickHouse client as processes of their own (store: inserts; api:
// dashboard and event-list reads; scheduler: the hourly rollup and the daily report) beside ingest and
// correlate. Every process must stay up, answer again once ClickHouse is back on the same data dir and
// port, and every event answered 201 must end up in `events` exactly once: the store's batches failed
// during the outage are retried from Kafka (an insert that reached ClickHouse before the kill and is
// retried collapses in the ReplacingMergeTree; exact reads use FINAL). The test runs a ClickHouse of
// its own: the shared stack's is never killed.
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '@watchpost/runtime';
import { createApiKey, createUser } from '@watchpost/core';
import {
  ServiceLoad,
  createTestStores,
  endedProcesses,
  exactlyOnce,
  health,
  readyStatus,
  serviceEnv,
  startClickhouseServer,
  startServiceProcess,
  storedOnce,
  testConfig,
  waitFor,
  type OwnClickhouse,
  type ServiceProcess,
  type TestStores,
} from '@watchpost/testkit';

const READS = ['/api/v1/dashboards/summary', '/api/v1/events?limit=20'];

interface Setup {
  own: OwnClickhouse;
  stores: TestStores;
  env: Record<string, string>;
  key: string;
  password: string;
}

const procs: ServiceProcess[] = [];
const setups: Setup[] = [];

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  for (const s of setups) {
    await s.stores.drop().catch(() => {});
    await s.own.stop();
  }
}, 60_000);

async function setUp(name: string): Promise<Setup> {
  const own = await startClickhouseServer();
  const config: Config = testConfig(name, { CLICKHOUSE_URL: own.url });
  const stores = await createTestStores(config); // migrates the test's database on its own ClickHouse
  const key = (await createApiKey(stores.pg, name)).key;
  const password = `pw-${name}-operator`;
  await createUser(stores.pg, { username: 'operator', password, role: 'admin' });
  const env = serviceEnv(config, {
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
    // ClickHouse work all the time: the rollup every second, the daily report due (built once, checked every second).
    SERVICE_EVENTS_ROLLUP_INTERVAL_SECONDS: '1',
    SERVICE_DAILY_REPORT_ENABLED: 'true',
    SERVICE_DAILY_REPORT_TIME: '00:00',
    SERVICE_DAILY_REPORT_CHECK_SECONDS: '1',
  });
  const s = { own, stores, env, key, password };
  setups.push(s);
  return s;
}

async function start(s: Setup, role: string): Promise<ServiceProcess> {
  const p = await startServiceProcess(role, s.env);
  procs.push(p);
  return p;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const storedRows = async (s: Setup) => {
  const rs = await s.stores.ch.query({ query: 'SELECT count() AS n FROM events', format: 'JSONEachRow' });
  return Number((await rs.json<{ n: string }>())[0]!.n);
};

async function killUnderLoad(s: Setup, ps: ServiceProcess[], load: ServiceLoad) {
  load.start();
  try {
    await waitFor(
      'events to be stored',
      () => storedRows(s),
      (n) => n >= 30,
      60_000,
    );
    await waitFor(
      'dashboard reads',
      async () => load.readStatuses.get(READS[0]!)?.get('200') ?? 0,
      (n) => n >= 2,
      30_000,
    );
    await sleep(500);

    await s.own.kill9();
    await sleep(5000);
    expect(endedProcesses(ps)).toEqual([]);

    await s.own.restart();
    for (const p of ps)
      await waitFor(
        `${p.role} /healthz ok`,
        () => health(p.base).catch(() => null),
        (h) => h?.status === 'ok',
        60_000,
      );
    const since = await storedRows(s);
    await waitFor(
      'the store to insert again',
      () => storedRows(s),
      (n) => n >= since + 20,
      60_000,
    );
    const { token } = await load.login();
    for (const path of READS)
      await waitFor(
        `${path} answered`,
        () => load.read(path, token!),
        (st) => st === 200,
        30_000,
      );
    for (const p of ps)
      await waitFor(
        `${p.role} /readyz`,
        () => readyStatus(p.base).catch(() => 0),
        (st) => st === 200,
        60_000,
      );
  } catch (err) {
    const heard = {
      agents: Object.fromEntries(load.agentStatuses),
      reads: [...load.readStatuses].map(([k, m]) => [k, Object.fromEntries(m)]),
    };
    const logs = ps.map((p) => `--- ${p.role}\n${p.output().slice(-4000)}`).join('\n');
    throw new Error(`${(err as Error).message}\nheard ${JSON.stringify(heard)}\n${logs}`, { cause: err });
  } finally {
    await load.stop();
  }
  expect(endedProcesses(ps)).toEqual([]);
  // Ingest does not need ClickHouse: agents heard 201 (or 409) throughout, never a refused connection.
  expect([...load.agentStatuses.keys()].filter((st) => !['201', '409'].includes(st))).toEqual([]);
  // Reads during the outage: answered (503 while ClickHouse is away), never a dropped connection.
  for (const [path, m] of load.readStatuses) {
    expect({ path, heard: [...m.keys()].filter((st) => !['200', '503'].includes(st)) }).toEqual({ path, heard: [] });
    expect({ path, unavailable: (m.get('503') ?? 0) > 0 }).toEqual({ path, unavailable: true }); // the reads met the outage
  }
  const ids = [...new Set(load.accepted)];
  expect(ids.length).toBeGreaterThan(100);
  expect(await storedOnce(s.stores, ids)).toEqual(exactlyOnce(ids.length));
}

function loadFor(s: Setup, ingest: string, api: string, hostPrefix: string): ServiceLoad {
  return new ServiceLoad({
    ingest,
    api,
    apiKey: s.key,
    username: 'operator',
    password: s.password,
    agents: 6,
    streams: 1,
    hostPrefix,
    reads: READS,
  });
}

describe('ClickHouse killed (-9) under load', () => {
  it('every role in one process: it stays up, answers again, and every accepted event is stored once', async () => {
    const s = await setUp('ch_kill_all');
    const all = await start(s, 'all');
    await killUnderLoad(s, [all], loadFor(s, all.base, all.base, 'chkill'));
    await all.stop();
  }, 240_000);

  it('store, api and scheduler as processes of their own: each stays up and recovers', async () => {
    const s = await setUp('ch_kill_roles');
    const ps = await Promise.all(['ingest', 'correlate', 'store', 'api', 'scheduler', 'stream'].map((role) => start(s, role)));
    const byRole = (r: string) => ps.find((p) => p.role === r)!;
    await killUnderLoad(s, ps, loadFor(s, byRole('ingest').base, byRole('api').base, 'chkillr'));
  }, 240_000);
});
