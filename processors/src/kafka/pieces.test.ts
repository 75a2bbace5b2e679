// The batch consumer's small pieces, without a broker.
import { describe, expect, it } from 'vitest';
import { PartitionBuffer } from './partition-buffer.ts';
import { CommitTracker } from './commit-tracker.ts';
import { chunkBySize, DeadLetterWriter } from './dead-letter-writer.ts';

describe('PartitionBuffer', () => {
  it('is full by size, lingers by time, and hands out everything with the last offset', () => {
    const b = new PartitionBuffer<string, string>(3, 100);
    expect(b.take()).toBeNull();
    b.add('a', '10', 1000);
    b.addPoison('bad', '11', 1050);
    expect(b.full()).toBe(false);
    expect(b.lingered(1099)).toBe(false);
    expect(b.lingered(1100)).toBe(true); // from the first message, not the last
    b.add('c', '12', 1060);
    expect(b.full()).toBe(true);
    expect(b.take()).toEqual({ items: ['a', 'c'], poison: ['bad'], upTo: '12' });
    expect(b.pending).toBe(false);
    expect(b.lingered(99_999)).toBe(false);
  });

  it('is full by bytes too', () => {
    const b = new PartitionBuffer<string, string>(1000, 100, 1000);
    b.add('a', '1', 0, 600);
    expect(b.full()).toBe(false);
    b.add('b', '2', 0, 400);
    expect(b.full()).toBe(true);
    b.take();
    b.add('c', '3', 0, 10);
    expect(b.full()).toBe(false);
  });

  it('forgets what is pending on clear (a rebalance re-delivers it)', () => {
    const b = new PartitionBuffer<string, string>(10, 100);
    b.add('a', '1', 0);
    b.clear();
    expect(b.take()).toBeNull();
  });
});

describe('CommitTracker', () => {
  it('knows the lag from the last fetch and the last commit', () => {
    const t = new CommitTracker();
    expect(t.lag('events', 0)).toBeNull();
    t.fetched('events', 0, '100', '150', 0);
    expect(t.lag('events', 0)).toBe(50);
    t.committed('events', 0, '140', 10);
    expect(t.lag('events', 0)).toBe(10);
    t.fetched('events', 0, '140', '140', 20);
    expect(t.lag('events', 0)).toBe(0);
  });

  it('tells a partition with lag and no progress (stalled) from an idle one', () => {
    const t = new CommitTracker();
    t.fetched('events', 0, '0', '10', 0);
    t.fetched('problems', 1, null, '0', 0); // empty and idle: never stalled
    expect(t.stalled(59_000, 60_000)).toBe(false);
    expect(t.stalled(61_000, 60_000)).toBe(true);
    t.committed('events', 0, '10', 61_000);
    expect(t.stalled(200_000, 60_000)).toBe(false); // caught up
    t.fetched('events', 0, '10', '20', 200_000);
    expect(t.stalled(250_000, 60_000)).toBe(false);
    expect(t.stalled(262_000, 60_000)).toBe(true);
    t.reset();
    expect(t.stalled(999_999, 60_000)).toBe(false);
  });
});

describe('dead letters', () => {
  it('chunks records under the byte limit, a huge one alone', () => {
    const rec = (n: number) => ({ key: null, value: Buffer.alloc(n) });
    const chunks = chunkBySize([rec(300), rec(300), rec(100), rec(2000), rec(10)], 1000);
    expect(chunks.map((c) => c.map((r) => (r.value as Buffer).length))).toEqual([[300, 300, 100], [2000], [10]]);
  });

  it('keeps what was not sent for the next try', async () => {
    let calls = 0;
    const sent: number[] = [];
    const w = new DeadLetterWriter(async (messages) => {
      calls++;
      if (calls === 2) throw new Error('broker away');
      sent.push(messages.length);
    });
    const big = Array.from({ length: 3 }, () => ({ key: null, value: Buffer.alloc(400 * 1024) }));
    const pending = [...big];
    await expect(w.write(pending)).rejects.toThrow('broker away');
    expect(pending).toHaveLength(2);
    await w.write(pending);
    expect(pending).toHaveLength(0);
    expect(sent).toEqual([1, 1, 1]);
  });
});
