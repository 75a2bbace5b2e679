// Decoding raw Kafka values into TabSeparated rows: the same answer inline and in a worker thread,
// poison values reported by index with their reason, and a dead worker replaced.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '@watchpost/schemas';
import { makeEnvelope } from '@watchpost/testkit';
import { decodeChunk, packValues } from './decode-chunk.ts';
import { DecodePool } from './decode-pool.ts';
import { envelopeToRow } from './rows.ts';
import { rowsToTsv } from './tsv.ts';

const good = [makeEnvelope({ title: 'tab\tand\nnewline' }, 1), makeEnvelope({}, 2), makeEnvelope({}, 3)];
const bad = makeEnvelope({}, 4);
delete (bad.event as Record<string, unknown>).severity;
const values: (Buffer | null)[] = [
  encodeEnvelope(good[0]!),
  Buffer.from('not json'),
  encodeEnvelope(good[1]!),
  null,
  encodeEnvelope(bad),
  Buffer.alloc(0),
  encodeEnvelope(good[2]!),
];
const expectedTsv = rowsToTsv(good.map((e) => envelopeToRow(e, JSON.stringify(e.event))));

const pools: DecodePool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

describe('decodeChunk', () => {
  it('rows for the valid values, the rest as poison by index with the reason', () => {
    const { data, ends } = packValues(values);
    const r = decodeChunk(data, ends);
    expect(r.count).toBe(3);
    expect(r.tsv.equals(expectedTsv)).toBe(true);
    expect(r.poison.map((p) => p.index)).toEqual([1, 3, 4, 5]);
    expect(r.poison[0]!.reason).toMatch(/not JSON/);
    expect(r.poison[1]!.reason).toMatch(/empty/);
    expect(r.poison[2]!.reason).toMatch(/\/severity|severity/);
    expect(r.poison[3]!.reason).toMatch(/empty/);
  });
});

describe('DecodePool', () => {
  it('answers in a worker thread exactly as inline', async () => {
    const threaded = new DecodePool(1);
    const inline = new DecodePool(0);
    pools.push(threaded, inline);
    const [a, b] = await Promise.all([threaded.decode(values), inline.decode(values)]);
    expect(a.tsv.equals(b.tsv)).toBe(true);
    expect(a).toEqual(b);
    // The verified key of each value reaches its row, in the worker as inline.
    const keys = [5, 0, 6, 0, 0, 0, 7];
    const [ka, kb] = await Promise.all([threaded.decode(values, keys), inline.decode(values, keys)]);
    expect(ka.tsv.equals(kb.tsv)).toBe(true);
    const withKeys = rowsToTsv(good.map((e, i) => envelopeToRow(e, JSON.stringify(e.event), [5, 6, 7][i])));
    expect(ka.tsv.equals(withKeys)).toBe(true);
    // Several chunks in flight at once each get their own answer.
    const many = await Promise.all(Array.from({ length: 5 }, (_, i) => threaded.decode(values.slice(0, i + 1))));
    expect(many.map((m) => m.count)).toEqual([1, 1, 2, 2, 2]);
  });

  it('a worker that dies fails its chunks; the next call gets a new worker', async () => {
    const pool = new DecodePool(1);
    pools.push(pool);
    await pool.decode(values);
    const slot = (pool as unknown as { slots: { worker: import('node:worker_threads').Worker }[] }).slots[0]!;
    // A chunk that keeps the worker busy for a while, so that it is surely in flight when the worker dies.
    const pending = pool.decode(Array.from({ length: 3000 }, () => values).flat());
    await slot.worker.terminate();
    await expect(pending).rejects.toThrow(/exited/);
    expect((await pool.decode(values)).count).toBe(3);
  });
});
