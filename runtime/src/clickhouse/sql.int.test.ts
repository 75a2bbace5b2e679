// Hostile strings must survive a round trip through the real servers unchanged: the 18.16 server of
// the local stack and a current engine (chDB).
import { afterAll, describe, expect, it } from 'vitest';
import { createClickhouse, queryRows } from '../clients/clickhouse.ts';
import { loadConfig } from '../config/config.ts';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { sql } from './sql.ts';

const hostile = [
  "it's",
  'back\\slash\\',
  "\\'",
  'quote"double',
  'nul\0inside',
  'new\nline\r\nand\ttab',
  'bell\u0007 and \b \f',
  'unicode: Zürich 東京 🚀 \u200b',
  '{x:String}',
  '{name:UInt8} $1 ? :x',
  "'); DROP TABLE events; --",
  '',
  '\\N',
];

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const engines = {
  'clickhouse 18.16 server': createClickhouse(config.clickhouseUrl, 'default'),
  'current engine (chdb)': createChdbClient(),
};

afterAll(async () => {
  for (const c of Object.values(engines)) await c.close();
});

describe.each(Object.entries(engines))('%s', (_name, ch) => {
  it.each(hostile.map((s) => [JSON.stringify(s), s]))('round-trips %s', async (_label, value) => {
    const rows = await queryRows<{ v: string; n: number }>(ch, sql`SELECT ${value} AS v, length(${value}) AS n`);
    expect(rows[0]!.v).toBe(value);
    expect(Number(rows[0]!.n)).toBe(Buffer.byteLength(value));
  });

  it('round-trips arrays, numbers and dates', async () => {
    const d = new Date('2026-11-21T12:34:56Z');
    const rows = await queryRows<{ a: string[]; n: number; d: string }>(
      ch,
      sql`SELECT ${hostile} AS a, ${-12345.5} AS n, toString(${d}) AS d`,
    );
    expect(rows[0]!.a).toEqual(hostile);
    expect(Number(rows[0]!.n)).toBe(-12345.5);
    expect(rows[0]!.d).toBe('2026-11-21 12:34:56');
  });
});
