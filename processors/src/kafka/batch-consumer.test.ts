import { describe, expect, it } from 'vitest';
import { backoffMs } from './batch-consumer.ts';

describe('backoffMs', () => {
  it.each([
    [1, 250],
    [2, 500],
    [3, 1000],
    [6, 8000],
    [7, 10000],
    [30, 10000],
  ])('attempt %d -> %d ms without jitter', (attempt, ms) => expect(backoffMs(attempt, 10_000, () => 0.5)).toBe(ms));
  it('jitters within +-20 %', () => {
    expect(backoffMs(3, 10_000, () => 0)).toBe(800);
    expect(backoffMs(3, 10_000, () => 1)).toBe(1200);
  });
});
