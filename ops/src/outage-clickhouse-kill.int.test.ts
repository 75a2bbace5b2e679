// kill -9 of ClickHouse under load, first with every role in ONE process (as `npm run up` runs it), then
// with the roles that hold a ClickHouse client as processes of their own (store: inserts; api:
// dashboard and event-list reads; scheduler: the hourly rollup and the daily report) beside ingest and
// correlate. Every process must stay up, answer again once ClickHouse is back on the same data dir and
// port, and every event answered 201 must end up in `events` exactly once: the store's batches failed
// during the outage are retried from Kafka (an insert that reached ClickHouse before the kill and is
// retried collapses in the ReplacingMergeTree; exact reads use FINAL). The test runs a ClickHouse of
// its own: the shared stack's is never killed.
import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import {
  endedProcesses,
  exactlyOnce,
  killUnderLoad,
  readyAgain,
  setUpOutageService,
  startClickhouseServer,
  statusesBeyond,
  storedOnce,
  testConfig,
  waitFor,
  type OutageService,
  type OwnClickhouse,
  type ServiceLoad,
  type ServiceProcess,
} from '@watchpost/testkit';
import { clickhouseConfig, clickhouseUsers } from './stack/templates.ts';

const READS = ['/api/v1/dashboards/summary', '/api/v1/events?limit=20'];

interface Setup extends OutageService {
  own: OwnClickhouse;
}

const setups: Setup[] = [];

afterAll(async () => {
  for (const s of setups) await s.close();
}, 60_000);

async function setUp(name: string): Promise<Setup> {
  // Configured as the local stack configures its ClickHouse.
  const own = await startClickhouseServer({ config: clickhouseConfig, users: clickhouseUsers(availableParallelism()) });
  // Migrates the test's database on its own ClickHouse.
  const config = testConfig(name, { CLICKHOUSE_URL: own.url });
  const env = {
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
    // ClickHouse work all the time: the rollup every second, the daily report due (built once, checked every second).
    SERVICE_EVENTS_ROLLUP_INTERVAL_SECONDS: '1',
    SERVICE_DAILY_REPORT_ENABLED: 'true',
    SERVICE_DAILY_REPORT_TIME: '00:00',
    SERVICE_DAILY_REPORT_CHECK_SECONDS: '1',
  };
  const s = { own, ...(await setUpOutageService(config, name, env, own)) };
  setups.push(s);
  return s;
}

const storedRows = async (s: Setup) => {
  const rs = await s.stores.ch.query({ query: 'SELECT count() AS n FROM events', format: 'JSONEachRow' });
  return Number((await rs.json<{ n: string }>())[0]!.n);
};

async function killClickhouseUnderLoad(s: Setup, ps: ServiceProcess[], load: ServiceLoad) {
  await killUnderLoad({
    load,
    processes: ps,
    server: s.own,
    async flowing() {
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
    },
    downMs: 5000,
    whileDown: () => expect(endedProcesses(ps)).toEqual([]),
    healthyWithin: { ms: 60_000 },
    async recovered() {
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
      await readyAgain(ps, { ms: 60_000 });
    },
  });
  expect(endedProcesses(ps)).toEqual([]);
  // Ingest does not need ClickHouse: agents heard 201 (or 409) throughout, never a refused connection.
  expect(statusesBeyond(load.agentStatuses, ['201', '409'])).toEqual([]);
  // Reads during the outage: answered (503 while ClickHouse is away), never a dropped connection.
  for (const [path, m] of load.readStatuses) {
    expect({ path, heard: statusesBeyond(m, ['200', '503']) }).toEqual({ path, heard: [] });
    expect({ path, unavailable: (m.get('503') ?? 0) > 0 }).toEqual({ path, unavailable: true }); // the reads met the outage
  }
  const ids = [...new Set(load.accepted)];
  expect(ids.length).toBeGreaterThan(100);
  expect(await storedOnce(s.stores, ids)).toEqual(exactlyOnce(ids.length));
}

describe('ClickHouse killed (-9) under load', () => {
  it('every role in one process: it stays up, answers again, and every accepted event is stored once', async () => {
    const s = await setUp('ch_kill_all');
    const all = await s.start('all');
    await killClickhouseUnderLoad(s, [all], s.load(all, all, { streams: 1, hostPrefix: 'chkill', reads: READS }));
    await all.stop();
  }, 240_000);

  it('store, api and scheduler as processes of their own: each stays up and recovers', async () => {
    const s = await setUp('ch_kill_roles');
    const ps = await s.startRoles(['ingest', 'correlate', 'store', 'api', 'scheduler', 'stream']);
    const load = s.load(s.byRole('ingest'), s.byRole('api'), { streams: 1, hostPrefix: 'chkillr', reads: READS });
    await killClickhouseUnderLoad(s, ps, load);
  }, 240_000);
});
