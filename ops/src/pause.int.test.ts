// A paused processor (a GC pause, a VM stall: SIGSTOP here) past the Kafka session timeout is a zombie
// when it wakes: its group moved its partitions (and BullMQ its jobs) to a second instance meanwhile.
// Two instances each of correlate, notify and deliver run as separate processes (ops/src/start.ts
// <role>); the first of each is stopped while events keep coming, for longer than the session timeout
// and the delivery job lock, then continued. Every problem counts each event once, every event and new
// problem is delivered to the webhook exactly once (the receiver counts arrivals per delivery id),
// nothing is lost, and the woken processes keep running.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AssignerProtocol } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, repoRoot } from '@watchpost/runtime';
import { encodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import { createTestStores, makeEnvelope, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import { correlatePosition } from '@watchpost/testkit/correlate';
import { startHttpReceiver, type HttpReceiver } from '@watchpost/testkit/notify';

const SESSION_TIMEOUT_MS = 6000;
const LOCK_MS = 2000;
const HOSTS = Array.from({ length: 8 }, (_, i) => `pause-host-${i}`);
const PER_HOST = 50;
const TYPE = 'ssh.bruteforce.mass';

let stores: TestStores;
let rx: HttpReceiver;
let env: Record<string, string>;
const children = new Set<ChildProcess>();
let output = '';

beforeAll(async () => {
  rx = await startHttpReceiver();
  rx.delayMs = 1000; // every worker slot busy with a delivery in flight: the pause catches some mid-send
  env = {
    KAFKA_PARTITIONS: '4',
    KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: '600',
    NOTIFY_CHANNELS: 'webhook',
    NOTIFY_WEBHOOK_URL: `${rx.url}/hook`,
    NOTIFY_WEBHOOK_ALLOW: '127.0.0.1',
    NOTIFY_MIN_SEVERITY: 'high',
    NOTIFY_FROM_BEGINNING: 'true',
    NOTIFY_LOCK_MS: String(LOCK_MS),
    NOTIFY_DELIVERY_CONCURRENCY: '4',
    NOTIFY_BACKOFF_MS: '100',
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '50',
  };
  stores = await createTestStores(testConfig('pause', env));
}, 60_000);

afterAll(async () => {
  for (const c of children) {
    c.kill('SIGCONT');
    c.kill('SIGKILL');
  }
  await rx?.close();
  await stores?.drop();
});

function start(role: 'correlate' | 'notify' | 'deliver'): ChildProcess {
  const c = stores.config;
  const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), role], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      SERVICE_ROLE: role,
      DATABASE_URL: c.databaseUrl,
      CLICKHOUSE_DATABASE: c.clickhouseDatabase,
      KAFKA_TOPIC_PREFIX: c.topicPrefix,
      BULLMQ_PREFIX: c.queuePrefix,
      REDIS_KEY_PREFIX: c.redisKeyPrefix,
      SERVICE_STATE_DIR: c.stateDir,
      PORT: '0',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => (output = (output + `[${role} ${child.pid}] ${d.toString()}`).slice(-20_000)));
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

const owns = (m: { memberAssignment: Buffer }) =>
  Object.values(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).some((ps) => ps.length > 0);

/** Members holding partitions, per group, once each group is Stable. */
async function owners(groups: string[]): Promise<number[] | null> {
  const admin = createKafka(stores.config.kafkaBrokers, 'test-admin').admin();
  await admin.connect();
  try {
    const d = await admin.describeGroups(groups);
    return d.groups.every((g) => g.state === 'Stable') ? d.groups.map((g) => g.members.filter(owns).length) : null;
  } finally {
    await admin.disconnect();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('correlate, notify and deliver paused past the session timeout', () => {
  it('counts every event once and delivers every notification exactly once', async () => {
    const groups = [stores.config.consumerGroups.correlate, stores.config.consumerGroups.notify];
    const first = (['correlate', 'notify', 'deliver'] as const).map(start);
    (['correlate', 'notify', 'deliver'] as const).map(start);
    await waitFor(
      'both instances own partitions in each group',
      () => owners(groups),
      (o) => o?.every((n) => n === 2) ?? false,
      90_000,
      500,
    );

    // 400 high events over ~20 s, a host's events in order on its partition.
    const events: EventEnvelope[] = HOSTS.flatMap((hostname) =>
      Array.from({ length: PER_HOST }, (_, i) =>
        makeEnvelope(
          {
            event_id: randomUUID(),
            source: { product: 'ssh-monitor', product_version: '2.4.1', agent_instance_id: `agent-${hostname}` },
            host: { hostname, os_family: 'linux' },
            type: TYPE,
            severity: 'high',
          },
          i,
        ),
      ),
    ).sort(() => Math.random() - 0.5);
    const producer = createKafka(stores.config.kafkaBrokers, 'test-producer').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const producing = (async () => {
      for (let i = 0; i < events.length; i += 10) {
        const now = new Date().toISOString();
        await producer.send({
          topic: stores.config.topics.events,
          acks: -1,
          messages: events
            .slice(i, i + 10)
            .map((e) => ({ key: e.event.host.hostname, value: encodeEnvelope({ ...e, received_at: now }) })),
        });
        await sleep(500);
      }
    })();

    // Paused while busy: every role has work in hand (a batch, a transaction, webhooks in flight).
    await waitFor(
      'deliveries under way',
      async () => rx.requests.length,
      (n) => n >= 20,
      60_000,
      50,
    );
    for (const c of first) c.kill('SIGSTOP');
    const pausedAt = Date.now();
    // The second instances take over (session timeout, then a rebalance; the job locks expire) and go on.
    const arrivedAtPause = rx.requests.length;
    await waitFor(
      'the others go on alone',
      () => owners(groups),
      (o) => o?.every((n) => n === 1) ?? false,
      60_000,
      500,
    );
    await waitFor(
      'deliveries go on',
      async () => rx.requests.length,
      (n) => n >= arrivedAtPause + 20,
      60_000,
      100,
    );
    await sleep(Math.max(0, SESSION_TIMEOUT_MS + 3000 - (Date.now() - pausedAt)));
    for (const c of first) c.kill('SIGCONT');
    await producing;
    await producer.disconnect();

    // Drained: correlate's stored positions reach the end of every partition; every delivery is final.
    await waitFor(
      'correlate drained',
      () => correlatePosition(stores.pg),
      (n) => n === events.length,
      90_000,
      200,
    );
    const expected = events.length + HOSTS.length; // one per event (rule 1) and one per new problem
    const deliveries = await waitFor(
      'every delivery sent',
      async () => (await stores.pg.query<{ id: string; state: string }>('SELECT id, state FROM notification_deliveries')).rows,
      (rows) => rows.length === expected && rows.every((r) => r.state === 'sent'),
      120_000,
      300,
    );
    await sleep(LOCK_MS * 3); // a late repeat from a woken worker would arrive by now

    // Problems: one per host, counting each of its events once.
    const problems = await stores.pg.query<{ host: string; count: number }>(
      'SELECT host, count FROM problems WHERE type = $1 ORDER BY host',
      [TYPE],
    );
    expect(problems.rows).toEqual(HOSTS.map((host) => ({ host, count: PER_HOST })).sort((a, b) => a.host.localeCompare(b.host)));
    const timeline = await stores.pg.query<{ n: number; d: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d FROM problem_events',
    );
    expect(timeline.rows[0]).toEqual({ n: events.length, d: events.length });

    // Deliveries: each event and new problem decided once, each delivery received exactly once.
    const subjects = await stores.pg.query<{ subject_key: string }>('SELECT subject_key FROM notification_deliveries');
    expect(new Set(subjects.rows.map((r) => r.subject_key)).size).toBe(expected);
    const arrivals = new Map<string, number>();
    for (const r of rx.requests) {
      const id = r.headers['x-watchpost-delivery'] as string;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    }
    expect(new Set(arrivals.keys())).toEqual(new Set(deliveries.map((d) => d.id)));
    expect([...arrivals].filter(([, n]) => n > 1)).toEqual([]);

    // The woken processes kept running (a zombie that crashed would be gone).
    expect(
      first.map((c) => c.exitCode),
      output,
    ).toEqual([null, null, null]);
  }, 400_000);
});
