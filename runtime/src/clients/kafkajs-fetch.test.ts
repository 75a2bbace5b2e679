// The record decoder returns exactly what kafkajs's own returns, for the same bytes.
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { decodeRecord, type BatchContext, type RecordDecoder } from './kafkajs-fetch.ts';
import { installKafkajsSpeedups, originals } from './kafkajs-speedups.ts';

const require = createRequire(import.meta.url);
const installed = installKafkajsSpeedups();
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => RecordDecoder;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): unknown };
type Encode = (r: { offsetDelta: number; timestampDelta: unknown; key: unknown; value: unknown; headers?: object }) => {
  buffer: Buffer;
};
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as Encode;

/** Both decoders over the same bytes: the results and where each decoder stopped. */
function both(bytes: Buffer, ctx: BatchContext) {
  const a = new Decoder(bytes);
  const b = new Decoder(bytes);
  const theirs = originals.decodeRecord!(a, ctx);
  const ours = decodeRecord(b, ctx);
  return { theirs, ours, at: [a.offset, b.offset] };
}

it('is installed in place of kafkajs’s record decoder, which the batch decoder then loads', () => {
  expect(installed.fetch).toBe(true);
  const batchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as unknown;
  expect(batchDecoder).toBeDefined();
  expect(require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js')).toBe(decodeRecord);
});

it('equals kafkajs’s record for offsets and timestamps at the edges of exact numbers, keys, values and headers', () => {
  const offsets = ['0', '41', '123456789', '9007199254740000', '9007199254740990', '9223372036854775000', '-1'];
  const timestamps = ['1764000000123', '-1', '0', '9007199254740990', '9223372036854000000'];
  const tsDeltas: unknown[] = [0, 5, -5, 2 ** 26, -(2 ** 26), 2 ** 27, -(2 ** 27), 2 ** 40, Long.fromValue('-1099511627776')];
  const offsetDeltas = [0, 1, 63, 64, 5000, 2 ** 20];
  const records = [
    { key: 'host-1', value: Buffer.from('{"a":1}'), headers: { 'x-agent-key-id': '7' } },
    { key: null, value: null, headers: {} },
    { key: Buffer.from([0, 1, 2]), value: 'v', headers: { a: ['1', '2', '3'], b: 'x', ключ: Buffer.from('z') } },
    { key: '', value: '', headers: { __proto__: 'p', c: 'q' } as object },
    { key: 'k', value: 'v', headers: Object.fromEntries([['__proto__', 'own']]) },
  ];
  let n = 0;
  for (const firstOffset of offsets)
    for (const firstTimestamp of timestamps)
      for (const [i, timestampDelta] of tsDeltas.entries()) {
        const offsetDelta = offsetDeltas[i % offsetDeltas.length]!;
        const r = records[n++ % records.length]!;
        const bytes = encodeRecord({ offsetDelta, timestampDelta, ...r }).buffer;
        const body = new Decoder(bytes).readVarIntBytes()!;
        for (const ctx of [
          { firstOffset, firstTimestamp, magicByte: 2, timestampType: 0, maxTimestamp: '1764000009999' },
          { firstOffset, firstTimestamp, magicByte: 2, timestampType: 1, maxTimestamp: '1764000009999', isControlBatch: true },
          { firstOffset, firstTimestamp, magicByte: 2, timestampType: 1, maxTimestamp: undefined },
        ]) {
          const { theirs, ours, at } = both(body, ctx);
          expect(ours, `${firstOffset} + ${offsetDelta}, ${firstTimestamp} + ${String(timestampDelta)}`).toEqual(theirs);
          expect(Object.keys(ours as object)).toEqual(Object.keys(theirs as object));
          expect(at[1]).toBe(at[0]);
        }
      }
  expect(n).toBe(offsets.length * timestamps.length * tsDeltas.length);
});

it('a batch decoded record by record gives the same records as kafkajs (the context remembered between records)', () => {
  const ctxA = { firstOffset: '100', firstTimestamp: '1764000000000', magicByte: 2, timestampType: 0 };
  const ctxB = { firstOffset: '9007199254740991', firstTimestamp: '1764000000000', magicByte: 2, timestampType: 0 };
  for (const ctx of [ctxA, ctxB, ctxA]) {
    for (let i = 0; i < 5; i++) {
      const bytes = encodeRecord({ offsetDelta: i, timestampDelta: i * 3, key: `h${i}`, value: `v${i}` }).buffer;
      const body = new Decoder(bytes).readVarIntBytes()!;
      const { theirs, ours } = both(body, ctx);
      expect(ours).toEqual(theirs);
    }
  }
});
