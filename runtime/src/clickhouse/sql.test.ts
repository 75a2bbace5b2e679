import { describe, expect, it } from 'vitest';
import { ident, literal, quoteString, sql, joinSql } from './sql.ts';

describe('ClickHouse literal binding', () => {
  it.each([
    ['plain', "'plain'"],
    ["o'neil", "'o\\'neil'"],
    ['back\\slash', "'back\\\\slash'"],
    ['a\nb\tc\rd', "'a\\nb\\tc\\rd'"],
    ['nul\0byte', "'nul\\0byte'"],
    ['{x:String}', "'{x:String}'"],
  ])('quotes %j', (input, expected) => {
    expect(quoteString(input)).toBe(expected);
  });

  it('binds numbers, booleans, null, dates and arrays', () => {
    expect(literal(42)).toBe('42');
    expect(literal(-1.5)).toBe('-1.5');
    expect(literal(true)).toBe('1');
    expect(literal(null)).toBe('NULL');
    expect(literal(10n)).toBe('10');
    expect(literal(new Date('2026-01-02T03:04:05.678Z'))).toBe("toDateTime('2026-01-02 03:04:05', 'UTC')");
    expect(literal(['a', "b'"])).toBe("['a', 'b\\'']");
  });

  it('refuses values that have no safe literal', () => {
    expect(() => literal(Number.NaN)).toThrow(/non-finite/);
    expect(() => literal(new Date('nope'))).toThrow(/invalid Date/);
    expect(() => literal({} as never)).toThrow(/unsupported/);
  });

  it('builds a query from a template with values as literals', () => {
    const host = "x' OR 1=1 --";
    expect(sql`SELECT 1 FROM events WHERE hostname = ${host} AND n > ${3}`.text).toBe(
      "SELECT 1 FROM events WHERE hostname = 'x\\' OR 1=1 --' AND n > 3",
    );
    const where = joinSql([sql`a = ${1}`, sql`b = ${'x'}`], ' AND ');
    expect(sql`SELECT * FROM ${ident('events')} WHERE ${where}`.text).toBe("SELECT * FROM events WHERE a = 1 AND b = 'x'");
  });

  it('accepts only plain identifiers', () => {
    expect(ident('events_2').text).toBe('events_2');
    for (const bad of ['x;DROP', 'a b', '1abc', '`x`', '']) expect(() => ident(bad)).toThrow(/unsafe SQL identifier/);
  });
});
