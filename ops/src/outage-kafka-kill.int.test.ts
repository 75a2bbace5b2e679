// kill -9 of the Kafka broker under load, first with every role in ONE process (as `npm run up` runs
// it), then with one process per role: agents posting (ingest's producer waiting for acks), the
// consumers of store, correlate, stream and notify between fetches and commits, live streams open and
// logins. Every process must stay up and answer again once the broker is back on the same log dir and
// port, and every event answered 201 (or 409) must be stored and correlated exactly once.
// The broker is the test's own (a 1-node cluster of testkit/src/kafka-cluster.ts, the stack's jars and
// property template): the shared stack's broker is never killed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ROLES, createKafka, type Config } from '@watchpost/runtime';
import { createApiKey, createUser } from '@watchpost/core';
import {
  ServiceLoad,
  createTestStores,
  endedProcesses,
  exactlyOnce,
  health,
  serviceEnv,
  startKafkaCluster,
  startServiceProcess,
  storedOnce,
  testConfig,
  waitFor,
  type OwnKafkaCluster,
  type ServiceProcess,
  type TestStores,
} from '@watchpost/testkit';

interface Setup {
  config: Config;
  stores: TestStores;
  env: Record<string, string>;
  key: string;
  password: string;
}

let kafka: OwnKafkaCluster;
const procs: ServiceProcess[] = [];
const setups: Setup[] = [];

beforeAll(async () => {
  kafka = await startKafkaCluster({ nodes: 1 });
}, 300_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  for (const s of setups) await s.stores.drop().catch(() => {});
  await kafka?.stop();
}, 120_000);

async function setUp(name: string): Promise<Setup> {
  const config = testConfig(name, { KAFKA_BROKERS: kafka.brokers });
  const stores = await createTestStores(config);
  const key = (await createApiKey(stores.pg, name)).key;
  const password = `pw-${name}-operator`;
  await createUser(stores.pg, { username: 'operator', password, role: 'admin' });
  const env = serviceEnv(config, {
    KAFKA_BROKERS: kafka.brokers,
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
  });
  const s = { config, stores, env, key, password };
  setups.push(s);
  return s;
}

async function start(s: Setup, role: string): Promise<ServiceProcess> {
  const p = await startServiceProcess(role, s.env);
  procs.push(p);
  return p;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Committed lag of the groups that read the events topic. */
async function lags(config: Config): Promise<Record<'store' | 'correlate', number>> {
  const admin = createKafka(kafka.brokers.split(','), 'test-lag').admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(config.topics.events);
    const lag = async (groupId: string) => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [config.topics.events] });
      return ends.reduce((sum, e) => {
        const c = Number(committed!.partitions.find((p) => p.partition === e.partition)?.offset ?? -1);
        return sum + Number(e.high) - (c < 0 ? 0 : c);
      }, 0);
    };
    return { store: await lag(config.consumerGroups.store), correlate: await lag(config.consumerGroups.correlate) };
  } finally {
    await admin.disconnect();
  }
}

async function killUnderLoad(s: Setup, ps: ServiceProcess[], load: ServiceLoad): Promise<void> {
  const correlated = async () =>
    (await s.stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM problem_events')).rows[0]!.n;
  load.start();
  try {
    await waitFor('events to be correlated', correlated, (n) => n >= 30, 120_000, 500);
    await waitFor(
      'live streams to be fed',
      async () => load.streamsFedSince(0),
      (n) => n >= 2,
      60_000,
      500,
    );
    await sleep(500);

    await kafka.kill9(1);
    // Longer than kafkajs's retries (8, up to 5 s apart: about 25 s) and a consumer's session (30 s):
    // every producer, consumer and admin client runs out of retries at least once.
    await sleep(45_000);
    expect(endedProcesses(ps)).toEqual([]);

    await kafka.restart(1);
    const back = Date.now();
    for (const p of ps)
      await waitFor(
        `${p.role} /healthz ok`,
        () => health(p.base).catch(() => null),
        (h) => h?.status === 'ok',
        120_000,
        500,
      );
    const since = load.accepted.length;
    await waitFor(
      'agents to be accepted again',
      async () => load.accepted.length,
      (n) => n >= since + 20,
      120_000,
      500,
    );
    await waitFor(
      'live streams fed after the restart',
      async () => load.streamsFedSince(back),
      (n) => n >= 2,
      120_000,
      500,
    );
    expect((await load.login()).status).toBe(200);
  } catch (err) {
    const statuses = JSON.stringify(Object.fromEntries(load.agentStatuses));
    const logs = ps.map((p) => `--- ${p.role}\n${p.output().slice(-4000)}`).join('\n');
    throw new Error(`${(err as Error).message}\nagents heard ${statuses}\n${logs}\n--- kafka\n${kafka.output(1).slice(-2000)}`, {
      cause: err,
    });
  } finally {
    await load.stop();
  }
  expect(endedProcesses(ps)).toEqual([]);
  // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
  expect([...load.agentStatuses.keys()].filter((st) => !['201', '409', '503'].includes(st))).toEqual([]);
  const ids = [...new Set(load.accepted)];
  expect(ids.length).toBeGreaterThan(100);
  console.info(
    `kafka kill (${ps.map((p) => p.role).join(',')}): ${ids.length} events accepted; agents heard ${JSON.stringify(Object.fromEntries(load.agentStatuses))}`,
  );
  expect(await storedOnce(s.stores, ids, 180_000)).toEqual(exactlyOnce(ids.length));
  // No consumer stopped: store and correlate catch up to the end of the events topic.
  await waitFor(
    'store and correlate to reach lag 0',
    () => lags(s.config),
    (l) => l.store === 0 && l.correlate === 0,
    120_000,
    1000,
  );
  expect(endedProcesses(ps)).toEqual([]);
}

describe('the Kafka broker killed (-9) under load and restarted on its log dir', () => {
  it('every role in one process: it stays up, answers again, and every accepted event is stored and correlated once', async () => {
    const s = await setUp('kafka_kill_all');
    const all = await start(s, 'all');
    const load = new ServiceLoad({
      ingest: all.base,
      api: all.base,
      apiKey: s.key,
      username: 'operator',
      password: s.password,
      agents: 6,
      streams: 2,
      hostPrefix: 'kkill',
    });
    await killUnderLoad(s, [all], load);
    await all.stop();
  }, 600_000);

  it('one process per role: each stays up and answers again, every accepted event stored and correlated once', async () => {
    const s = await setUp('kafka_kill_roles');
    const ps = await Promise.all(SERVICE_ROLES.map((role) => start(s, role)));
    const byRole = (r: string) => ps.find((p) => p.role === r)!;
    const load = new ServiceLoad({
      ingest: byRole('ingest').base,
      api: byRole('api').base,
      apiKey: s.key,
      username: 'operator',
      password: s.password,
      agents: 6,
      streams: 2,
      hostPrefix: 'kkillr',
    });
    await killUnderLoad(s, ps, load);
  }, 600_000);
});
