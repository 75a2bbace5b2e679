// The cluster form of the ClickHouse migrations (CLICKHOUSE_CLUSTER=<name>, a cluster of the servers'
// own <remote_servers>). The migration files stay written for one server; each statement is rewritten
// here by a small documented transformation, and a statement of a shape it does not know is refused,
// so a new migration either fits one of these shapes or extends this file (and its test):
//
// - CREATE TABLE IF NOT EXISTS t (...) ENGINE = XMergeTree(args) ...: the data lives in `t_local` on
//   every server, `ReplicatedXMergeTree('/clickhouse/tables/{shard}/<db>.t_local', '{replica}', args)`
//   (the {shard} and {replica} macros of each server's config), created ON CLUSTER; `t` becomes a
//   Distributed table over them (same columns, a MATERIALIZED one as an ALIAS: see distributedTable),
//   sharded by CLUSTER_SHARDING[t].
//   Every read and write of the service keeps naming `t` and so goes through the Distributed table.
// - CREATE MATERIALIZED VIEW IF NOT EXISTS v TO t AS SELECT ... FROM s: ON CLUSTER, on `s_local`,
//   writing `t_local`: each server's view sees the rows inserted into its own replica (a view fires on
//   the replica that took the insert; replication then copies both the rows and the view's output).
// - ALTER TABLE t ADD COLUMN ...: ON CLUSTER on `t_local`; the Distributed `t` is dropped and created
//   again with the new column (18.16 has no ALTER ON CLUSTER for it; it holds no data). Reads of `t`
//   fail for that moment of the migration, as they would while a server restarts.
// - INSERT INTO t (...) SELECT ... (a backfill): unchanged; it runs in the migrated database, reading
//   and writing the Distributed tables (the migration sends insert_distributed_sync=1).
//
// All names are qualified with the database: an ON CLUSTER statement runs on each server in that
// server's default database otherwise (18.16).

export interface ClickhouseClusterTarget {
  /** The cluster's name in the servers' <remote_servers>. */
  cluster: string;
  /** The database the migrations create their tables in. */
  database: string;
}

/**
 * The sharding key of each table's Distributed table: which shard a row lands on. ReplacingMergeTree
 * collapses the copies of an event (a redelivery) only within one shard, so every copy must land on the
 * same shard: events are sharded by `sipHash64(hostname)`: an event's hostname is part of the event and
 * never changes between deliveries (it is the Kafka key too), whereas `received_at` could differ and
 * `rand()` would scatter the copies. Sharding by host also keeps each host on one shard, so the tables
 * with a hostname (the id lookup, the hourly rollup, the host names) follow the same key and a host's
 * rows of every table sit together. `uniqExact(event_id)`, FINAL and LIMIT 1 BY event_id then stay
 * exact across shards (no id is on two shards; uniqExact merges its states exactly anyway).
 * Tables without a hostname: the value rollup by its hour (an hour's rows and its marker row together,
 * so a re-rolled-up hour replaces rows on one shard), the rollup's single state row by its id, and the
 * change log, which its view fills locally and only ever reads whole, at random.
 */
export const CLUSTER_SHARDING: Readonly<Record<string, string>> = {
  events: 'sipHash64(hostname)',
  events_by_id: 'sipHash64(hostname)',
  events_hourly: 'sipHash64(hostname)',
  events_host_names: 'sipHash64(hostname)',
  events_hourly_values: 'sipHash64(hour)',
  events_hourly_state: 'id',
  events_changed_hours: 'rand()',
};

/** Settings the migration sends with every statement on a cluster (a backfill writes through Distributed). */
export const CLUSTER_MIGRATION_SETTINGS = { insert_distributed_sync: 1 } as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkClusterTarget(t: ClickhouseClusterTarget): void {
  if (!NAME.test(t.cluster)) throw new Error(`CLICKHOUSE_CLUSTER: a plain name (letters, digits, _), got "${t.cluster}"`);
  if (!NAME.test(t.database))
    throw new Error(`CLICKHOUSE_DATABASE on a cluster: a plain name (letters, digits, _), got "${t.database}"`);
}

/** ZooKeeper path of a replicated table: one per shard, database and table. */
export function replicaPath(database: string, table: string): string {
  return `/clickhouse/tables/{shard}/${database}.${table}`;
}

function sharding(table: string): string {
  const key = CLUSTER_SHARDING[table];
  if (!key) throw new Error(`no sharding key for ClickHouse table "${table}": add it to CLUSTER_SHARDING`);
  return key;
}

function createTable(m: RegExpMatchArray, t: ClickhouseClusterTarget, schema: ClusterSchema): string[] {
  const [, table, columns, engine, args, rest] = m as unknown as [string, string, string, string, string | undefined, string];
  const { cluster, database: db } = t;
  const local = `${table}_local`;
  schema.set(table, splitColumns(columns));
  const replicated = [`'${replicaPath(db, local)}'`, `'{replica}'`, ...(args?.trim() ? [args.trim()] : [])].join(', ');
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.${local} ON CLUSTER ${cluster} (${columns}) ENGINE = Replicated${engine}(${replicated})${rest}`,
    distributedTable(table, t, schema),
  ];
}

function createView(m: RegExpMatchArray, t: ClickhouseClusterTarget): string[] {
  const [, view, target, select] = m as unknown as [string, string, string, string];
  sharding(target);
  const sources = [...select.matchAll(/\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((x) => x[1]!);
  if (sources.length !== 1) throw new Error(`materialized view ${view}: one FROM table expected, got ${sources.length}`);
  sharding(sources[0]!);
  const onLocal = select.replace(/\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)/, `FROM ${t.database}.$1_local`);
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${view} ON CLUSTER ${t.cluster} TO ${t.database}.${target}_local AS\n${onLocal}`,
  ];
}

/** Column definitions of each table as the migrations so far leave it (the renderer's memory). */
export type ClusterSchema = Map<string, string[]>;

/** Splits a column list on its top-level commas (types like Array(String) hold none of their own). */
function splitColumns(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of list) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

// The Distributed table lists the columns itself rather than `AS t_local`: a MATERIALIZED column of the
// local table is an ALIAS there. 18.16's Distributed table computes a MATERIALIZED column on insert and
// sends it on, which the local table refuses ("Cannot insert column search_text, because it is
// MATERIALIZED column"); an ALIAS is no column to insert, and a read of it runs on the shards.
function distributedTable(table: string, t: ClickhouseClusterTarget, schema: ClusterSchema): string {
  const local = `${table}_local`;
  const cols = schema.get(table);
  if (!cols) throw new Error(`ClickHouse table ${table} is altered before it is created`);
  const list = cols.map((c) => `  ${c.replace(/ MATERIALIZED /, ' ALIAS ')}`).join(',\n');
  return `CREATE TABLE IF NOT EXISTS ${t.database}.${table} ON CLUSTER ${t.cluster} (\n${list}\n)\nENGINE = Distributed(${t.cluster}, ${t.database}, ${local}, ${sharding(table)})`;
}

function addColumn(cols: string[], change: string): string[] {
  const m = /^ADD COLUMN ([\s\S]*?)(?: AFTER ([A-Za-z_][A-Za-z0-9_]*))?$/.exec(change.trim());
  if (!m) throw new Error(`ALTER: only ADD COLUMN has a cluster form, got: ${change}`);
  const def = m[1]!.trim();
  if (!m[2]) return [...cols, def];
  const at = cols.findIndex((c) => c.split(/\s/)[0] === m[2]);
  if (at < 0) throw new Error(`ALTER: no column ${m[2]} to add ${def} after`);
  return [...cols.slice(0, at + 1), def, ...cols.slice(at + 1)];
}

// 18.16 refuses ALTER ON CLUSTER on a table that is not replicated when the cluster's shards are
// ("Table events isn't replicated, but shard #1 is replicated"), so the Distributed table, which holds
// no data (writes through it are synchronous), is dropped and made again from the altered local table.
function alterTable(m: RegExpMatchArray, t: ClickhouseClusterTarget, schema: ClusterSchema): string[] {
  const [, table, change] = m as unknown as [string, string, string];
  schema.set(table, addColumn(schema.get(table) ?? [], change));
  return [
    `ALTER TABLE ${t.database}.${table}_local ON CLUSTER ${t.cluster} ${change}`,
    `DROP TABLE IF EXISTS ${t.database}.${table} ON CLUSTER ${t.cluster}`,
    distributedTable(table, t, schema),
  ];
}

const SHAPES: { re: RegExp; render: (m: RegExpMatchArray, t: ClickhouseClusterTarget, schema: ClusterSchema) => string[] }[] = [
  {
    re: /^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*) \(([\s\S]*)\) ENGINE = ((?:Replacing|Summing|Aggregating|Collapsing)?MergeTree)(?:\(([^)]*)\))?(\s[\s\S]*)$/,
    render: createTable,
  },
  {
    re: /^CREATE MATERIALIZED VIEW IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*) TO ([A-Za-z_][A-Za-z0-9_]*) AS\s+(SELECT[\s\S]*)$/,
    render: createView,
  },
  { re: /^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*) (ADD COLUMN [\s\S]*)$/, render: alterTable },
  { re: /^INSERT INTO ([A-Za-z_][A-Za-z0-9_]*) \([^)]*\)\s+SELECT [\s\S]*$/, render: (m) => [m[0]] },
];

/**
 * The statements that stand for one single-server migration statement on the cluster. `schema` carries
 * the tables' columns from statement to statement (render the migrations in order with one map).
 */
export function clusterStatements(statement: string, t: ClickhouseClusterTarget, schema: ClusterSchema = new Map()): string[] {
  checkClusterTarget(t);
  for (const shape of SHAPES) {
    const m = statement.match(shape.re);
    if (m) return shape.render(m, t, schema);
  }
  throw new Error(
    `no cluster form for this ClickHouse migration statement (core/src/migrate/clickhouse-cluster.ts):\n${statement}`,
  );
}

/**
 * The migration log on a cluster: one table every server holds in full (one ZooKeeper path for all
 * shards, each server a replica of it), so a migration run from any server sees what was applied.
 */
export function clusterMigrationsTable(t: ClickhouseClusterTarget): string {
  checkClusterTarget(t);
  return (
    `CREATE TABLE IF NOT EXISTS ${t.database}.schema_migrations ON CLUSTER ${t.cluster} (name String, applied_at DateTime) ` +
    `ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/${t.database}.schema_migrations', '{shard}-{replica}') ORDER BY name`
  );
}
