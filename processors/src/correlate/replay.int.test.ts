// 10,000 events through Kafka and the correlate role, then the same 10,000 again (consumer group
// deleted): Postgres stays identical, and problems.v1 carries one "problem opened" message per problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, createLogger, metrics, type RoleHandle } from '@watchpost/runtime';
import type { EventEnvelope } from '@watchpost/schemas';
import {
  createTestStores,
  eventsGroupLag,
  produceEvents,
  readAll,
  testConfig,
  waitFor,
  withKafkaAdmin,
  type TestStores,
} from '@watchpost/testkit';
import { correlateRole } from './index.ts';
import { correlatePosition, dumpCorrelateTables, mixedStream, tableDifferences } from '@watchpost/testkit/correlate';

let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores(
    testConfig('correlate_replay', { SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: '20', CORRELATE_BATCH_SIZE: '500' }),
  );
});
afterAll(async () => stores?.drop());

/** Messages of the events topic not yet committed by the correlate group. */
const groupLag = () => eventsGroupLag(stores.config, stores.config.consumerGroups.correlate);

async function metricSum(name: string): Promise<number> {
  const m = metrics.getSingleMetric(name);
  if (!m) throw new Error(`metric ${name} not registered`);
  return (await m.get()).values.reduce((s, v) => s + v.value, 0);
}

async function runRoleUntilDrained(): Promise<void> {
  const clients = new Clients(stores.config);
  const handle: RoleHandle = await correlateRole({ config: stores.config, log: createLogger('silent', 'test'), clients });
  try {
    await waitFor('correlate to drain events.v1', groupLag, (n) => n === 0, 90_000, 250);
    await waitFor(
      'the outbox relay',
      async () =>
        (await stores.pg.query('SELECT count(*)::int AS n FROM problem_outbox WHERE sent_at IS NULL')).rows[0].n as number,
      (n) => n === 0,
      30_000,
    );
  } finally {
    await handle.close?.();
    await clients.close();
  }
}

describe('correlate through Kafka', () => {
  it('the same 10,000 events processed twice leave Postgres identical', async () => {
    const stream = mixedStream(10_000, 7);
    await produceEvents(stores.config, stream as unknown as EventEnvelope[]);
    await runRoleUntilDrained();
    const first = await dumpCorrelateTables(stores.pg);
    expect(await correlatePosition(stores.pg)).toBe(stream.length); // every message's effect stored with its position
    expect(first.problems.length).toBeGreaterThan(50);
    // Metrics of the committed batches: every problem counted once as opened.
    expect(await metricSum('watchpost_problems_opened_total')).toBe(first.problems.length);
    expect(await metricSum('watchpost_problems_resolved_total')).toBe(
      first.problems.filter((p) => (p as { resolved_by: string | null }).resolved_by === 'auto').length,
    );
    expect(await metricSum('watchpost_correlate_lag_seconds')).toBeGreaterThan(0);
    const flaps = first.problems.filter((p) => (p as { rdg_flap: boolean }).rdg_flap);
    expect(flaps.length).toBeGreaterThan(0);

    // Second pass: forget the group's offsets, read the whole topic again.
    await withKafkaAdmin(stores.config, 'test-admin', (admin) => admin.deleteGroups([stores.config.consumerGroups.correlate]));
    expect(await groupLag()).toBe(stream.length);
    await runRoleUntilDrained();
    expect(tableDifferences(await dumpCorrelateTables(stores.pg), first)).toEqual({});
    expect(await correlatePosition(stores.pg)).toBe(stream.length);
    expect(await metricSum('watchpost_problems_opened_total')).toBe(first.problems.length); // nothing new on replay

    // One "problem opened" message per problem on problems.v1 (message ids dedupe any resend).
    const outbox = first.problem_outbox as { message_id: string; problem_id: string; kind: string }[];
    expect(outbox.filter((o) => o.kind === 'problem.opened').length).toBe(first.problems.length);
    const messages = await readAll(stores.config, stores.config.topics.problems, outbox.length);
    const ids = new Set(messages.map((m) => (JSON.parse(m.value) as { message_id: string }).message_id));
    expect([...ids].sort()).toEqual(outbox.map((o) => o.message_id).sort());
  }, 150_000);
});
