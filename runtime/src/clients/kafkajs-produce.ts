// kafkajs's produce request (v3, which v4-v7 reuse) built each record as an Encoder of its own (grown by
// doubling, headers as Encoders too), copied it into the record batch, the batch into the partition, the
// partition into the topic and the topic into the request: in ingest's batch profile that was 14.5 % of
// the CPU (record objects 7.8 %, the batch and its copies 4.3 %, ~6.5 µs per event). This writes the same
// request in one pass into one buffer of the exact size: each value is copied once and the CRC32C runs
// over the batch in place. Byte for byte kafkajs's (kafkajs-produce.test.ts compares them over keys,
// values and headers of every kind kafkajs accepts, several topics and partitions, transactional and
// idempotent producers). Anything else (compression, message timestamps, a type kafkajs would coerce)
// goes to kafkajs's own encoder.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface EncoderLike {
  buf: Buffer;
  offset: number;
}
const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => EncoderLike;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): { value: bigint } };

type Bytes = string | Buffer | null | undefined;
type HeaderValue = Bytes | Bytes[];
interface Message {
  key?: Bytes;
  value: Bytes;
  headers?: Record<string, HeaderValue>;
  timestamp?: unknown;
}
interface PartitionData {
  partition: number;
  firstSequence?: number;
  messages: Message[];
}
export interface ProduceArgs {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: unknown;
  producerEpoch?: number;
  compression?: number;
  topicData: { topic: string; partitions: PartitionData[] }[];
}
type Request = { encode: () => Promise<unknown> } & Record<string, unknown>;
type RequestFactory = (args: ProduceArgs) => Request;

const MAGIC_BYTE = 2;
const TRANSACTIONAL = 16;
/** RecordBatch fields after the CRC up to the records: attributes ... firstSequence, record count. */
const BATCH_BODY_HEAD = 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4;

const zigzag = (v: number) => (v << 1) ^ (v >> 31);
function uvarintSize(v: number): number {
  let n = 1;
  while ((v & 0xffffff80) !== 0) {
    n++;
    v >>>= 7;
  }
  return n;
}
const varintSize = (v: number) => uvarintSize(zigzag(v));

function writeUVarInt(buf: Buffer, o: number, v: number): number {
  while ((v & 0xffffff80) !== 0) {
    buf[o++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[o++] = v & 0x7f;
  return o;
}
const writeVarInt = (buf: Buffer, o: number, v: number) => writeUVarInt(buf, o, zigzag(v));

const plain = (v: unknown): v is Bytes => v === null || v === undefined || typeof v === 'string' || Buffer.isBuffer(v);
const byteLength = (v: Bytes) => (v === null || v === undefined ? -1 : typeof v === 'string' ? Buffer.byteLength(v) : v.length);
/** A varint length and the bytes, as kafkajs's writeVarIntBytes (null or undefined: length -1). */
const bytesSize = (n: number) => (n < 0 ? 1 : varintSize(n) + n);
function writeBytes(buf: Buffer, o: number, v: Bytes, n: number): number {
  o = writeVarInt(buf, o, n);
  if (n <= 0) return o;
  if (typeof v === 'string') buf.write(v, o, n, 'utf8');
  else (v as Buffer).copy(buf, o);
  return o + n;
}

/** What one message needs: its header pairs flattened as kafkajs does, and the body size. */
interface Sized {
  key: Bytes;
  keyLen: number;
  value: Bytes;
  valueLen: number;
  /** key, its UTF-8 length, value, its length (-1: null) */
  headers: [string, number, Bytes, number][];
  body: number;
}

/** The message's sizes, or undefined when kafkajs's own encoder must take the request. */
function sizeMessage(m: Message, offsetDelta: number): Sized | undefined {
  if (m.timestamp !== null && m.timestamp !== undefined) return undefined;
  const { key, value } = m;
  if (!plain(key) || !plain(value)) return undefined;
  const headers: [string, number, Bytes, number][] = [];
  let headerBytes = 0;
  for (const k of Object.keys(m.headers ?? {})) {
    const h = m.headers![k];
    for (const v of Array.isArray(h) ? h : [h]) {
      // kafkajs sizes a header value with Buffer.byteLength, which refuses null and undefined: its own
      // encoder says so.
      if (typeof v !== 'string' && !Buffer.isBuffer(v)) return undefined;
      const n = byteLength(v);
      const kn = Buffer.byteLength(k);
      headerBytes += bytesSize(kn) + bytesSize(n);
      headers.push([k, kn, v, n]);
    }
  }
  const keyLen = byteLength(key);
  const valueLen = byteLength(value);
  // attributes, timestamp delta 0 (no message timestamps: every delta is 0), offset delta, key, value, headers
  const body =
    1 + 1 + varintSize(offsetDelta) + bytesSize(keyLen) + bytesSize(valueLen) + varintSize(headers.length) + headerBytes;
  return { key, keyLen, value, valueLen, headers, body };
}

function writeRecord(buf: Buffer, o: number, s: Sized, offsetDelta: number): number {
  o = writeVarInt(buf, o, s.body);
  buf[o++] = 0; // attributes
  buf[o++] = 0; // timestamp delta
  o = writeVarInt(buf, o, offsetDelta);
  o = writeBytes(buf, o, s.key, s.keyLen);
  o = writeBytes(buf, o, s.value, s.valueLen);
  o = writeVarInt(buf, o, s.headers.length);
  for (const [k, kn, v, n] of s.headers) {
    o = writeBytes(buf, o, k, kn);
    o = writeBytes(buf, o, v, n);
  }
  return o;
}

/**
 * The produce request's payload (what kafkajs's v3 `encode()` resolves to), or undefined when a message
 * needs kafkajs's own encoder. `crc32c` is the CRC kafkajs's record batch uses.
 */
export function encodeProduce(args: ProduceArgs, crc32c: (b: Uint8Array) => number): EncoderLike | undefined {
  if ((args.compression ?? 0) !== 0) return undefined;
  const now = Date.now();
  const transactionalId = args.transactionalId ?? null;
  const producerId = Long.fromValue(args.producerId ?? -1).value;
  const producerEpoch = args.producerEpoch ?? 0;
  const txLen = transactionalId === null ? -1 : Buffer.byteLength(transactionalId);
  let total = 2 + Math.max(0, txLen) + 2 + 4 + 4;
  const sized: Sized[][][] = [];
  for (const t of args.topicData) {
    const parts: Sized[][] = [];
    total += 2 + Buffer.byteLength(t.topic) + 4;
    for (const p of t.partitions) {
      const recs: Sized[] = [];
      let records = 0;
      for (let i = 0; i < p.messages.length; i++) {
        const s = sizeMessage(p.messages[i]!, i);
        if (!s) return undefined;
        records += uvarintSize(zigzag(s.body)) + s.body;
        recs.push(s);
      }
      // partition, record set size, first offset, batch length, leader epoch, magic, CRC, body
      total += 4 + 4 + 8 + 4 + 4 + 1 + 4 + BATCH_BODY_HEAD + records;
      parts.push(recs);
    }
    sized.push(parts);
  }
  const buf = Buffer.allocUnsafe(total);
  let o = buf.writeInt16BE(txLen, 0);
  if (transactionalId !== null) o += buf.write(transactionalId, o, 'utf8');
  o = buf.writeInt16BE(args.acks, o);
  o = buf.writeInt32BE(args.timeout, o);
  o = buf.writeInt32BE(args.topicData.length, o);
  args.topicData.forEach((t, ti) => {
    o = buf.writeInt16BE(Buffer.byteLength(t.topic), o);
    o += buf.write(t.topic, o, 'utf8');
    o = buf.writeInt32BE(t.partitions.length, o);
    t.partitions.forEach((p, pi) => {
      const recs = sized[ti]![pi]!;
      o = buf.writeInt32BE(p.partition, o);
      const sizeAt = o;
      o = buf.writeBigInt64BE(0n, o + 4); // first offset
      const lengthAt = o;
      o = buf.writeInt32BE(0, o + 4); // partition leader epoch
      o = buf.writeInt8(MAGIC_BYTE, o);
      const crcAt = o;
      const body = crcAt + 4;
      o = buf.writeInt16BE(transactionalId ? TRANSACTIONAL : 0, body);
      o = buf.writeInt32BE(recs.length - 1, o);
      o = buf.writeBigInt64BE(BigInt(now), o); // first timestamp
      o = buf.writeBigInt64BE(BigInt(now), o); // max timestamp
      o = buf.writeBigInt64BE(producerId, o);
      o = buf.writeInt16BE(producerEpoch, o);
      o = buf.writeInt32BE(p.firstSequence ?? 0, o);
      o = buf.writeInt32BE(recs.length, o);
      recs.forEach((s, i) => (o = writeRecord(buf, o, s, i)));
      buf.writeUInt32BE(crc32c(buf.subarray(body, o)), crcAt);
      buf.writeInt32BE(o - lengthAt - 4, lengthAt);
      buf.writeInt32BE(o - sizeAt - 4, sizeAt);
    });
  });
  if (o !== total) throw new Error(`produce request: wrote ${o} bytes of ${total}`);
  const e = new Encoder();
  e.buf = buf;
  e.offset = total;
  return e;
}

/** kafkajs's produce v3 request factory with `encode` written in one pass where it can. */
export function fastProduceRequest(original: RequestFactory, crc32c: (b: Uint8Array) => number): RequestFactory {
  return (args) => {
    const request = original(args);
    const fallback = request.encode;
    request.encode = async () => encodeProduce(args, crc32c) ?? fallback();
    return request;
  };
}
