// The problem outbox relay when the broker refuses a message: problems.v1 gets a small
// max.message.bytes here, one row is larger than that. The batch is refused, the relay falls back to
// rows one by one: the small rows reach problems.v1, the large one becomes a dead letter, every row is
// marked sent, and a later round is not held back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { createKafka, metrics } from '@watchpost/runtime';
import type { DeadLetter } from '@watchpost/schemas';
import { createTestStores, readAll, testConfig, type TestStores } from '@watchpost/testkit';
import { refusalOf, relayOutboxOnce } from './outbox.ts';

let stores: TestStores;
let producer: Producer;
const LIMIT = 4096;
const PROBE = 'max-message-bytes-probe';
let probesTaken = 0;

beforeAll(async () => {
  stores = await createTestStores(testConfig('outbox_refused'));
  const kafka = createKafka(stores.config.kafkaBrokers, 'outbox-test');
  const admin = kafka.admin();
  await admin.connect();
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: 2 /* TOPIC */,
        name: stores.config.topics.problems,
        configEntries: [{ name: 'max.message.bytes', value: String(LIMIT) }],
      },
    ],
  });
  await admin.disconnect();
  producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  // The broker applies a topic's new config a moment after alterConfigs answers: wait until it refuses
  // a large probe (a probe taken before that stays in the topic under a PROBE key and is left out below).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const err = await producer
      .send({ topic: stores.config.topics.problems, acks: -1, messages: [{ key: PROBE, value: 'x'.repeat(LIMIT * 3) }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    if (refusalOf(err) === 'MESSAGE_TOO_LARGE') break;
    if (err === null) probesTaken++;
    if (Date.now() > deadline) throw new Error(`problems.v1 still takes messages over ${LIMIT} bytes: ${String(err)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 60_000);

afterAll(async () => {
  await producer?.disconnect();
  await stores?.drop();
});

async function addRow(bytes: number): Promise<{ id: number; problemId: string }> {
  const problemId = randomUUID();
  const r = await stores.pg.query<{ id: string }>(
    `INSERT INTO problem_outbox (message_id, problem_id, kind, payload, created_at)
     VALUES ($1, $2, 'problem.opened', $3, now()) RETURNING id`,
    [`${problemId}:opened`, problemId, { message_id: `${problemId}:opened`, problem_id: problemId, pad: 'x'.repeat(bytes) }],
  );
  return { id: Number(r.rows[0]!.id), problemId };
}

async function deadLetterCount(): Promise<number> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === 'watchpost_outbox_dead_letters_total');
  return (m?.values ?? []).filter((v) => v.labels.outcome === 'dead_lettered').reduce((a, v) => a + v.value, 0);
}

describe('problem outbox relay, broker refuses a message', () => {
  it('sends the rows the broker takes and dead-letters the refused one', async () => {
    const small1 = await addRow(100);
    const big = await addRow(LIMIT * 3);
    const small2 = await addRow(100);
    const before = await deadLetterCount();

    // Without a dead-letter topic the refusal is raised (as before) and nothing is marked sent.
    const err = await relayOutboxOnce(stores.pg, producer, stores.config.topics.problems).catch((e: unknown) => e);
    expect(refusalOf(err)).toBe('MESSAGE_TOO_LARGE');
    expect((await stores.pg.query('SELECT count(*)::int AS n FROM problem_outbox WHERE sent_at IS NULL')).rows[0].n).toBe(3);

    const n = await relayOutboxOnce(stores.pg, producer, stores.config.topics.problems, {
      deadLetterTopic: stores.config.topics.deadLetter,
    });
    expect(n).toBe(3);
    expect((await stores.pg.query('SELECT count(*)::int AS n FROM problem_outbox WHERE sent_at IS NULL')).rows[0].n).toBe(0);
    expect(await deadLetterCount()).toBe(before + 1);

    // Partitions other than the refused one may have taken the batch too: a row can be there more
    // than once (consumers dedupe by message_id), the refused row never.
    const inTopic = await readAll(stores.config, stores.config.topics.problems, 2 + probesTaken, 10_000);
    const sent = inTopic.filter((m) => m.key !== PROBE);
    expect([...new Set(sent.map((m) => m.key))].sort()).toEqual([small1.problemId, small2.problemId].sort());

    const dead = await readAll(stores.config, stores.config.topics.deadLetter, 1, 10_000);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.key).toBe(big.problemId);
    const record = JSON.parse(dead[0]!.value) as DeadLetter;
    expect(record.source_topic).toBe(stores.config.topics.problems);
    expect(record.partition).toBe(-1);
    expect(record.offset).toBe(String(big.id));
    expect(record.reason).toMatch(/MESSAGE_TOO_LARGE/);
    const original = JSON.parse(Buffer.from(record.value_base64!, 'base64').toString('utf8')) as {
      problem_id: string;
      pad: string;
    };
    expect(original.problem_id).toBe(big.problemId);
    expect(original.pad).toHaveLength(LIMIT * 3);

    // The next rows go out in one batch as usual.
    const later = await addRow(50);
    expect(
      await relayOutboxOnce(stores.pg, producer, stores.config.topics.problems, {
        deadLetterTopic: stores.config.topics.deadLetter,
      }),
    ).toBe(1);
    const all = await readAll(stores.config, stores.config.topics.problems, inTopic.length + 1, 10_000);
    expect(all.map((m) => m.key)).toContain(later.problemId);
  }, 60_000);
});
