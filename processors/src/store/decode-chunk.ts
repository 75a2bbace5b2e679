// Raw Kafka values -> TabSeparated rows for `events`, plus the poison ones with their reason. Pure and
// synchronous: the store runs it in a worker thread (decode-pool.ts), or inline with 0 threads.
import { decodeEnvelope } from '@watchpost/schemas';
import type { RawResult } from '../kafka/batch-consumer.ts';
import { envelopeToRow, type EventRow } from './rows.ts';
import { rowsToTsv } from './tsv.ts';

export interface DecodedChunk {
  tsv: Buffer;
  /** rows in `tsv` */
  count: number;
  poison: RawResult['poison'];
}

/**
 * `data` holds the values back to back; `ends[i]` is where value i ends (an empty one = no value);
 * `keys[i]` is the verified agent key id of value i (0 or absent = unknown).
 */
export function decodeChunk(data: Buffer, ends: ArrayLike<number>, keys?: ArrayLike<number>): DecodedChunk {
  const rows: EventRow[] = [];
  const poison: DecodedChunk['poison'] = [];
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    const d = decodeEnvelope(end > start ? data.subarray(start, end) : null, { eventJson: true });
    if (d.ok) rows.push(envelopeToRow(d.envelope, d.eventJson, keys?.[i] ?? 0));
    else poison.push({ index: i, reason: d.reason });
    start = end;
  }
  return { tsv: rowsToTsv(rows), count: rows.length, poison };
}

/** Values back to back in one buffer (one copy, transferable to a worker) and their end offsets. */
export function packValues(values: readonly (Buffer | null)[]): { data: Buffer; ends: Int32Array } {
  const ends = new Int32Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    total += values[i]?.length ?? 0;
    ends[i] = total;
  }
  // Its own ArrayBuffer (not a slice of Node's pool), so it can be transferred.
  const data = Buffer.from(new ArrayBuffer(total));
  let at = 0;
  for (const v of values) if (v) at += v.copy(data, at);
  return { data, ends };
}
