// kill -9 of Postgres under load, while the service (every role in ONE process, as `npm run up` runs it)
// holds clients between queries: correlate's transactions, the scheduler's liveness scans, ingest's key
// lookups. The process must stay up, answer again once Postgres is back on the same data dir and port,
// and correlate every event answered 201 (or 409: stored by an earlier try of the same event) exactly
// once. The test runs a Postgres of its own: the shared stack's is never killed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '@watchpost/runtime';
import {
  ServiceLoad,
  acceptedAgain,
  correlatedCount,
  createLoadCredentials,
  createTestStores,
  killUnderLoad,
  serviceEnv,
  startPostgresServer,
  startServiceProcess,
  statusesBeyond,
  testConfig,
  waitFor,
  type OwnPostgres,
  type ServiceProcess,
  type TestStores,
} from '@watchpost/testkit';

const AGENTS = 6;

let own: OwnPostgres;
let stores: TestStores;
let service: ServiceProcess;
let load: ServiceLoad;

beforeAll(async () => {
  own = await startPostgresServer();
  const shared = testConfig('pg_kill');
  const url = new URL(own.url);
  url.pathname = new URL(shared.databaseUrl).pathname; // the test's database name, on its own server
  const config: Config = { ...shared, databaseUrl: url.toString() };
  stores = await createTestStores(config); // migrates the test's database on its own Postgres
  const credentials = await createLoadCredentials(stores.pg, 'pg-kill');
  service = await startServiceProcess(
    'all',
    serviceEnv(config, {
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      // Many short transactions and a scan every second: clients are checked out most of the time.
      CORRELATE_BATCH_SIZE: '20',
      CORRELATE_BATCH_MS: '20',
      SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS: '1',
    }),
  );
  // Agents only: each sends an event and retries the same event until 201 or 409, as agents do; then
  // the next (an event never answered 201 is not counted).
  load = new ServiceLoad({
    ingest: service.base,
    api: service.base,
    ...credentials,
    agents: AGENTS,
    streams: 0,
    logins: false,
    hostPrefix: 'pgkill',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await stores?.drop().catch(() => {});
  await own?.stop();
});

describe('Postgres killed (-9) under load while every role holds clients', () => {
  it('the process stays up, answers again once Postgres is back, and every accepted event is correlated once', async () => {
    const { child } = service;
    await killUnderLoad({
      load,
      processes: [service],
      server: own,
      // Load flowing through correlate's transactions before the kill.
      flowing: () =>
        waitFor(
          'events to be correlated',
          () => correlatedCount(stores.pg),
          (n) => n >= 30,
          40_000,
        ).then(() => {}),
      downMs: 4000,
      whileDown: () =>
        expect({
          exitCode: child.exitCode,
          signal: child.signalCode,
          log: child.exitCode === null ? '' : service.output().slice(-3000),
        }).toEqual({
          exitCode: null,
          signal: null,
          log: '',
        }),
      // /healthz ok: Postgres answering.
      healthyWithin: { ms: 20_000 },
      async recovered() {
        await acceptedAgain(load, { ms: 20_000 });
        // A host never seen before: accepted now and correlated into a host row.
        const fresh = load.event('pgkill-after-restart');
        expect(await load.post(fresh)).toBe(201);
        load.accepted.push(fresh.event_id);
        await waitFor(
          'the new host row',
          async () => (await stores.pg.query('SELECT 1 FROM hosts WHERE hostname = $1', ['pgkill-after-restart'])).rowCount,
          (n) => n === 1,
          20_000,
        );
      },
    });
    expect(child.exitCode).toBeNull();
    // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
    expect(statusesBeyond(load.agentStatuses, ['201', '409', '503'])).toEqual([]);

    // Nothing lost, nothing twice: every accepted event on exactly one timeline, problem counts exact.
    const ids = [...new Set(load.accepted)];
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
