import { describe, expect, it } from 'vitest';
import { localDate, nextDailyRun } from './schedule.ts';

const at = (iso: string) => new Date(iso);

describe('daily report schedule', () => {
  it('runs at the local time in UTC and in a fixed zone', () => {
    expect(nextDailyRun('08:00', 'UTC', at('2026-11-23T07:59:00Z')).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(nextDailyRun('08:00', 'UTC', at('2026-11-23T08:00:00Z')).toISOString()).toBe('2026-11-24T08:00:00.000Z');
    expect(nextDailyRun('08:00', 'Asia/Kolkata', at('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-23T02:30:00.000Z');
  });

  it('follows Europe/Berlin across both DST changes (runs stay at 08:00 local)', () => {
    // spring forward on 2026-03-29: 08:00 CET (UTC+1) on the 28th, 08:00 CEST (UTC+2) on the 29th
    expect(nextDailyRun('08:00', 'Europe/Berlin', at('2026-03-28T06:00:00Z')).toISOString()).toBe('2026-03-28T07:00:00.000Z');
    expect(nextDailyRun('08:00', 'Europe/Berlin', at('2026-03-28T07:00:00Z')).toISOString()).toBe('2026-03-29T06:00:00.000Z');
    // fall back on 2026-10-25
    expect(nextDailyRun('08:00', 'Europe/Berlin', at('2026-10-24T06:00:00Z')).toISOString()).toBe('2026-10-25T07:00:00.000Z');
  });

  it('a time that does not exist runs after the jump; one that happens twice runs at its first occurrence', () => {
    // America/New_York springs forward at 02:00 on 2026-03-08 (02:30 does not exist)
    expect(nextDailyRun('02:30', 'America/New_York', at('2026-03-08T05:00:00Z')).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // and falls back at 02:00 on 2026-11-01 (01:30 happens twice: EDT first, 05:30Z)
    expect(nextDailyRun('01:30', 'America/New_York', at('2026-11-01T04:00:00Z')).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(nextDailyRun('01:30', 'America/New_York', at('2026-11-01T05:30:00Z')).toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('names the local day', () => {
    expect(localDate(at('2026-11-23T23:30:00Z'), 'Europe/Berlin')).toBe('2026-11-24');
    expect(localDate(at('2026-11-23T23:30:00Z'), 'UTC')).toBe('2026-11-23');
  });
});
