// Two correlate processes in one group split the partitions; one is killed with SIGKILL while events
// keep arriving: the other takes its partitions over after the session timeout, nothing is lost and
// nothing counted twice (the final state equals an uninterrupted in-process run of the same stream).
import { AssignerProtocol } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '@watchpost/runtime';
import { encodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import {
  crashChildEnv,
  crashChildren,
  createTestStores,
  eventsTopicEnd,
  testConfig,
  withKafkaAdmin,
  type TestStores,
} from '@watchpost/testkit';
import { correlatePosition, dumpCorrelateTables, tableDifferences, mixedStream } from '@watchpost/testkit/correlate';
import { processBatch } from './processor.ts';

const WINDOW = '20';
const SESSION_TIMEOUT_MS = 6000;
let live: TestStores;
let reference: TestStores;
const children = crashChildren();

beforeAll(async () => {
  [live, reference] = await Promise.all([
    createTestStores(
      testConfig('correlate_scale', { SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW, KAFKA_PARTITIONS: '4' }),
    ),
    createTestStores(testConfig('correlate_scale_ref', { SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW }), { kafka: false }),
  ]);
});
afterAll(async () => {
  children.killAll();
  await Promise.all([live?.drop(), reference?.drop()]);
});

function startChild() {
  return children.start(
    'correlate',
    crashChildEnv(live.config, {
      SERVICE_ROLE: 'correlate',
      SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW,
      CORRELATE_BATCH_SIZE: '100',
      CORRELATE_BATCH_MS: '50',
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    }),
  );
}

const owns = (m: { memberAssignment: Buffer }) =>
  Object.values(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).some((ps) => ps.length > 0);

const groupState = () =>
  withKafkaAdmin(live.config, 'test-admin', async (admin) => {
    const { groups } = await admin.describeGroups([live.config.consumerGroups.correlate]);
    return `${groups[0]?.state}:${groups[0]?.members.filter(owns).length}`;
  });

/** Stored position per partition. */
async function positions(): Promise<Map<number, number>> {
  const r = await live.pg.query<{ partition: number; n: string }>(
    'SELECT partition, next_offset::text AS n FROM consumer_offsets',
  );
  return new Map(r.rows.map((x) => [x.partition, Number(x.n)]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two correlate processes, one killed under load', () => {
  it('the survivor takes over its partitions; nothing lost, nothing counted twice', async () => {
    const stream = mixedStream(30_000, 17);
    const settings = { problemCorrelationWindowMinutes: Number(WINDOW), problemMinSeverity: 'warning' as const };
    for (let i = 0; i < stream.length; i += 500)
      await processBatch(reference.pg, stream.slice(i, i + 500), settings, () => new Date());

    const a = startChild();
    startChild();
    // Events arrive at ~2,000/s for 15 s while the processes run.
    const producer = createKafka(live.config.kafkaBrokers, 'test-producer').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const producing = (async () => {
      for (let i = 0; i < stream.length; i += 200) {
        const t = Date.now();
        await producer.send({
          topic: live.config.topics.events,
          acks: -1,
          messages: stream
            .slice(i, i + 200)
            .map((e) => ({ key: e.event.host.hostname, value: encodeEnvelope(e as unknown as EventEnvelope) })),
        });
        await sleep(Math.max(0, 100 - (Date.now() - t)));
      }
    })();

    // Both members in the group and every partition moving.
    const seen = new Map<number, number>();
    const lastChange = new Map<number, number>();
    const poll = async () => {
      for (const [p, n] of await positions()) {
        if (seen.get(p) !== n) lastChange.set(p, Date.now());
        seen.set(p, n);
      }
    };
    const deadline = Date.now() + 60_000;
    while ((seen.size < 4 || Date.now() - Math.max(...lastChange.values()) > 500) && Date.now() < deadline) {
      await poll();
      await sleep(100);
    }
    // Both members hold partitions (a Stable group of two), so the one killed owns some.
    while ((await groupState()) !== 'Stable:2' && Date.now() < deadline) await sleep(200);
    await sleep(2000); // the new owners fetch again
    await poll();
    expect(seen.size).toBe(4);

    a.kill('SIGKILL');
    const killedAt = Date.now();
    const before = new Map(seen);
    // Each partition's first advance after the kill: the killed member's partitions wait for the takeover.
    const resumed = new Map<number, number>();
    while (resumed.size < 4 && Date.now() - killedAt < 30_000) {
      await poll();
      for (const [p, n] of seen) if (!resumed.has(p) && n > before.get(p)!) resumed.set(p, Date.now() - killedAt);
      await sleep(100);
    }
    await producing;
    await producer.disconnect();
    const takeoverMs = Math.max(...resumed.values());
    console.log(`partitions resumed after the kill (ms): ${JSON.stringify(Object.fromEntries(resumed))}`);
    expect(resumed.size).toBe(4);
    // The session timeout, then one rebalance round (heartbeat at a tenth of it, join, sync, fetch).
    expect(takeoverMs).toBeGreaterThan(1000); // the killed member owned something
    expect(takeoverMs).toBeLessThan(SESSION_TIMEOUT_MS + 5000);

    // Drained: the stored positions reach the end of every partition.
    const total = await eventsTopicEnd(live.config);
    expect(total).toBe(stream.length);
    const end = Date.now() + 60_000;
    while ((await correlatePosition(live.pg)) < total && Date.now() < end) await sleep(200);
    expect(await correlatePosition(live.pg)).toBe(total);

    const [got, want] = await Promise.all([dumpCorrelateTables(live.pg), dumpCorrelateTables(reference.pg)]);
    expect(got.problems.length).toBeGreaterThan(50);
    expect(tableDifferences(got, want)).toEqual({});
  }, 180_000);
});
