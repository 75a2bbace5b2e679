import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { Sql } from '../clickhouse/sql.ts';

export type { ClickHouseClient };

export function createClickhouse(url: string, database: string): ClickHouseClient {
  return createClient({
    url,
    database,
    request_timeout: 60_000,
    max_open_connections: 16,
    compression: { request: false, response: false },
    clickhouse_settings: {},
  });
}

/** Runs a SELECT built with `sql` and returns its rows as objects. */
export async function queryRows<T>(ch: ClickHouseClient, q: Sql): Promise<T[]> {
  const rs = await ch.query({ query: q.text, format: 'JSONEachRow' });
  return rs.json<T>();
}

export async function execSql(ch: ClickHouseClient, q: Sql | string): Promise<void> {
  await ch.command({ query: typeof q === 'string' ? q : q.text });
}
