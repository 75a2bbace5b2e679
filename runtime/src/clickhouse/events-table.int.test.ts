// The occurred_at bounds on the real 18.16 server: the right rows at hour and second edges, with
// force_primary_key on (the conditions are index conditions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { execSql, queryRows } from '../clients/clickhouse.ts';
import { sql } from './sql.ts';
import { occurredHoursSql, occurredRangeSql } from './events-table.ts';

let s: TestStores;
const times = [
  '2026-03-01T09:59:59Z',
  '2026-03-01T10:00:00Z',
  '2026-03-01T10:30:00Z',
  '2026-03-01T10:59:59Z',
  '2026-03-01T11:00:00Z',
];
const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  s = await createTestStores(testConfig('events_range'), { kafka: false });
  const rows = times.map((t, i) => sql`(${`id-${i}`}, ${at(t)}, ${at(t)}, 'h1', 'auth.test', 'info')`);
  await execSql(
    s.ch,
    sql`INSERT INTO events (event_id, occurred_at, received_at, hostname, type, severity) VALUES ${rows.reduce((a, b) => sql`${a}, ${b}`)}`,
  );
});
afterAll(() => s?.drop());

async function ids(where: ReturnType<typeof sql>): Promise<string[]> {
  const r = await queryRows<{ event_id: string }>(
    s.ch,
    sql`SELECT event_id FROM events WHERE ${where} ORDER BY event_id SETTINGS force_primary_key = 1`,
  );
  return r.map((x) => x.event_id);
}

describe('occurred_at bounds on the events table', () => {
  it('from is inclusive, toExclusive exclusive, toInclusive inclusive, across hour edges', async () => {
    expect(await ids(occurredRangeSql({ from: at('2026-03-01T10:00:00Z') }))).toEqual(['id-1', 'id-2', 'id-3', 'id-4']);
    expect(await ids(occurredRangeSql({ from: at('2026-03-01T09:59:59Z'), toExclusive: at('2026-03-01T11:00:00Z') }))).toEqual([
      'id-0',
      'id-1',
      'id-2',
      'id-3',
    ]);
    expect(await ids(occurredRangeSql({ from: at('2026-03-01T10:00:01Z'), toInclusive: at('2026-03-01T10:59:59Z') }))).toEqual([
      'id-2',
      'id-3',
    ]);
    expect(await ids(occurredRangeSql({ toExclusive: at('2026-03-01T10:00:00Z') }))).toEqual(['id-0']);
  });

  it('selects whole UTC hours', async () => {
    expect(await ids(occurredHoursSql([Date.parse('2026-03-01T10:00:00Z') / 1000]))).toEqual(['id-1', 'id-2', 'id-3']);
    expect(await ids(occurredHoursSql([]))).toEqual([]);
  });
});
