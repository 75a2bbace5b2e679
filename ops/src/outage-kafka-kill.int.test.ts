// kill -9 of the Kafka broker under load, first with every role in ONE process (as `npm run up` runs
// it), then with one process per role: agents posting (ingest's producer waiting for acks), the
// consumers of store, correlate, stream and notify between fetches and commits, live streams open and
// logins. Every process must stay up and answer again once the broker is back on the same log dir and
// port, and every event answered 201 (or 409) must be stored and correlated exactly once.
// The broker is the test's own (a 1-node cluster of testkit/src/kafka-cluster.ts, the stack's jars and
// property template): the shared stack's broker is never killed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ROLES } from '@watchpost/runtime';
import {
  acceptedAgain,
  endedProcesses,
  eventsTopicLag,
  exactlyOnce,
  killUnderLoad,
  loadFlowing,
  setUpOutageService,
  startKafkaCluster,
  statusesBeyond,
  storedOnce,
  streamsFedAgain,
  testConfig,
  waitFor,
  type OutageService,
  type OwnKafkaCluster,
  type ServiceLoad,
  type ServiceProcess,
} from '@watchpost/testkit';

let kafka: OwnKafkaCluster;
const setups: OutageService[] = [];

beforeAll(async () => {
  kafka = await startKafkaCluster({ nodes: 1 });
}, 300_000);

afterAll(async () => {
  for (const s of setups) await s.close();
  await kafka?.stop();
}, 120_000);

async function setUp(name: string): Promise<OutageService> {
  const s = await setUpOutageService(testConfig(name, { KAFKA_BROKERS: kafka.brokers }), name, {
    KAFKA_BROKERS: kafka.brokers,
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
  });
  setups.push(s);
  return s;
}

async function killKafkaUnderLoad(s: OutageService, ps: ServiceProcess[], load: ServiceLoad): Promise<void> {
  await killUnderLoad({
    load,
    processes: ps,
    server: { kill9: () => kafka.kill9(1), restart: () => kafka.restart(1) },
    flowing: () =>
      loadFlowing(s.stores.pg, load, {
        correlated: 30,
        correlatedWithin: { ms: 120_000, everyMs: 500 },
        streamsWithin: { ms: 60_000, everyMs: 500 },
      }),
    // Longer than kafkajs's retries (8, up to 5 s apart: about 25 s) and a consumer's session (30 s):
    // every producer, consumer and admin client runs out of retries at least once.
    downMs: 45_000,
    whileDown: () => expect(endedProcesses(ps)).toEqual([]),
    healthyWithin: { ms: 120_000, everyMs: 500 },
    async recovered(back) {
      await acceptedAgain(load, { ms: 120_000, everyMs: 500 });
      await streamsFedAgain(load, back, 'after the restart', { ms: 120_000, everyMs: 500 });
      expect((await load.login()).status).toBe(200);
    },
    report: () => `--- kafka\n${kafka.output(1).slice(-2000)}`,
  });
  expect(endedProcesses(ps)).toEqual([]);
  // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
  expect(statusesBeyond(load.agentStatuses, ['201', '409', '503'])).toEqual([]);
  const ids = [...new Set(load.accepted)];
  expect(ids.length).toBeGreaterThan(100);
  console.info(
    `kafka kill (${ps.map((p) => p.role).join(',')}): ${ids.length} events accepted; agents heard ${JSON.stringify(Object.fromEntries(load.agentStatuses))}`,
  );
  expect(await storedOnce(s.stores, ids, 180_000)).toEqual(exactlyOnce(ids.length));
  // No consumer stopped: store and correlate catch up to the end of the events topic.
  await waitFor(
    'store and correlate to reach lag 0',
    () => eventsTopicLag(kafka.brokers.split(','), s.config),
    (l) => l.store === 0 && l.correlate === 0,
    120_000,
    1000,
  );
  expect(endedProcesses(ps)).toEqual([]);
}

describe('the Kafka broker killed (-9) under load and restarted on its log dir', () => {
  it('every role in one process: it stays up, answers again, and every accepted event is stored and correlated once', async () => {
    const s = await setUp('kafka_kill_all');
    const all = await s.start('all');
    await killKafkaUnderLoad(s, [all], s.load(all, all, { streams: 2, hostPrefix: 'kkill' }));
    await all.stop();
  }, 600_000);

  it('one process per role: each stays up and answers again, every accepted event stored and correlated once', async () => {
    const s = await setUp('kafka_kill_roles');
    const ps = await s.startRoles(SERVICE_ROLES);
    await killKafkaUnderLoad(s, ps, s.load(s.byRole('ingest'), s.byRole('api'), { streams: 2, hostPrefix: 'kkillr' }));
  }, 600_000);
});
