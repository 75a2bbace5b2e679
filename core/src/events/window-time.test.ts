import { describe, expect, it } from 'vitest';
import { FUTURE_BOUND_MS, PAST_BOUND_MS, windowTime } from './window-time.ts';

const R = Date.parse('2026-11-25T12:00:00.000Z');
const H = 3_600_000;

describe('windowTime', () => {
  it.each([
    ['on time', R, R, false],
    ['a second before receipt (transport)', R - 1000, R - 1000, false],
    ['ahead, within the future bound', R + FUTURE_BOUND_MS, R + FUTURE_BOUND_MS, false],
    ['ahead, a second past the future bound', R + FUTURE_BOUND_MS + 1000, R, true],
    ['a clock 3 h ahead', R + 3 * H, R, true],
    ['2 days old (a spooled event after an outage)', R - 48 * H, R - 48 * H, false],
    ['exactly at the past bound', R - PAST_BOUND_MS, R - PAST_BOUND_MS, false],
    ['a second older than the past bound', R - PAST_BOUND_MS - 1000, R, true],
    ['a clock reset to 2001', Date.parse('2001-01-01T00:00:00Z'), R, true],
    ['a clock reset to 1970', 0, R, true],
    ['unreadable', Number.NaN, R, true],
  ])('%s', (_name, occurred, expected, skewed) => {
    const w = windowTime(occurred, R);
    expect(w.at.getTime()).toBe(expected);
    expect(w.skewed).toBe(skewed);
  });

  it('reads ISO 8601 with an offset, Dates and epoch ms alike, and reports the skew', () => {
    const iso = windowTime('2026-11-25T18:00:00.000+03:00', '2026-11-25T12:00:00.000Z'); // 15:00Z: 3 h ahead
    expect(iso).toEqual({ at: new Date(R), skewMs: 3 * H, skewed: true });
    expect(windowTime(new Date(R - 2000), new Date(R))).toEqual({ at: new Date(R - 2000), skewMs: -2000, skewed: false });
    expect(windowTime('not a date', R).skewed).toBe(true);
  });
});
