// Inventory diffs are bounded: a snapshot with thousands of changed leaves (or huge values) gives a
// diff of at most MAX_DIFF_PATHS paths and about MAX_DIFF_BYTES of JSON, marked truncated with totals.
import { describe, expect, it } from 'vitest';
import { capDiff, hardwareDiff, MAX_DIFF_BYTES, MAX_DIFF_PATHS } from './rules.ts';

describe('hardwareDiff caps', () => {
  it('keeps a small diff whole, without truncated', () => {
    expect(hardwareDiff({ memory_gb: 64 }, { memory_gb: 32 })).toEqual({
      added: [],
      removed: [],
      changed: [{ path: 'memory_gb', from: 64, to: 32 }],
    });
  });

  it('cuts a diff of many paths to MAX_DIFF_PATHS, changed first, with totals', () => {
    const before = { disks: Array.from({ length: 300 }, (_, i) => ({ size_gb: i })) };
    const after = {
      disks: Array.from({ length: 300 }, (_, i) => ({ size_gb: i + 1 })),
      gpu: Array.from({ length: 50 }, () => 'x'),
    };
    const d = hardwareDiff(before, after)!;
    expect(d.truncated).toBe(true);
    expect(d.total).toEqual({ added: 50, removed: 0, changed: 300 });
    expect(d.changed.length + d.added.length + d.removed.length).toBeLessThanOrEqual(MAX_DIFF_PATHS);
    expect(d.changed[0]).toEqual({ path: 'disks.0.size_gb', from: 0, to: 1 });
    expect(Buffer.byteLength(JSON.stringify(d))).toBeLessThanOrEqual(MAX_DIFF_BYTES);
  });

  it('cuts a diff of huge values by bytes', () => {
    const d = hardwareDiff(
      { a: 'x'.repeat(3000), b: 'y'.repeat(2000), c: 'z' },
      { a: 'q'.repeat(3000), b: 'w'.repeat(2000), c: 'zz' },
    )!;
    expect(Buffer.byteLength(JSON.stringify(d))).toBeLessThanOrEqual(MAX_DIFF_BYTES);
    expect(d.truncated).toBe(true);
    expect(d.total).toEqual({ added: 0, removed: 0, changed: 3 });
    // b does not fit after a; c would, but is left out too so that the kept part is a prefix.
    expect(d.changed.map((c) => c.path)).toEqual(['a']);
  });

  it('a single entry over the byte cap leaves an empty, truncated diff', () => {
    const d = capDiff({ added: [{ path: 'blob', value: 'z'.repeat(MAX_DIFF_BYTES * 2) }], removed: [], changed: [] });
    expect(d).toEqual({ added: [], removed: [], changed: [], truncated: true, total: { added: 1, removed: 0, changed: 0 } });
  });
});
