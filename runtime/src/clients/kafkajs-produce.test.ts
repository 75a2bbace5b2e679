// The one-pass produce request writes exactly the bytes kafkajs's own produce v3 request writes.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { encodeProduce, type ProduceArgs } from './kafkajs-produce.ts';
import { crc32c, installKafkajsSpeedups, originals } from './kafkajs-speedups.ts';

const require = createRequire(import.meta.url);
const installed = installKafkajsSpeedups();
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): unknown };
type Enc = { buffer: Buffer };

afterEach(() => vi.restoreAllMocks());

/** kafkajs's own payload and ours for the same request, at the same instant. */
async function both(args: ProduceArgs): Promise<[Buffer, Buffer | undefined]> {
  vi.spyOn(Date, 'now').mockReturnValue(1_764_000_000_123);
  const theirs = (await originals.produceRequest!(args).encode()) as Enc;
  const ours = encodeProduce(args, crc32c) as Enc | undefined;
  return [theirs.buffer, ours?.buffer];
}

const ev = (n: number) => Buffer.from(JSON.stringify({ received_at: 'x', event: { n, s: 'é'.repeat(n % 7) } }));

it('is installed in place of kafkajs’s produce v3 request (which v4-v7 reuse)', () => {
  expect(installed.produce).toBe(true);
  const v7 = require('kafkajs/src/protocol/requests/produce/v7/request.js') as (a: ProduceArgs) => {
    apiVersion: number;
    encode(): Promise<Enc>;
  };
  const args: ProduceArgs = {
    acks: -1,
    timeout: 30000,
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'h', value: ev(1) }] }] }],
  };
  expect(v7(args).apiVersion).toBe(7);
  return both(args).then(async ([theirs]) => {
    vi.spyOn(Date, 'now').mockReturnValue(1_764_000_000_123);
    expect((await v7(args).encode()).buffer).toEqual(theirs);
  });
});

it('equals kafkajs’s bytes for keys, values and headers of every kind, topics, partitions and producers', async () => {
  const messages = (p: number) =>
    Array.from({ length: 40 + p }, (_, i) => ({
      key: [`host-${i}.example`, Buffer.from(`k${i}`), null, undefined, 'ünïcode-ключ', ''][i % 6],
      value: [ev(i), JSON.stringify({ i, big: 'x'.repeat(i * 37) }), null, '', randomBytes(i * 50)][i % 5],
      headers: [
        { 'x-agent-key-id': String(i) },
        {},
        undefined,
        { a: ['1', Buffer.from('two')], ключ: 'значение' },
        { empty: '' },
      ][i % 5],
    }));
  const cases: ProduceArgs[] = [
    { acks: -1, timeout: 30000, topicData: [{ topic: 'events', partitions: [{ partition: 3, messages: messages(0) }] }] },
    {
      acks: 1,
      timeout: 5000,
      topicData: [
        { topic: 'a', partitions: [0, 1, 2].map((p) => ({ partition: p, messages: messages(p) })) },
        { topic: 'tópico-b', partitions: [{ partition: 7, messages: messages(9) }] },
      ],
    },
    // idempotent and transactional producers
    {
      acks: -1,
      timeout: 30000,
      transactionalId: 'tx-1',
      producerId: Long.fromValue(123456789012),
      producerEpoch: 3,
      topicData: [{ topic: 't', partitions: [{ partition: 1, firstSequence: 42, messages: messages(1) }] }],
    },
    {
      acks: -1,
      timeout: 30000,
      transactionalId: '',
      topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messages(2) }] }],
    },
    // a record over 128 bytes of headers and a value of 300 kB (multi-byte varints everywhere)
    {
      acks: -1,
      timeout: 30000,
      topicData: [
        {
          topic: 't',
          partitions: [{ partition: 0, messages: [{ key: 'k', value: randomBytes(300_000), headers: { h: 'v'.repeat(200) } }] }],
        },
      ],
    },
    { acks: 0, timeout: 1, topicData: [] },
    { acks: -1, timeout: 30000, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [] }] }] },
  ];
  for (const [i, args] of cases.entries()) {
    const [theirs, ours] = await both(args);
    expect(ours, `case ${i}`).toBeDefined();
    expect(ours!.equals(theirs), `case ${i}: ${ours!.length} vs ${theirs.length} bytes`).toBe(true);
  }
});

it('leaves to kafkajs what it would write otherwise: compression, message timestamps, other types', async () => {
  const one = (m: object, extra: Partial<ProduceArgs> = {}): ProduceArgs => ({
    acks: -1,
    timeout: 30000,
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ value: 'v', ...m }] }] }],
    ...extra,
  });
  expect(encodeProduce(one({}, { compression: 1 }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ timestamp: 1_700_000_000_000 }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ timestamp: 0 }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ key: 42 }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ value: new Uint8Array([1]) }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ headers: { h: null } }), crc32c)).toBeUndefined();
  expect(encodeProduce(one({ headers: { h: 7 } }), crc32c)).toBeUndefined();
  // and then kafkajs's own encoder runs (through the installed factory): a timestamped message is sent as before
  const fastFactory = require('kafkajs/src/protocol/requests/produce/v3/request.js') as (a: ProduceArgs) => {
    encode(): Promise<Enc>;
  };
  const args = one({ timestamp: 1_700_000_000_000 });
  const [theirs] = await both(args);
  vi.spyOn(Date, 'now').mockReturnValue(1_764_000_000_123);
  expect((await fastFactory(args).encode()).buffer).toEqual(theirs);
});
