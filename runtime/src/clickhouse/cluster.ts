// Statements that change stored rows in place (a daily partition dropped, a host's rows deleted) cannot
// go through a Distributed table. With CLICKHOUSE_CLUSTER the data lives in each server's replicated
// `<table>_local` (core/src/migrate/clickhouse-cluster.ts), so they name that table ON CLUSTER: the
// statement reaches every shard through ZooKeeper's DDL queue, and on replicated tables the servers run
// it on one replica per shard, the replication log bringing it to the others (a replica that is down
// applies it when it is back). Without a cluster: the table itself, as before.
import { ident, sql, type Sql } from './sql.ts';

/** Where an ALTER (DROP PARTITION, DELETE) of `table` goes: `db.table`, or `db.table_local ON CLUSTER c`. */
export function alterTarget(database: string, table: string, cluster: string): Sql {
  if (!cluster) return sql`${ident(database)}.${ident(table)}`;
  return sql`${ident(database)}.${ident(`${table}_local`)} ON CLUSTER ${ident(cluster)}`;
}

/** The table a server's own parts of `table` are listed under in system.parts. */
export function storageTable(table: string, cluster: string): string {
  return cluster ? `${table}_local` : table;
}

/**
 * system.parts of every shard: a server lists only its own parts, and a shard may hold a day no other
 * shard has (sharded by host). `cluster()` reads one replica of each shard (replicas hold the same parts).
 */
export function partsOfEveryShard(cluster: string): Sql {
  return cluster ? sql`cluster(${cluster}, system, parts)` : sql`system.parts`;
}

/** system.mutations of every shard (a host's deletion runs on each shard's `<table>_local`). */
export function mutationsOfEveryShard(cluster: string): Sql {
  return cluster ? sql`cluster(${cluster}, system, mutations)` : sql`system.mutations`;
}
