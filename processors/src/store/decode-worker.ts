// Worker thread of the store's decode pool: decodes chunks of raw Kafka values into TabSeparated rows.
import { parentPort } from 'node:worker_threads';
import { decodeChunk } from './decode-chunk.ts';

parentPort!.on('message', (m: { id: number; data: ArrayBuffer; ends: Int32Array; keys: Uint32Array }) => {
  try {
    const r = decodeChunk(Buffer.from(m.data), m.ends, m.keys);
    // Transfer the rows instead of copying them back (a copy when the buffer is a slice of a pool).
    const own =
      r.tsv.byteOffset === 0 && r.tsv.byteLength === r.tsv.buffer.byteLength
        ? (r.tsv.buffer as ArrayBuffer)
        : r.tsv.buffer.slice(r.tsv.byteOffset, r.tsv.byteOffset + r.tsv.byteLength);
    parentPort!.postMessage({ id: m.id, tsv: own, count: r.count, poison: r.poison }, [own as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
