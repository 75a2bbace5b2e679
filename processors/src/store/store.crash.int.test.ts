// The store under failure: kill -9 of the process mid-stream, and ClickHouse unreachable for 30 s.
// Both must end with every event_id exactly once in ClickHouse.
import { afterEach, describe, expect, it } from 'vitest';
import { Clients, createLogger } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import { createClickhouse } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { encodeEnvelope } from '@watchpost/schemas';
import { localUrls } from '@watchpost/runtime';
import { storeRole } from './index.ts';
import {
  childExited,
  crashChildEnv,
  crashChildren,
  createTestStores,
  eventsCommitted,
  eventsTopicEnd,
  makeEnvelope,
  startTcpProxy,
  testConfig,
  waitFor,
  withKafkaAdmin,
  type TestStores,
} from '@watchpost/testkit';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const counts = async (s: TestStores) =>
  (
    await queryRows<{ rows: string; ids: string; final: string }>(
      s.ch,
      sql`SELECT count() AS rows, uniqExact(event_id) AS ids, (SELECT count() FROM events FINAL) AS final FROM events`,
    )
  )[0]!;

/** Produces `total` distinct events in chunks at a steady pace; resolves when all are acknowledged. */
async function streamEvents(s: TestStores, total: number, chunk: number, everyMs: number): Promise<void> {
  const producer = createKafka(s.config.kafkaBrokers, 'test-stream').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    for (let i = 0; i < total; i += chunk) {
      const started = Date.now();
      const messages = Array.from({ length: Math.min(chunk, total - i) }, (_, j) => {
        const env = makeEnvelope({}, i + j);
        return { key: env.event.host.hostname, value: encodeEnvelope(env) };
      });
      for (let k = 0; k < messages.length; k += 500)
        await producer.send({ topic: s.config.topics.events, acks: -1, messages: messages.slice(k, k + 500) });
      await sleep(Math.max(0, everyMs - (Date.now() - started)));
    }
  } finally {
    await producer.disconnect();
  }
}

const committedTotal = (s: TestStores) => eventsCommitted(s.config, s.config.consumerGroups.store);

/**
 * The end offsets of the events topic, summed: what a store that has caught up has committed. Not `total`:
 * the test producer retries a send that may have been written already (100,250 messages for 100,000
 * events, seen under load), and the store stores each event_id once whatever the topic holds.
 */
const topicEnd = (s: TestStores) => eventsTopicEnd(s.config);

const groupState = (s: TestStores) =>
  withKafkaAdmin(s.config, 'test-admin', async (admin) => {
    const { groups } = await admin.describeGroups([s.config.consumerGroups.store]);
    return `${groups[0]?.state}:${groups[0]?.members.length}`;
  });

/** Until ClickHouse holds each of the `total` event_ids. */
const allStored = (s: TestStores, total: number, timeoutMs: number) =>
  waitFor(
    'all events stored',
    () => counts(s),
    (x) => Number(x.ids) === total,
    timeoutMs,
    500,
  );

/** Until the store group has committed the offsets up to `end` (topicEnd). */
const committedUpTo = (s: TestStores, end: number) =>
  waitFor(
    'offsets committed to the end of the topic',
    () => committedTotal(s),
    (n) => n === end,
    20_000,
  );

describe('store under failure', () => {
  it(
    'kill -9 of the store process 10 times during a 100,000-event stream: every event_id exactly once',
    { timeout: 300_000 },
    async () => {
      const s = await createTestStores(testConfig('store_kill', { KAFKA_PARTITIONS: '4' }));
      cleanup.push(() => s.drop());
      const env = crashChildEnv(s.config, {
        KAFKA_PARTITIONS: '4',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        SERVICE_STATE_DIR: s.config.stateDir,
      });
      const children = crashChildren({ keepStderr: true });
      cleanup.push(async () => children.killAll());
      const startChild = () => children.start('store', env);

      const total = 100_000;
      // ~70 s of stream; one kill cycle takes ~8 s (the dead member's 6 s session must expire first).
      let streamed = false;
      const streaming = streamEvents(s, total, 1000, 700).then(() => (streamed = true));
      let kills = 0;
      while (kills < 10) {
        const before = Number((await counts(s)).rows);
        const child = startChild();
        // Kill while it is working: after it wrote something, at a random point of the next batch.
        await waitFor(
          'progress of this store process',
          () => counts(s),
          (c) => Number(c.rows) > before || (streamed && Number(c.ids) === total) || child.exitCode !== null,
          30_000,
          100,
        );
        expect(child.exitCode, children.stderr()).toBeNull();
        await sleep(100 + Math.random() * 1200);
        child.kill('SIGKILL');
        await childExited(child);
        kills++;
      }
      await streaming;
      const last = startChild();
      await allStored(s, total, 120_000);
      // Read again: the FINAL subquery runs before the outer query, so the read that first saw every
      // id may have counted FINAL just before the last insert.
      const c = await counts(s);
      expect(Number(c.ids)).toBe(total);
      expect(Number(c.final)).toBe(total);
      const end = await topicEnd(s);
      expect(end).toBeGreaterThanOrEqual(total);
      await committedUpTo(s, end);
      await waitFor(
        'the last process joined the group',
        () => groupState(s),
        (g) => g === 'Stable:1',
        30_000,
      );
      last.kill('SIGTERM');
      await childExited(last);
      expect({ code: last.exitCode, signal: last.signalCode }, children.stderr()).toEqual({ code: 0, signal: null });
      // The FINAL count already says so; this shows the repeats a kill caused did reach the table.
      console.info(`kill -9 x${kills}: ${c.rows} rows written for ${total} events`);
    },
  );

  it(
    'ClickHouse unreachable for 30 s mid-stream: no loss, no duplicates, nothing committed past what was written',
    { timeout: 180_000 },
    async () => {
      const ch = new URL(localUrls.clickhouse);
      const proxy = await startTcpProxy(ch.hostname, Number(ch.port));
      cleanup.push(() => proxy.close());
      const s = await createTestStores(
        testConfig('store_outage', { KAFKA_PARTITIONS: '2', CLICKHOUSE_URL: proxy.url, STORE_BATCH_MS: '500' }),
      );
      cleanup.push(() => s.drop());
      // The test reads ClickHouse directly; only the store goes through the proxy.
      const direct = { ...s, ch: createClickhouse(localUrls.clickhouse, s.config.clickhouseDatabase) };
      cleanup.push(() => direct.ch.close());
      const clients = new Clients(s.config);
      const handle = await storeRole({ config: s.config, log: createLogger('silent', 'test'), clients });
      cleanup.push(async () => {
        await handle.close?.();
        await clients.close();
      });

      const total = 30_000;
      const streaming = streamEvents(s, total, 1000, 800);
      await waitFor(
        'first events stored',
        async () => Number((await counts(direct)).ids),
        (n) => n > 0,
        20_000,
      );
      proxy.cut();
      await sleep(3000);
      const duringA = { stored: Number((await counts(direct)).ids), committed: await committedTotal(s) };
      expect(duringA.committed).toBeLessThanOrEqual(duringA.stored);
      await sleep(24_000);
      const duringB = { stored: Number((await counts(direct)).ids), committed: await committedTotal(s) };
      expect(duringB).toEqual(duringA); // nothing written, nothing committed while ClickHouse is away
      expect(await handle.checks!.store_consumer!()).toBe(true); // 30 s is below the 60 s stall limit
      await sleep(3000);
      proxy.restore();
      await streaming;
      await allStored(direct, total, 60_000);
      const c = await counts(direct); // read again, as above
      expect(Number(c.final)).toBe(total);
      const end = await topicEnd(s);
      expect(end).toBeGreaterThanOrEqual(total);
      await committedUpTo(s, end);
    },
  );
});
