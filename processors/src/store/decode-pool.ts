// Decoding (JSON.parse, schema v1, row, TabSeparated) is most of the store's CPU. With `threads` > 0 it
// runs in worker threads, so the Kafka loop (fetch decoding, offsets) and the decoding use two cores;
// with 0 it runs inline. A worker that dies fails the chunks it held (the batch is retried) and is
// replaced on the next call.
import { Worker } from 'node:worker_threads';
import { decodeChunk, packValues, type DecodedChunk } from './decode-chunk.ts';

interface Pending {
  resolve(c: DecodedChunk): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

type Reply = { id: number; tsv: ArrayBuffer; count: number; poison: DecodedChunk['poison'] } | { id: number; error: string };

export class DecodePool {
  private readonly slots: (Slot | undefined)[];
  private next = 0;
  private seq = 0;
  private closed = false;

  constructor(threads: number) {
    this.slots = Array.from({ length: threads }, () => undefined);
  }

  /** `keyIds[i]`: the verified agent key id of value i (0 = unknown); default all unknown. */
  decode(values: readonly (Buffer | null)[], keyIds: readonly number[] = []): Promise<DecodedChunk> {
    const { data, ends } = packValues(values);
    const keys = Uint32Array.from(values, (_, i) => keyIds[i] ?? 0);
    if (this.slots.length === 0) return Promise.resolve(decodeChunk(data, ends, keys));
    if (this.closed) return Promise.reject(new Error('decode pool closed'));
    const i = this.next++ % this.slots.length;
    const slot = (this.slots[i] ??= this.spawn(i));
    const id = this.seq++;
    return new Promise<DecodedChunk>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, data: data.buffer, ends, keys }, [
        data.buffer as ArrayBuffer,
        ends.buffer as ArrayBuffer,
        keys.buffer as ArrayBuffer,
      ]);
    });
  }

  private spawn(i: number): Slot {
    const worker = new Worker(new URL('./decode-worker.ts', import.meta.url));
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (r: Reply) => {
      const p = slot.pending.get(r.id);
      if (!p) return;
      slot.pending.delete(r.id);
      if ('error' in r) p.reject(new Error(`decode worker: ${r.error}`));
      else p.resolve({ tsv: Buffer.from(r.tsv), count: r.count, poison: r.poison });
    });
    const fail = (err: Error) => {
      if (this.slots[i] === slot) this.slots[i] = undefined;
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`decode worker exited (code ${code})`)));
    // An idle worker must not keep the process alive.
    worker.unref();
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.flatMap((s) => (s ? [s.worker.terminate()] : [])));
  }
}
