import { describe, expect, it } from 'vitest';
import { applyIsolating, SystemicFailure } from './isolate.ts';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A sink that applies all-or-nothing and fails on the listed items with the given error. */
function sink(bad: Map<number, () => Error>, flaky: { transientLeft: number } = { transientLeft: 0 }) {
  const applied: number[] = [];
  const calls: number[][] = [];
  return {
    applied,
    calls,
    async apply(part: number[]) {
      calls.push(part);
      if (flaky.transientLeft > 0) {
        flaky.transientLeft--;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      for (const i of part) {
        const e = bad.get(i);
        if (e) throw e();
      }
      applied.push(...part);
    },
  };
}

const noWait = { attempts: 3, wait: async () => {} };

describe('applyIsolating', () => {
  it('applies a good batch once', async () => {
    const s = sink(new Map());
    expect(await applyIsolating([1, 2, 3], (p) => s.apply(p), noWait)).toEqual([]);
    expect(s.calls).toEqual([[1, 2, 3]]);
  });

  it('isolates the message that fails deterministically, applies the rest in order', async () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const s = sink(new Map([[37, () => pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')]]));
    const poison = await applyIsolating(items, (p) => s.apply(p), noWait);
    expect(poison).toEqual([{ item: 37, reason: '22021: invalid byte sequence for encoding "UTF8": 0x00' }]);
    expect(s.applied).toEqual(items.filter((i) => i !== 37));
    expect(s.calls.length).toBeLessThan(40); // halving, not one message at a time
  });

  it('isolates several bad messages and any error class once a neighbour succeeded', async () => {
    const s = sink(
      new Map([
        [2, () => new TypeError('cannot read x')],
        [7, () => pgError('54000', 'index row size 3000 exceeds btree version 4 maximum 2704')],
      ]),
    );
    const poison = await applyIsolating([0, 1, 2, 3, 4, 5, 6, 7, 8], (p) => s.apply(p), noWait);
    expect(poison.map((p) => p.item)).toEqual([2, 7]);
    expect(s.applied).toEqual([0, 1, 3, 4, 5, 6, 8]);
  });

  it('waits out transient failures without ever splitting or giving up', async () => {
    const s = sink(new Map(), { transientLeft: 25 });
    const waits: number[] = [];
    const poison = await applyIsolating([1, 2, 3, 4], (p) => s.apply(p), {
      attempts: 3,
      wait: async (_e, attempt) => {
        waits.push(attempt);
      },
    });
    expect(poison).toEqual([]);
    expect(s.applied).toEqual([1, 2, 3, 4]);
    expect(s.calls.every((c) => c.length === 4)).toBe(true);
    expect(waits).toHaveLength(25);
  });

  it('calls a batch in which every message fails (not with a data error) systemic: nothing is poison', async () => {
    const all = new Map(Array.from({ length: 8 }, (_, i) => [i, () => new Error('relation "hosts" does not exist')]));
    const s = sink(all);
    await expect(applyIsolating([0, 1, 2, 3, 4, 5, 6, 7], (p) => s.apply(p), noWait)).rejects.toBeInstanceOf(SystemicFailure);
    expect(s.applied).toEqual([]);
  });

  it('dead-letters a lone message after the attempts, and data errors even when all fail', async () => {
    const lone = sink(new Map([[5, () => new Error('boom')]]));
    expect(await applyIsolating([5], (p) => lone.apply(p), noWait)).toEqual([{ item: 5, reason: 'boom' }]);
    expect(lone.calls).toHaveLength(3);
    const both = sink(
      new Map([
        [1, () => pgError('22P05', 'unsupported Unicode escape sequence')],
        [2, () => pgError('22P05', 'unsupported Unicode escape sequence')],
      ]),
    );
    expect((await applyIsolating([1, 2], (p) => both.apply(p), noWait)).map((p) => p.item)).toEqual([1, 2]);
  });

  it('stops when wait throws (shutdown)', async () => {
    const s = sink(new Map(), { transientLeft: 100 });
    await expect(
      applyIsolating([1], (p) => s.apply(p), {
        attempts: 3,
        wait: async (_e, attempt) => {
          if (attempt >= 2) throw new Error('stopping');
        },
      }),
    ).rejects.toThrow('stopping');
  });
});
