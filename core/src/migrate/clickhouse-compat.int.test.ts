// Every ClickHouse migration must run on Debian's 18.16 server (the local stack) and on a current
// engine (chDB 26.x), and the events table must accept and return a row the same way on both. The
// cluster form of every migration (CLICKHOUSE_CLUSTER) runs on 18.16 servers in ops' cluster tests;
// here the current engine's parser reads each of its statements (no Keeper here to run them).
import { afterAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse, queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { testConfig } from '@watchpost/testkit';
import { applyClickhouseMigrations, clickhouseMigrations, migrateClickhouse } from './clickhouse.ts';

const config = testConfig('chcompat');
const clients: ClickHouseClient[] = [];

afterAll(async () => {
  const server = createClickhouse(config.clickhouseUrl, 'default');
  await server.command({ query: `DROP DATABASE IF EXISTS ${config.clickhouseDatabase}` });
  await server.close();
  for (const c of clients) await c.close();
});

async function checkEngine(ch: ClickHouseClient, apply: () => Promise<string[]>): Promise<void> {
  const all = clickhouseMigrations().map((m) => m.name);
  expect(await apply()).toEqual(all);
  expect(await apply()).toEqual([]); // idempotent: recorded once
  await ch.insert({
    table: 'events',
    format: 'JSONEachRow',
    values: [
      {
        event_id: '2b1c1d8e-2f0c-4c44-9a43-5a2c6f1f0a01',
        occurred_at: '2026-11-21 10:00:00',
        received_at: '2026-11-21 10:00:01',
        hostname: "web-01'",
        type: 'ssh.login.failed',
        severity: 'warning',
        tags: ['a', 'b'],
        event_json: '{"x":1}',
      },
    ],
  });
  const rows = await queryRows<{ hostname: string; tags: string[]; n: string }>(
    ch,
    sql`SELECT hostname, tags, toString(uniqExact(event_id)) AS n FROM events FINAL WHERE type = ${'ssh.login.failed'} GROUP BY hostname, tags`,
  );
  expect(rows).toEqual([{ hostname: "web-01'", tags: ['a', 'b'], n: '1' }]);
}

describe('ClickHouse migrations', () => {
  it('apply on the 18.16 server', async () => {
    const ch = createClickhouse(config.clickhouseUrl, config.clickhouseDatabase);
    clients.push(ch);
    const version = await createClickhouse(config.clickhouseUrl, 'default')
      .query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })
      .then((r) => r.json<{ v: string }>());
    expect(version[0]!.v).toMatch(/^18\.16\./);
    await checkEngine(ch, () => migrateClickhouse(config.clickhouseUrl, config.clickhouseDatabase));
  });

  it('apply on a current engine (chDB)', async () => {
    const ch = createChdbClient();
    clients.push(ch);
    const version = await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`);
    expect(Number(version[0]!.v.split('.')[0])).toBeGreaterThanOrEqual(24);
    await checkEngine(ch, () => applyClickhouseMigrations(ch));
  });

  it('the cluster form of every statement parses on a current engine (chDB)', async () => {
    const ch = createChdbClient();
    clients.push(ch);
    const statements = clickhouseMigrations({ cluster: 'wp', database: 'watchpost' }).flatMap((m) =>
      m.statements.map((st) => ({ name: m.name, st })),
    );
    expect(statements.length).toBeGreaterThan(20);
    for (const { name, st } of statements) {
      // formatQuery parses without running: ON CLUSTER, the Replicated engines and Distributed included
      const [r] = await queryRows<{ f: string }>(ch, sql`SELECT formatQuery(${st}) AS f`);
      expect(r!.f.length, name).toBeGreaterThan(0);
    }
    // Control: a statement the current engine cannot read is refused by the same check
    await expect(queryRows(ch, sql`SELECT formatQuery(${'CREATE TABLE t ON CLUSTER (x'})`)).rejects.toThrow(/Syntax error/);
  });
});
