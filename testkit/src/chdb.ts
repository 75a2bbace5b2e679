// A current ClickHouse engine in-process (chDB, ClickHouse 26.x) behind @clickhouse/client, so the
// same migrations and queries are checked on the old 18.16 server and on a current one.
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

export function createChdbClient(): ClickHouseClient {
  return createClient({ connection: createChdbConnection({ path: ':memory:' }) } as Parameters<typeof createClient>[0]);
}
