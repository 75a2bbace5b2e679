// ClickHouse tables out and in over the HTTP interface (runtime's client): TabSeparated round-trips every
// type the migrations use (escaped newlines keep one row per line, so rows are counted while streaming).
// 18.16 has no BACKUP statement.
import { Readable, Transform, pipeline as pipelineCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { ident, queryRows, sql, type ClickHouseClient } from '@watchpost/runtime';
import type { ClickhouseTableEntry } from './manifest.ts';

/** Engines whose merges collapse rows: exported with FINAL so a restored table keeps its count. */
const MERGING = /^(Replicated)?(Replacing|Collapsing|VersionedCollapsing|Summing|Aggregating)MergeTree/;

export interface ClickhouseTables {
  /** Tables holding data of their own. */
  tables: { name: string; engine: string }[];
  /** Targets of materialized views (filled when their source gets rows). */
  derived: string[];
}

/** `... TO db.table AS SELECT` or `TO table` in a view's CREATE statement. */
export function viewTarget(create: string): string | undefined {
  const m = /\bTO\s+(?:(?:`[^`]+`|[\w]+)\.)?(`[^`]+`|[\w]+)\s/i.exec(create);
  return m ? m[1]!.replace(/^`|`$/g, '') : undefined;
}

/**
 * On a cluster (CLICKHOUSE_CLUSTER, core/src/migrate/clickhouse-cluster.ts) each table `t` is a
 * Distributed table over every server's replicated `t_local`. A backup reads and a restore writes `t`
 * (every shard, each row once, one replica per shard), under the engine of `t_local`, and never names
 * `t_local`: a backup of a cluster restores onto one server and the reverse.
 */
function clusterPairs(rows: readonly { name: string; engine: string }[]) {
  const byName = new Map(rows.map((r) => [r.name, r.engine]));
  const local = (name: string) => (byName.get(name) === 'Distributed' ? byName.get(`${name}_local`) : undefined);
  const isLocal = (name: string) => name.endsWith('_local') && local(name.slice(0, -'_local'.length)) !== undefined;
  /** The name a backup uses for a table the server names `name`. */
  const readable = (name: string) => (isLocal(name) ? name.slice(0, -'_local'.length) : name);
  return { local, isLocal, readable };
}

export async function listTables(ch: ClickHouseClient, database: string): Promise<ClickhouseTables> {
  const rows = await queryRows<{ name: string; engine: string }>(
    ch,
    sql`SELECT name, engine FROM system.tables WHERE database = ${database} ORDER BY name`,
  );
  const pairs = clusterPairs(rows);
  const derived = new Set<string>();
  for (const r of rows) {
    if (r.engine !== 'MaterializedView') continue;
    const [stmt] = await queryRows<{ statement: string }>(ch, sql`SHOW CREATE TABLE ${ident(database)}.${ident(r.name)}`);
    const target = stmt && viewTarget(stmt.statement);
    if (target) derived.add(pairs.readable(target));
  }
  const tables = rows
    .filter(
      (r) =>
        !/View$/.test(r.engine) &&
        !r.name.startsWith('.inner.') && // a view's own storage: refilled by the view
        r.name !== 'schema_migrations' && // the target is migrated by this version; the list is in the manifest
        !pairs.isLocal(r.name) &&
        !derived.has(r.name),
    )
    .map((r) => ({ name: r.name, engine: pairs.local(r.name) ?? r.engine }));
  return { tables, derived: [...derived].sort() };
}

async function columnsOf(ch: ClickHouseClient, database: string, table: string) {
  const rows = await queryRows<{ name: string; type: string; default_type: string }>(
    ch,
    sql`DESCRIBE TABLE ${ident(database)}.${ident(table)}`,
  );
  return rows
    .filter((r) => r.default_type !== 'MATERIALIZED' && r.default_type !== 'ALIAS')
    .map((r) => ({ name: r.name, type: r.type }));
}

/** Counts '\n' (one per TabSeparated row) passing through. */
function lineCounter(): Transform & { lines: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      let n = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
      t.lines += n;
      cb(null, chunk);
    },
  }) as Transform & { lines: number };
  t.lines = 0;
  return t;
}

/** Streams a table out, gzipped, into `write` (the backup file, encrypted when the backup is). */
export async function exportTable(
  ch: ClickHouseClient,
  database: string,
  table: { name: string; engine: string },
  write: (data: Readable) => Promise<void>,
): Promise<Omit<ClickhouseTableEntry, 'file'>> {
  const columns = await columnsOf(ch, database, table.name);
  const final = MERGING.test(table.engine);
  const list = columns.map((c) => ident(c.name).text).join(', ');
  const query = `SELECT ${list} FROM ${ident(database).text}.${ident(table.name).text}${final ? ' FINAL' : ''} FORMAT TabSeparated`;
  const { stream } = await ch.exec({ query });
  const counter = lineCounter();
  await pipeline(stream as Readable, counter, createGzip(), (gz: AsyncIterable<Buffer>) =>
    write(Readable.from(gz, { objectMode: false })),
  );
  return { engine: table.engine, columns, rows: counter.lines, final };
}

/** Loads a table from `data` (the file's gzipped plaintext, decrypted as it is read). */
export async function importTable(
  ch: ClickHouseClient,
  database: string,
  name: string,
  entry: ClickhouseTableEntry,
  data: Readable,
) {
  const list = entry.columns.map((c) => ident(c.name).text).join(', ');
  const query = `INSERT INTO ${ident(database).text}.${ident(name).text} (${list}) FORMAT TabSeparated`;
  // An error while reading (a file cut short or altered fails its last chunk) destroys the body, so the
  // insert fails instead of waiting for more; that error is the one reported.
  let failed: Error | undefined;
  const body = pipelineCallback(data, createGunzip(), (err) => {
    if (err) failed = err;
  });
  try {
    // Through a Distributed table (a cluster): rows reach their shard before the answer, so the count after is exact
    const { stream } = await ch.exec({ query, values: body, clickhouse_settings: { insert_distributed_sync: 1 } });
    // The response body must be read for the insert to complete.
    for await (const _ of stream as Readable) void _;
  } catch (err) {
    throw failed ?? err;
  }
  if (failed) throw failed;
}

export async function countRows(ch: ClickHouseClient, database: string, table: string): Promise<number> {
  const [r] = await queryRows<{ n: string }>(ch, sql`SELECT toString(count()) AS n FROM ${ident(database)}.${ident(table)}`);
  return Number(r!.n);
}
