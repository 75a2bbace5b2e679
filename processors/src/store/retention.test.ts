import { describe, expect, it } from 'vitest';
import { partitionsToDrop, retentionCutoff } from './retention.ts';

describe('retentionCutoff', () => {
  it.each([
    ['2026-03-10T12:00:00Z', 1, 20260309],
    ['2026-03-10T00:00:00Z', 10, 20260228],
    ['2024-03-01T23:59:59Z', 1, 20240229],
    ['2026-01-01T05:00:00Z', 90, 20251003],
  ])('%s keeping %d days -> %d', (now, days, cutoff) => expect(retentionCutoff(new Date(now), days)).toBe(cutoff));
});

describe('partitionsToDrop', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  it('drops only days before the cutoff, sorted and once', () => {
    expect(partitionsToDrop(['20260310', '20260301', '20260228', '20260228', '20250101', '20260309'], now, 9)).toEqual([
      '20250101',
      '20260228',
    ]);
  });
  it('keeps partitions it does not recognise', () => {
    expect(partitionsToDrop(['tuple()', '202601', 'abc', ''], now, 1)).toEqual([]);
  });
  it('keeps everything inside the window', () => {
    expect(partitionsToDrop(['20260310', '20260309'], now, 1)).toEqual([]);
  });
});
