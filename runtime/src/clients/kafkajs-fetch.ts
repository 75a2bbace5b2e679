// kafkajs decodes every fetched record with 64-bit arithmetic on BigInt-backed Longs: the batch's first
// offset and first timestamp (decimal strings) parsed again for each record, the timestamp delta read as
// a Long, both sums turned back into strings, and the headers folded with an object spread per header.
// With four consumer groups in one process every event is decoded four times; in the drain profile
// (processors/README.md) kafkajs's record decoding was 5.7 % of the main thread. This decoder returns
// the same record (the same fields, values and order; kafkajs-fetch.test.ts compares it with kafkajs's
// over offsets and timestamps near 2^53 and 2^63, negative and large deltas, log-append time, headers
// repeated, null keys and values): the sums in plain numbers while they are exact, kafkajs's Longs
// otherwise.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface Header {
  key: string;
  value: Buffer | null;
}
export interface RecordDecoder {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): unknown;
  readVarIntBytes(): Buffer | null;
  readVarIntArray(reader: (d: RecordDecoder) => Header): Header[];
}
export interface BatchContext {
  firstOffset?: string;
  firstTimestamp?: string;
  magicByte?: number;
  isControlBatch?: boolean;
  timestampType?: number;
  maxTimestamp?: string;
}
type Decode = (decoder: RecordDecoder, batchContext?: BatchContext) => unknown;

const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): { add(v: unknown): { toString(): string } } };
const HeaderDecoder = require('kafkajs/src/protocol/recordBatch/header/v0/decoder.js') as (d: RecordDecoder) => Header;
const LOG_APPEND_TIME = (require('kafkajs/src/protocol/timestampTypes.js') as { LOG_APPEND_TIME: number }).LOG_APPEND_TIME;

/** The decimal string as a number when that number prints as the same string (exact), else undefined. */
function exact(s: string | undefined): number | undefined {
  if (typeof s !== 'string') return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) && String(n) === s ? n : undefined;
}

/** A varlong of at most 4 bytes (|value| < 2^27) as a number, advancing the decoder; else undefined, not advanced. */
function readShortVarLong(d: RecordDecoder): number | undefined {
  const buf = d.buffer;
  let o = d.offset;
  let v = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    const b = buf[o++];
    if (b === undefined) return undefined;
    v |= (b & 0x7f) << shift;
    if (b < 0x80) {
      d.offset = o;
      return (v >>> 1) ^ -(v & 1);
    }
  }
  return undefined;
}

const sum = (base: number | undefined, delta: number) => {
  if (base === undefined) return undefined;
  const n = base + delta;
  return Number.isSafeInteger(n) ? String(n) : undefined;
};

type Headers = Record<string, unknown>;
/** kafkajs's own fold, kept for a "__proto__" key: its spread defines it as an own key (and reads the prototype as an earlier value). */
const foldBySpread = (list: Header[]): Headers =>
  list.reduce<Headers>(
    (obj, { key, value }) => ({
      ...obj,
      [key]:
        obj[key] === undefined ? value : Array.isArray(obj[key]) ? (obj[key] as unknown[]).concat([value]) : [obj[key], value],
    }),
    {},
  );

/** kafkajs's fold of the header list: a key seen again becomes an array of its values, in order. */
function headersOf(list: Header[]): Headers {
  const out: Headers = {};
  for (const { key, value } of list) {
    if (key === '__proto__') return foldBySpread(list);
    const had = out[key];
    out[key] = had === undefined ? value : Array.isArray(had) ? had.concat([value]) : [had, value];
  }
  return out;
}

// The batch decoder hands every record of a batch the same context object: its numbers are taken once.
let lastContext: BatchContext | undefined;
let baseOffset: number | undefined;
let baseTimestamp: number | undefined;

/** kafkajs's record v0 decoder (recordBatch/record/v0/decoder.js), with the same result. */
export const decodeRecord: Decode = (decoder, batchContext = {}) => {
  const { firstOffset, firstTimestamp, magicByte, isControlBatch = false, timestampType, maxTimestamp } = batchContext;
  if (batchContext !== lastContext) {
    lastContext = batchContext;
    baseOffset = exact(firstOffset);
    baseTimestamp = exact(firstTimestamp);
  }
  const attributes = decoder.readInt8();
  const short = readShortVarLong(decoder);
  const longDelta = short === undefined ? decoder.readVarLong() : undefined;
  const timestamp =
    timestampType === LOG_APPEND_TIME && maxTimestamp
      ? maxTimestamp
      : ((short === undefined ? undefined : sum(baseTimestamp, short)) ??
        Long.fromValue(firstTimestamp)
          .add(longDelta ?? short)
          .toString());
  const offsetDelta = decoder.readVarInt();
  const offset = sum(baseOffset, offsetDelta) ?? Long.fromValue(firstOffset).add(offsetDelta).toString();
  const key = decoder.readVarIntBytes();
  const value = decoder.readVarIntBytes();
  const headers = headersOf(decoder.readVarIntArray(HeaderDecoder));
  return {
    magicByte,
    attributes,
    timestamp,
    offset,
    key,
    value,
    headers,
    isControlRecord: isControlBatch,
    batchContext,
  };
};
