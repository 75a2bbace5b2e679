// The events page's and dashboard's time range in the URL (issue 23): presets, absolute instants and
// the old bare-date filters, round trips, and what a range covers.
import { describe, expect, it } from 'vitest';
import { describeRange, parseInstant, rangeFromQuery, rangeToQuery, resolveRange, zoneLabel, type TimeRange } from './time-range';

describe('rangeFromQuery / rangeToQuery', () => {
  it('reads presets and falls back on unknown or missing ones', () => {
    expect(rangeFromQuery({ range: '7d' })).toEqual({ kind: 'preset', preset: '7d' });
    expect(rangeFromQuery({ range: ['15m'] })).toEqual({ kind: 'preset', preset: '15m' });
    expect(rangeFromQuery({ range: '3w' })).toEqual({ kind: 'preset', preset: '24h' });
    expect(rangeFromQuery({}, '1h')).toEqual({ kind: 'preset', preset: '1h' });
  });

  it('reads absolute instants with their offset, and rejects reversed or broken ones', () => {
    const r = rangeFromQuery({ from: '2026-11-24T21:30:00+01:00', to: '2026-11-24T23:00:00Z' });
    expect(r).toEqual({ kind: 'absolute', from: '2026-11-24T20:30:00.000Z', to: '2026-11-24T23:00:00.000Z' });
    expect(rangeFromQuery({ from: '2026-11-25T00:00:00Z', to: '2026-11-24T00:00:00Z' })).toEqual({
      kind: 'preset',
      preset: '24h',
    });
    expect(rangeFromQuery({ from: 'soon', to: '2026-11-24T00:00:00Z' })).toEqual({ kind: 'preset', preset: '24h' });
  });

  it('keeps old bare-date URLs working: from a local midnight through the whole `to` day', () => {
    const r = rangeFromQuery({ from: '2026-11-24', to: '2026-11-25' });
    expect(r.kind).toBe('absolute');
    if (r.kind !== 'absolute') return;
    expect(new Date(r.from).getTime()).toBe(new Date(2026, 10, 24).getTime());
    expect(new Date(r.to).getTime()).toBe(new Date(2026, 10, 26).getTime());
  });

  it('round-trips through the URL', () => {
    const ranges: TimeRange[] = [
      { kind: 'preset', preset: '15m' },
      { kind: 'absolute', from: '2026-01-02T03:04:05.000Z', to: '2026-01-03T00:00:00.000Z' },
    ];
    for (const r of ranges) expect(rangeFromQuery(rangeToQuery(r))).toEqual(r);
    expect(rangeToQuery({ kind: 'preset', preset: '1h' })).toEqual({ range: '1h' });
  });
});

describe('resolveRange', () => {
  it('gives a preset the exact rolling window ending now', () => {
    const now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const { from, to } = resolveRange({ kind: 'preset', preset: '24h' }, now);
    expect(to.getTime()).toBe(now);
    expect(to.getTime() - from.getTime()).toBe(86_400_000);
    expect(resolveRange({ kind: 'preset', preset: '15m' }, now).from.getTime()).toBe(now - 15 * 60_000);
  });
  it('gives an absolute range its instants', () => {
    const r = resolveRange({ kind: 'absolute', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' });
    expect(r.from.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(r.to.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });
});

describe('labels', () => {
  it('names the zone as an offset', () => {
    expect(zoneLabel()).toMatch(/^UTC[+-]\d{2}:\d{2}$/);
    const d = new Date();
    const m = -d.getTimezoneOffset();
    expect(zoneLabel(d)).toBe(
      `UTC${m >= 0 ? '+' : '-'}${String(Math.floor(Math.abs(m) / 60)).padStart(2, '0')}:${String(Math.abs(m) % 60).padStart(2, '0')}`,
    );
  });
  it('describes presets in words and absolute ranges with the zone', () => {
    expect(describeRange({ kind: 'preset', preset: '7d' })).toBe('Last 7 days');
    expect(describeRange({ kind: 'absolute', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' })).toMatch(
      /\(UTC[+-]\d{2}:\d{2}\)$/,
    );
  });
  it('parses instants and rejects garbage', () => {
    expect(parseInstant('')).toBeNull();
    expect(parseInstant('nope')).toBeNull();
    expect(parseInstant('2026-01-01T00:00:00Z')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});
