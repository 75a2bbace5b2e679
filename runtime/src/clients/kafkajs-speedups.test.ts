// The kafkajs replacements write exactly the bytes kafkajs's own code writes.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  batchCrc32c,
  crc32c,
  createMemoPartitioner,
  groupMessagesPerPartition,
  installKafkajsSpeedups,
  originals,
} from './kafkajs-speedups.ts';

const require = createRequire(import.meta.url);
const installed = installKafkajsSpeedups();
type Enc = {
  buf: Buffer;
  offset: number;
  buffer: Buffer;
  writeUVarInt(v: number): Enc;
  writeVarLong(v: unknown): Enc;
  writeVarIntBytes(v: unknown): Enc;
};
const Encoder = require('kafkajs/src/protocol/encoder.js') as { new (): Enc; sizeOfVarLong(v: unknown): number };
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): unknown; fromString(s: string): unknown };

it('CRC32C equals kafkajs’s for every length around the 8-byte steps and for the standard check value', () => {
  expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  for (let n = 0; n < 70; n++) {
    const b = randomBytes(n);
    expect(crc32c(b), `length ${n}`).toBe(originals.crc32C(b) >>> 0);
  }
  const big = randomBytes(100_003);
  expect(crc32c(big)).toBe(originals.crc32C(big) >>> 0);
  // A view into a larger buffer (kafkajs hands over slices).
  expect(crc32c(big.subarray(5, 2005))).toBe(originals.crc32C(big.subarray(5, 2005)) >>> 0);
});

it('the record batches’ CRC is the native one where @node-rs/crc32 publishes a binary, with the same values', () => {
  // linux x64 (this machine and CI) has one: were it to stop loading, the record batches would silently
  // take the slower JS CRC.
  if (process.platform === 'linux' && process.arch === 'x64') expect(batchCrc32c.name).toBe('native');
  expect(batchCrc32c.crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  for (let n = 0; n < 70; n++) {
    const b = randomBytes(n);
    expect(batchCrc32c.crc32c(b), `length ${n}`).toBe(crc32c(b));
  }
  const big = randomBytes(100_003);
  expect(batchCrc32c.crc32c(big)).toBe(crc32c(big));
  expect(batchCrc32c.crc32c(big.subarray(5, 2005))).toBe(crc32c(big.subarray(5, 2005)));
  // What kafkajs's record batch encoder loads as its CRC module.
  expect(require('kafkajs/src/protocol/recordBatch/crc32C/index.js')).toBe(batchCrc32c.crc32c);
});

it('varints, varlongs and sizes equal kafkajs’s, at the limits of the fast path and beyond', () => {
  const ints = [0, 1, -1, 63, 64, -64, -65, 127, 128, 300, 16_383, 16_384, 2 ** 21, 2 ** 28, 2 ** 31 - 1, -(2 ** 31), 0xffffffff];
  for (const v of ints) {
    const ours = new Encoder().writeUVarInt(v).buffer;
    const theirs = originals.writeUVarInt.call(new Encoder(), v) as Enc;
    expect(ours, `uvarint ${v}`).toEqual(theirs.buffer);
  }
  const longs: unknown[] = [
    0,
    1,
    -1,
    1000,
    -1000,
    2 ** 30 - 1,
    -(2 ** 30) + 1,
    2 ** 30,
    -(2 ** 30),
    2 ** 31,
    2 ** 40,
    -(2 ** 40),
  ];
  longs.push(Long.fromValue(123), Long.fromString('-9223372036854775808'), Long.fromString('9223372036854775807'));
  for (const v of longs) {
    const ours = new Encoder().writeVarLong(v).buffer;
    const theirs = originals.writeVarLong.call(new Encoder(), v) as Enc;
    expect(ours, `varlong ${String(v)}`).toEqual(theirs.buffer);
    expect(Encoder.sizeOfVarLong(v), `size ${String(v)}`).toBe(originals.sizeOfVarLong(v));
    expect(ours.length).toBe(originals.sizeOfVarLong(v));
  }
});

it('an encoder that starts empty grows to hold what is written, in order', () => {
  const e = new Encoder();
  const parts: Buffer[] = [];
  for (let i = 0; i < 60; i++) {
    const b = randomBytes(i * 37);
    parts.push(b);
    e.writeVarIntBytes(b);
  }
  let at = 0;
  const out = e.buffer;
  for (const b of parts) {
    // length varint, then the bytes
    let len = 0;
    let shift = 0;
    for (;;) {
      const x = out[at++]!;
      len |= (x & 0x7f) << shift;
      shift += 7;
      if (!(x & 0x80)) break;
    }
    expect(len >>> 1).toBe(b.length);
    expect(out.subarray(at, at + b.length)).toEqual(b);
    at += b.length;
  }
  expect(at).toBe(out.length);
});

it('the memo partitioner picks kafkajs’s DefaultPartitioner’s partition for every key and partition count', () => {
  const { Partitioners } = require('kafkajs') as { Partitioners: { DefaultPartitioner: () => (a: unknown) => number } };
  const ours = createMemoPartitioner(Partitioners.DefaultPartitioner as never)();
  const theirs = Partitioners.DefaultPartitioner();
  const meta = (n: number) => Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: i === 1 ? -1 : 0 }));
  const keys = [
    '',
    'host-1',
    'WIN-SRV01',
    'häst-ü',
    'a'.repeat(300),
    ...Array.from({ length: 2000 }, () => randomBytes(9).toString('base64')),
  ];
  for (const n of [1, 3, 4, 12])
    for (const key of keys) {
      const args = { topic: 't', partitionMetadata: meta(n), message: { key, value: 'v' } };
      // twice: the second answer comes from the memo
      expect(ours(args), `${key} / ${n}`).toBe(theirs(args));
      expect(ours(args)).toBe(theirs(args));
    }
  // An explicit partition wins; a message without a key goes round-robin over available partitions as kafkajs does.
  expect(ours({ topic: 't', partitionMetadata: meta(4), message: { key: 'x', partition: 2 } })).toBe(2);
  const seen = new Set(Array.from({ length: 20 }, () => ours({ topic: 't', partitionMetadata: meta(4), message: {} })));
  expect([...seen].sort()).toEqual([0, 2, 3]);
});

it('groups a send’s messages by partition as kafkajs does (the same object, each partition’s messages in order), and is installed', () => {
  expect(installed.grouping).toBe(true);
  expect(require('kafkajs/src/producer/groupMessagesPerPartition.js')).toBe(groupMessagesPerPartition);
  const partitionMetadata = [0, 1, 2, 3, 4].map((p) => ({ partitionId: p, leader: 0 }));
  const messages = Array.from({ length: 1000 }, (_, i) => ({ key: `h${i % 37}`, value: String(i), n: i }));
  const partitioner = ({ message }: { message: unknown }) => ((message as { n: number }).n * 7) % 5;
  for (const meta of [partitionMetadata, partitionMetadata.slice(0, 1), []]) {
    const args = { topic: 't', partitionMetadata: meta, messages, partitioner };
    const ours = groupMessagesPerPartition(args);
    expect(ours).toEqual(originals.groupMessagesPerPartition!(args));
    expect(Object.keys(ours)).toEqual(Object.keys(originals.groupMessagesPerPartition!(args)));
  }
});
