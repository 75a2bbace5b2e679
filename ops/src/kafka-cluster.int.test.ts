// A 3-node KRaft Kafka cluster (replication 3, min.insync.replicas 2) losing the leader of a partition of
// the events topic under retrying agents, twice: killed (-9), the service runs on two brokers, then the
// node is started again on its log dir and catches up; then a node cut off by the test kit's TCP proxy
// (its JVM runs on, as a network partition or a hung host would leave it), and reconnected.
// The service runs as `npm run up` runs it (every role in one process). Every event answered 201 (or 409: stored by an
// earlier try) is stored once and correlated once, agents hear only 201/409/503, and no consumer stops:
// while a node is away, a new event is stored and correlated.
// The cluster is the test's own (testkit/src/kafka-cluster.ts): the shared stack's broker is never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, queryRows, sql, type Config } from '@watchpost/runtime';
import {
  acceptedAgain,
  correlatedCount,
  endedProcesses,
  eventsTopicLag,
  exactlyOnce,
  healthyAgain,
  readAll,
  setUpOutageService,
  startKafkaCluster,
  statusesBeyond,
  storedOnce,
  testConfig,
  waitFor,
  type OutageService,
  type OwnKafkaCluster,
  type ServiceLoad,
  type ServiceProcess,
  type TestStores,
} from '@watchpost/testkit';

let cluster: OwnKafkaCluster;
let config: Config;
let stores: TestStores;
let svc: OutageService;
let service: ServiceProcess;
/** Every event id answered 201/409, over both faults (the totals checked are the whole database's). */
const accepted: string[] = [];
const serviceLog: string[] = [];
/** How often a consumer crashed (kafkajs restarts it) or was recreated by its watchdog, for the summary. */
const consumerTrouble = { crashed: 0, recreated: 0 };

beforeAll(async () => {
  cluster = await startKafkaCluster({ nodes: 3 });
  config = testConfig('kafka_cluster', { KAFKA_BROKERS: cluster.brokers, KAFKA_REPLICATION_FACTOR: '3' });
  expect(config.kafkaMinInsyncReplicas).toBe(2);
  // Topics with replication 3, min.insync.replicas 2.
  svc = await setUpOutageService(config, 'kafka-cluster', {
    KAFKA_BROKERS: cluster.brokers,
    KAFKA_REPLICATION_FACTOR: '3',
    // Short batches: the consumers are fetching and committing most of the time.
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
  });
  stores = svc.stores;
  service = await svc.start('all');
  // The service's own warnings and errors (kafkajs's connection noise left out), for a failure message.
  service.child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) {
      if (line.includes('"level":') && !line.includes('"logger":"kafkajs"')) serviceLog.push(line.slice(0, 1500));
      if (line.includes('consumer crashed')) consumerTrouble.crashed++;
      if (line.includes('recreating the Kafka consumer')) consumerTrouble.recreated++;
    }
    serviceLog.splice(0, Math.max(0, serviceLog.length - 200));
  });
}, 400_000);

afterAll(async () => {
  await svc?.close();
  await cluster?.stop();
}, 120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function topicState(topic: string) {
  const admin = createKafka(cluster.brokers.split(','), 'test-state').admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions;
  } finally {
    await admin.disconnect();
  }
}

/** Every partition of the service's topics led and with all three replicas in sync again. */
async function fullyReplicated(): Promise<boolean> {
  for (const t of [config.topics.events, config.topics.problems]) {
    const parts = await topicState(t).catch(() => []);
    if (parts.length === 0 || parts.some((p) => p.leader < 0 || p.isr.length !== 3)) return false;
  }
  return true;
}

const correlated = () => correlatedCount(stores.pg);

/**
 * The service survived: the process runs and answers, agents are accepted again, and a new host's event
 * is stored (ClickHouse) and correlated (Postgres): store and correlate consume.
 */
async function answersAgain(load: ServiceLoad, host: string): Promise<void> {
  expect(endedProcesses([service])).toEqual([]);
  await healthyAgain([service], { ms: 120_000, everyMs: 500 });
  await acceptedAgain(load, { ms: 120_000, everyMs: 500 });
  const fresh = load.event(host);
  await waitFor(
    'a new host to be accepted',
    () => load.post(fresh),
    (s) => s === 201 || s === 409,
    60_000,
    500,
  );
  load.accepted.push(fresh.event_id);
  await waitFor(
    `the new host's event correlated (${host})`,
    async () => (await stores.pg.query('SELECT 1 FROM problem_events WHERE event_id = $1', [fresh.event_id])).rowCount,
    (n) => n === 1,
    120_000,
    500,
  );
  await waitFor(
    `the new host's event stored (${host})`,
    async () =>
      (await queryRows<{ n: string }>(stores.ch, sql`SELECT count() AS n FROM events WHERE event_id = ${fresh.event_id}`))[0]?.n,
    (n) => Number(n) >= 1,
    120_000,
    500,
  );
}

async function eventsPartitionLedBy(
  eligible: (leader: number) => boolean = () => true,
): Promise<{ partition: number; leader: number }> {
  const parts = await topicState(config.topics.events);
  const p = parts.find((x) => x.leader > 0 && eligible(x.leader));
  if (!p) throw new Error(`no events partition with an eligible leader: ${JSON.stringify(parts.map((x) => x.leader))}`);
  return { partition: p.partitionId, leader: p.leader };
}

/** The node coordinating a consumer group: the leader of its __consumer_offsets partition (Java's String.hashCode). */
async function coordinatorOf(groupId: string): Promise<number> {
  const parts = await topicState('__consumer_offsets');
  let h = 0;
  for (const ch of groupId) h = (Math.imul(31, h) + ch.charCodeAt(0)) | 0;
  return parts.find((p) => p.partitionId === (h & 0x7fffffff) % parts.length)?.leader ?? -1;
}

/**
 * Runs a fault under retrying agents and checks the outcome over everything accepted so far: only
 * 201/409/503 heard, every event stored once and correlated once, the consumers' lag back to 0.
 */
async function underLoad(hostPrefix: string, fault: (load: ServiceLoad) => Promise<void>): Promise<void> {
  const load = svc.load(service, service, { streams: 2, hostPrefix });
  const start = await correlated();
  load.start();
  try {
    await waitFor('events to be correlated', correlated, (n) => n >= start + 30, 120_000, 500);
    await fault(load);
  } catch (err) {
    const statuses = JSON.stringify(Object.fromEntries(load.agentStatuses));
    throw new Error(`${(err as Error).message}\nagents heard ${statuses}\n${serviceLog.join('\n').slice(-12_000)}`, {
      cause: err,
    });
  } finally {
    await load.stop();
    accepted.push(...load.accepted);
  }

  expect(endedProcesses([service])).toEqual([]);
  // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
  expect(statusesBeyond(load.agentStatuses, ['201', '409', '503'])).toEqual([]);

  const ids = [...new Set(accepted)];
  expect(new Set(load.accepted).size).toBeGreaterThan(100);
  console.info(
    `kafka cluster (${hostPrefix}): ${new Set(load.accepted).size} events accepted; agents heard ${JSON.stringify(Object.fromEntries(load.agentStatuses))}; consumers so far ${JSON.stringify(consumerTrouble)}`,
  );
  // Stored once (ClickHouse) and correlated once (Postgres timelines and problem counts).
  const once = await storedOnce(stores, ids, 180_000);
  if (once.storedIds < ids.length || once.correlated < ids.length) {
    // Say which: answered 201 but absent from ClickHouse or from the timelines, and whether the events topic holds them.
    const stored = new Set(
      (await queryRows<{ id: string }>(stores.ch, sql`SELECT DISTINCT toString(event_id) AS id FROM events`)).map((r) => r.id),
    );
    const timelines = new Set(
      (await stores.pg.query<{ id: string }>('SELECT DISTINCT event_id::text AS id FROM problem_events')).rows.map((r) => r.id),
    );
    const inTopic = await readAll(config, config.topics.events, await topicSize(config.topics.events), 90_000);
    const report = (missing: string[]) => ({
      missing,
      inEventsTopic: missing.filter((id) => inTopic.some((m) => m.value.includes(id))),
    });
    expect({
      notStored: report(ids.filter((id) => !stored.has(id))),
      notCorrelated: report(ids.filter((id) => !timelines.has(id))),
      topicMessages: inTopic.length,
    }).toEqual({ notStored: { missing: [] }, notCorrelated: { missing: [] } });
  }
  expect(once).toEqual(exactlyOnce(ids.length));

  // No consumer stopped: the groups that read the events topic catch up to its end.
  await waitFor(
    'store and correlate to reach lag 0',
    () => eventsTopicLag(cluster.brokers.split(','), config),
    (l) => l.store === 0 && l.correlate === 0,
    120_000,
    1000,
  );
  expect(endedProcesses([service])).toEqual([]);
}

describe('a 3-node Kafka cluster loses the leader of an events partition under retrying agents', () => {
  it(
    'killed (-9) and restarted: every accepted event stored once and correlated once, no consumer stops',
    { timeout: 900_000 },
    () =>
      underLoad('kcluster', async (load) => {
        // kill -9 of the leader of a partition of the events topic.
        const killed = await eventsPartitionLedBy();
        await cluster.kill9(killed.leader);
        await waitFor(
          `a new leader for events partition ${killed.partition}`,
          () => cluster.leaderOf(config.topics.events, killed.partition).catch(() => -1),
          (l) => l > 0 && l !== killed.leader,
          90_000,
          500,
        );
        await sleep(5000); // the service runs on two brokers for a while
        await answersAgain(load, 'kcluster-after-kill');
        await cluster.restart(killed.leader);
        await waitFor('all replicas back in sync after the restart', fullyReplicated, Boolean, 180_000, 1000);
        await answersAgain(load, 'kcluster-after-restart');
      }),
  );

  // The node cut off leads an events partition and, when one can be had, coordinates the correlate or
  // store group (where kafkajs kept talking to a coordinator it could not reach, and the consumer stopped
  // until the batch consumer's watchdog recreated it). It is not the active controller: with the active
  // controller of this 3-node KRaft cluster (Kafka 3.9.1) cut off, the two other nodes answered no broker
  // list and UNKNOWN_TOPIC_OR_PARTITION for existing topics for the 90 s a trial watched. A controller
  // failover under partition is Kafka's matter and not what this test asserts.
  it(
    'isolated (every connection into it cut) and reconnected: every accepted event stored once and correlated once, no consumer stops',
    { timeout: 900_000 },
    () =>
      underLoad('kisolated', async (load) => {
        const controller = cluster.activeController();
        const coordinators = [
          await coordinatorOf(config.consumerGroups.correlate),
          await coordinatorOf(config.consumerGroups.store),
        ];
        const eligible = (l: number) => l !== controller;
        const cut = await eventsPartitionLedBy((l) => eligible(l) && coordinators.includes(l)).catch(() =>
          eventsPartitionLedBy(eligible),
        );
        console.info(
          `kafka cluster: isolating node ${cut.leader} (leads events partition ${cut.partition}; active controller ${controller}; coordinators correlate/store ${coordinators.join('/')})`,
        );
        const since = Date.now();
        cluster.isolate(cut.leader);
        await waitFor(
          `a new leader for events partition ${cut.partition}`,
          () => cluster.leaderOf(config.topics.events, cut.partition).catch(() => -1),
          (l) => l > 0 && l !== cut.leader,
          90_000,
          500,
        );
        await answersAgain(load, 'kisolated-while-cut');
        console.info(
          `kafka cluster: ${Date.now() - since} ms after the cut a new event was stored and correlated; consumers so far ${JSON.stringify(consumerTrouble)}`,
        );
        // Away longer than a consumer session (30 s): a group coordinated there has moved.
        await sleep(Math.max(0, 45_000 - (Date.now() - since)));
        await answersAgain(load, 'kisolated-still-cut');
        cluster.reconnect(cut.leader);
        await waitFor('all replicas back in sync after the reconnect', fullyReplicated, Boolean, 180_000, 1000);
        await answersAgain(load, 'kisolated-after-reconnect');
      }),
  );
});

/** Messages in the topic (readAll reads until it has this many: the whole topic). */
async function topicSize(topic: string): Promise<number> {
  const admin = createKafka(cluster.brokers.split(','), 'test-size').admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}
