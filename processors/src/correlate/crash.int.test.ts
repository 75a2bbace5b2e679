// kill -9 the correlate process 10 times mid-stream: the final Postgres state equals an uninterrupted
// run's (the same stream applied in-process, in order, to a second database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@watchpost/schemas';
import {
  crashChildEnv,
  crashChildren,
  createTestStores,
  eventsGroupLag,
  eventsTopicEnd,
  produceEvents,
  testConfig,
  waitFor,
  type TestStores,
} from '@watchpost/testkit';
import { processBatch } from './processor.ts';
import { correlatePosition, dumpCorrelateTables, tableDifferences, mixedStream, seeded } from '@watchpost/testkit/correlate';

const WINDOW = '20';
let crashed: TestStores;
let reference: TestStores;
const children = crashChildren();

beforeAll(async () => {
  [crashed, reference] = await Promise.all([
    createTestStores(testConfig('correlate_crash', { SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW })),
    createTestStores(testConfig('correlate_ref', { SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW }), { kafka: false }),
  ]);
});
afterAll(async () => {
  children.killAll();
  await Promise.all([crashed?.drop(), reference?.drop()]);
});

function startChild() {
  return children.start(
    'correlate',
    crashChildEnv(crashed.config, {
      SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: WINDOW,
      // Small batches: each child gets killed a few hundred events in, so ten kills stay mid-stream.
      CORRELATE_BATCH_SIZE: '20',
      CORRELATE_BATCH_MS: '50',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    }),
  );
}

/** Messages whose effects are stored (the position correlate keeps in Postgres, summed over partitions). */
const processed = () => correlatePosition(crashed.pg);

/** Messages in the topic: the stream, plus any the test producer appended twice on a retry. */
const topicEnd = () => eventsTopicEnd(crashed.config);
const groupLag = () => eventsGroupLag(crashed.config, crashed.config.consumerGroups.correlate);

describe('correlate under kill -9', () => {
  it('10 kills mid-stream: the final state equals an uninterrupted run', async () => {
    const stream = mixedStream(10_000, 11);
    await produceEvents(crashed.config, stream as unknown as EventEnvelope[]);
    // Uninterrupted reference: the same stream in order, in batches, in-process.
    const settings = { problemCorrelationWindowMinutes: Number(WINDOW), problemMinSeverity: 'warning' as const };
    for (let i = 0; i < stream.length; i += 500)
      await processBatch(reference.pg, stream.slice(i, i + 500), settings, () => new Date());

    // The test producer is not idempotent: a retried send may append a chunk twice. Correlate must
    // still reach the topic's end and, skipping the repeats, the reference state.
    const total = await topicEnd();
    expect(total).toBeGreaterThanOrEqual(stream.length);
    const rnd = seeded(3);
    let kills = 0;
    while (kills < 10) {
      const before = await processed();
      if (before >= total) break; // everything done before the tenth kill: would be a weak test
      const child = startChild();
      await waitFor('progress after a restart', processed, (n) => n > before, 60_000, 20);
      await new Promise((r) => setTimeout(r, Math.floor(rnd() * 150)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      kills++;
    }
    expect(kills).toBe(10);
    expect(await processed()).toBeLessThan(total);

    const last = startChild();
    await waitFor('the group to drain', groupLag, (n) => n === 0, 90_000, 250);
    last.kill('SIGTERM');
    await new Promise((r) => last.once('exit', r));

    const [got, want] = await Promise.all([dumpCorrelateTables(crashed.pg), dumpCorrelateTables(reference.pg)]);
    expect(await processed()).toBe(total);
    expect(got.problems.length).toBeGreaterThan(50);
    expect(tableDifferences(got, want)).toEqual({});
  }, 240_000);
});
