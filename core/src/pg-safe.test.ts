import { describe, expect, it } from 'vitest';
import { MAX_PG_KEY_CHARS, pgSafeJson, pgSafeKey, pgSafeText } from './pg-safe.ts';

describe('Postgres safe forms', () => {
  it.each([
    ['plain', 'web-01', 'web-01'],
    ['NUL', 'bad\u0000title', 'bad\ufffdtitle'],
    ['lone high surrogate', 'x\ud800y', 'x\ufffdy'],
    ['lone low surrogate', '\udfffz', '\ufffdz'],
    ['a real pair stays', 'a😀b', 'a😀b'],
    ['two highs', '\ud800\ud800', '\ufffd\ufffd'],
  ])('text: %s', (_n, input, want) => expect(pgSafeText(input)).toBe(want));

  it('bounds long keys by a hash, deterministically and distinctly', () => {
    const a = 'h'.repeat(5000);
    const b = `${'h'.repeat(4999)}i`;
    expect(pgSafeKey('web-01')).toBe('web-01');
    expect(pgSafeKey(a)).toHaveLength(180 + 1 + 16);
    expect(pgSafeKey(a)).toBe(pgSafeKey(a));
    expect(pgSafeKey(a)).not.toBe(pgSafeKey(b));
    expect(pgSafeKey('x'.repeat(MAX_PG_KEY_CHARS))).toBe('x'.repeat(MAX_PG_KEY_CHARS));
    expect(Buffer.byteLength(pgSafeKey('😀'.repeat(3000)))).toBeLessThan(1000);
  });

  it('makes every string of a JSON value safe, keys included, at any depth', () => {
    let deep: Record<string, unknown> = { leaf: 'a\u0000b' };
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    let out = pgSafeJson(deep);
    for (let i = 0; i < 10_000; i++) out = out.d as Record<string, unknown>;
    expect(out).toEqual({ leaf: 'a\ufffdb' });
    expect(pgSafeJson({ 'k\u0000': ['x\ud800', 1, null, true, { y: '\udc00' }] })).toEqual({
      'k\ufffd': ['x\ufffd', 1, null, true, { y: '\ufffd' }],
    });
    expect(JSON.stringify(pgSafeJson({ a: 'ok' }))).toBe('{"a":"ok"}');
  });
});
