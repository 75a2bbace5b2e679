// kafkajs stays the client, but its record encoding cost ingest as much CPU per event as the whole bare
// HTTP server (V8 profile of kafkajs alone, sends of 64 x 1 KB: Buffer.alloc in Encoder ~17 %, GC ~8 %,
// the byte-at-a-time CRC32C ~9 %, Buffer.from per varint and Long arithmetic per record ~4 %). Applied
// once, process-wide, to kafkajs's own Encoder and CRC32C module; every replacement writes the same bytes
// (kafkajs-speedups.test.ts compares them with the originals):
// - Encoder growth uses pooled `Buffer.allocUnsafe`: an Encoder only ever exposes the bytes it wrote.
// - A new Encoder starts empty instead of with 512 zero-filled bytes (one per record and per header).
// - Varints are written in place instead of through a `Buffer.from([...])` each; a varlong that fits 31
//   bits (timestamp deltas) skips the Long arithmetic.
// - CRC32C slicing by 8 bytes, installed before kafkajs loads its record batch encoder (which binds the
//   CRC function when it is first required, at the first produce or fetch of the process).
// - The produce request (kafkajs-produce.ts) written in one pass into one buffer.
// - Fetched records (kafkajs-fetch.ts) decoded with plain numbers where they are exact.
// - The producer's grouping of a send's messages by partition in one pass (kafkajs copied each
//   partition's array once per message: quadratic in the messages of a send, 1.3 % of the drain).
import { createRequire } from 'node:module';
import { decodeRecord } from './kafkajs-fetch.ts';
import { fastProduceRequest } from './kafkajs-produce.ts';
import { fastFrameRequest, type FrameRequest } from './kafkajs-request.ts';

const require = createRequire(import.meta.url);

export interface EncoderInstance {
  buf: Buffer;
  offset: number;
}
interface EncoderClass {
  new (initialSize?: number): EncoderInstance;
  nextPowerOfTwo: (this: void, value: number) => number;
  sizeOfVarLong: (this: EncoderClass, value: unknown) => number;
  prototype: EncoderInstance & {
    ensureAvailable: (this: EncoderInstance, length: number) => void;
    writeUVarInt: (this: EncoderInstance, value: number) => unknown;
    writeVarLong: (this: EncoderInstance, value: unknown) => unknown;
  };
}

const Encoder = require('kafkajs/src/protocol/encoder.js') as EncoderClass;
type ProduceFactory = Parameters<typeof fastProduceRequest>[0];
const origSizeOfVarLong = Encoder.sizeOfVarLong;
/** kafkajs's own implementations (tests compare against them). */
export const originals = {
  ensureAvailable: Encoder.prototype.ensureAvailable,
  writeUVarInt: Encoder.prototype.writeUVarInt,
  writeVarLong: Encoder.prototype.writeVarLong,
  sizeOfVarLong: (value: unknown) => origSizeOfVarLong.call(Encoder, value),
  nextPowerOfTwo: Encoder.nextPowerOfTwo,
  crc32C: require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number,
  /** Produce v3's request factory, once installProduce replaced it. */
  produceRequest: undefined as ProduceFactory | undefined,
  /** kafkajs's grouping of a send's messages, once installGrouping replaced it. */
  groupMessagesPerPartition: undefined as Partitioned | undefined,
  /** kafkajs's record v0 decoder, once installFetch replaced it. */
  decodeRecord: undefined as typeof decodeRecord | undefined,
  /** kafkajs's request framing (protocol/request.js), once replaced. */
  frameRequest: undefined as FrameRequest | undefined,
};

// ---- CRC32C (Castagnoli), slicing by 8 -----------------------------------------------------------------
const T = new Int32Array(8 * 256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  T[i] = c;
}
for (let t = 1; t < 8; t++)
  for (let i = 0; i < 256; i++) {
    const prev = T[(t - 1) * 256 + i]!;
    T[t * 256 + i] = (prev >>> 8) ^ T[prev & 0xff]!;
  }

/** CRC32C of `buf` as an unsigned 32-bit number (what kafkajs's recordBatch/crc32C returns). */
export function crc32c(buf: Uint8Array): number {
  let crc = -1;
  let i = 0;
  const n = buf.length;
  for (const end = n - 7; i < end; i += 8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    crc =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!;
  }
  for (; i < n; i++) crc = T[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * The CRC the record batches get: @node-rs/crc32's native CRC32C where its prebuilt binary loads (every
 * platform it publishes one for), 4-5 times faster than the JS slicing above (0.18 against 0.86 ns per
 * byte over a 22 KB batch; the CRC covers every byte ingest produces), else the JS one. Same values
 * (kafkajs-speedups.test.ts).
 */
export const batchCrc32c: { name: 'native' | 'js'; crc32c: (buf: Uint8Array) => number } = (() => {
  try {
    const { crc32c: native } = require('@node-rs/crc32') as { crc32c: (input: Uint8Array) => number };
    return { name: 'native', crc32c: (buf: Uint8Array) => native(buf) };
  } catch {
    return { name: 'js', crc32c };
  }
})();

// ---- Encoder -------------------------------------------------------------------------------------------
const pow2 = (v: number) => 1 << (31 - Math.clz32(v) + 1);
const FITS = 0x3fffffff; // |value| below 2^30: zigzag fits 31 bits, the 32-bit varint path is exact

function ensureAvailable(this: EncoderInstance, length: number): void {
  if (this.offset + length > this.buf.length) {
    const grown = Buffer.allocUnsafe(pow2(this.offset + length));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  }
}

function writeUVarInt(this: EncoderInstance, value: number): EncoderInstance {
  ensureAvailable.call(this, 5);
  const buf = this.buf;
  let o = this.offset;
  while ((value & 0xffffff80) !== 0) {
    buf[o++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[o++] = value & 0x7f;
  this.offset = o;
  return this;
}

function writeVarLong(this: EncoderInstance, value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && value >= -FITS && value <= FITS)
    return writeUVarInt.call(this, (value << 1) ^ (value >> 31));
  return originals.writeVarLong.call(this, value);
}

function sizeOfVarLong(this: EncoderClass, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= -FITS && value <= FITS) {
    let v = ((value << 1) ^ (value >> 31)) >>> 0;
    let bytes = 1;
    while ((v & 0xffffff80) !== 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }
  return originals.sizeOfVarLong(value);
}

// ---- Partitioner ---------------------------------------------------------------------------------------
type PartitionerArgs = {
  topic: string;
  partitionMetadata: { partitionId: number; leader: number }[];
  message: { key?: unknown; partition?: number | null };
};
type Partitioner = (args: PartitionerArgs) => number;
const murmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: string | Buffer) => number;
const MEMO_KEYS = 100_000;

/**
 * kafkajs's DefaultPartitioner (Java-compatible: toPositive(murmur2(key)) % partitions), with murmur2 taken
 * once per key instead of per message: per message it filtered the partition list and ran murmur2 in
 * Long arithmetic (~4 µs per event in ingest's batch profile), and a fleet's keys (hostnames) repeat.
 * Messages without a string key go to kafkajs's own partitioner.
 */
export function createMemoPartitioner(createDefault: () => Partitioner): () => Partitioner {
  return () => {
    const fallback = createDefault();
    const memo = new Map<string, number>();
    return (args) => {
      const { message } = args;
      if (message.partition !== null && message.partition !== undefined) return message.partition;
      const key = message.key;
      if (typeof key !== 'string') return fallback(args);
      let h = memo.get(key);
      if (h === undefined) {
        if (memo.size >= MEMO_KEYS) memo.clear();
        memo.set(key, (h = murmur2(key) & 0x7fffffff));
      }
      return h % args.partitionMetadata.length;
    };
  };
}

let installed = false;

const resolve = (m: string) => require.resolve(`kafkajs/src/${m}.js`);

/**
 * Puts `replacement` in the module cache as kafkajs module `path`'s exports, unless one of `holders` (the
 * modules that bind it when they load) is loaded already: then kafkajs's own stays, which is only slower.
 * Returns kafkajs's own export (for the tests) or undefined when it could not be replaced.
 */
function swapModule<T>(path: string, holders: string[], replacement: (original: T) => T): T | undefined {
  if (holders.some((h) => require.cache[resolve(h)])) return undefined;
  const original = require(resolve(path)) as T;
  require.cache[resolve(path)]!.exports = replacement(original);
  return original;
}

type Partitioned = (args: {
  topic: string;
  partitionMetadata: unknown[];
  messages: unknown[];
  partitioner: (a: { topic: string; partitionMetadata: unknown[]; message: unknown }) => number;
}) => Record<number, unknown[]>;

/** kafkajs's groupMessagesPerPartition, the same object (partition -> its messages in order), in one pass. */
export const groupMessagesPerPartition: Partitioned = ({ topic, partitionMetadata, messages, partitioner }) => {
  const result: Record<number, unknown[]> = {};
  if (partitionMetadata.length === 0) return result;
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    (result[partition] ??= []).push(message);
  }
  return result;
};

const crcPath = resolve('protocol/recordBatch/crc32C/index');

/** Which of the module replacements are in place (read from the module cache and `originals`). */
const inPlace = () => ({
  crc: (require.cache[crcPath]?.exports as unknown) === batchCrc32c.crc32c,
  produce: originals.produceRequest !== undefined,
  fetch: originals.decodeRecord !== undefined,
  grouping: originals.groupMessagesPerPartition !== undefined,
  frame: originals.frameRequest !== undefined,
});

/** Installs the replacements (idempotent). Returns which of the module replacements could still be made. */
export function installKafkajsSpeedups(): ReturnType<typeof inPlace> {
  if (installed) return inPlace();
  installed = true;
  Encoder.prototype.ensureAvailable = ensureAvailable;
  Encoder.prototype.writeUVarInt = writeUVarInt;
  Encoder.prototype.writeVarLong = writeVarLong;
  Encoder.sizeOfVarLong = sizeOfVarLong;
  // Only the constructor's default (511 -> 512 bytes) starts empty now; growth no longer calls this.
  Encoder.nextPowerOfTwo = (v: number) => (v === 511 ? 0 : pow2(v));
  // The record batch encoder takes its CRC from this module when it is first required: put ours in the
  // module cache unless kafkajs has already loaded it (then the original stays, which is only slower).
  const batchPath = resolve('protocol/recordBatch/v0/index');
  if (!require.cache[crcPath] && !require.cache[batchPath]) {
    const Module = require('node:module') as { new (id: string): NodeJS.Module };
    const m = new Module(crcPath);
    m.filename = crcPath;
    m.loaded = true;
    m.exports = batchCrc32c.crc32c;
    require.cache[crcPath] = m;
  }
  // Produce v3's request factory: v4-v7 take it from v3's module when they are first required.
  originals.produceRequest = swapModule<ProduceFactory>(
    'protocol/requests/produce/v3/request',
    [4, 5, 6, 7].map((v) => `protocol/requests/produce/v${v}/request`),
    (original) => fastProduceRequest(original, batchCrc32c.crc32c),
  );
  originals.decodeRecord = swapModule<typeof decodeRecord>(
    'protocol/recordBatch/record/v0/decoder',
    ['protocol/recordBatch/v0/decoder'],
    () => decodeRecord,
  );
  // The producer's sendMessages loads with the kafkajs package (kafkajs-install.ts runs before it).
  originals.groupMessagesPerPartition = swapModule<Partitioned>(
    'producer/groupMessagesPerPartition',
    ['producer/sendMessages'],
    () => groupMessagesPerPartition,
  );
  // The connection takes the framing when it is first required (with the kafkajs package).
  originals.frameRequest = swapModule<FrameRequest>('protocol/request', ['network/connection'], fastFrameRequest);
  return inPlace();
}
