// Retention without TTL (18.16 has none): whole daily partitions older than the cutoff are dropped.
import type { ClickHouseClient } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import { alterTarget, partsOfEveryShard, sql, storageTable } from '@watchpost/runtime';
import type { Logger } from '@watchpost/runtime';

/** YYYYMMDD (UTC) of the oldest day kept: today minus retentionDays. */
export function retentionCutoff(now: Date, retentionDays: number): number {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - retentionDays * 86_400_000);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}

/** Partition ids (toYYYYMMDD values) strictly older than the cutoff; anything unexpected is kept. */
export function partitionsToDrop(partitions: readonly string[], now: Date, retentionDays: number): string[] {
  const cutoff = retentionCutoff(now, retentionDays);
  return [...new Set(partitions)].filter((p) => /^\d{8}$/.test(p) && Number(p) < cutoff).sort();
}

export async function dropExpiredPartitions(
  ch: ClickHouseClient,
  database: string,
  retentionDays: number,
  now = new Date(),
  table = 'events',
  cluster = '',
): Promise<string[]> {
  // On a cluster (CLICKHOUSE_CLUSTER) the parts of every shard's <table>_local, dropped ON CLUSTER
  const rows = await queryRows<{ partition: string }>(
    ch,
    sql`SELECT DISTINCT partition FROM ${partsOfEveryShard(cluster)} WHERE database = ${database} AND table = ${storageTable(table, cluster)} AND active`,
  );
  const drop = partitionsToDrop(
    rows.map((r) => r.partition),
    now,
    retentionDays,
  );
  for (const p of drop) {
    // The partition id is 8 digits (checked above): a number literal, as the partition expression is.
    await ch.command({ query: sql`ALTER TABLE ${alterTarget(database, table, cluster)} DROP PARTITION ${Number(p)}`.text });
  }
  return drop;
}

/**
 * The sweep: the daily partitions of `events` and of its id lookup `events_by_id` (day of received_at)
 * and of its hourly rollups `events_hourly`, `events_hourly_values` and `events_host_names` (day of the
 * hour of occurred_at) before the same cutoff.
 */
export async function dropExpiredEventPartitions(
  ch: ClickHouseClient,
  database: string,
  retentionDays: number,
  now = new Date(),
  cluster = '',
): Promise<{ events: string[]; hourly: string[] }> {
  const drop = (table: string) => dropExpiredPartitions(ch, database, retentionDays, now, table, cluster);
  const events = await drop('events');
  await drop('events_by_id');
  await drop('events_host_names');
  const hourly = await drop('events_hourly');
  await drop('events_hourly_values');
  return { events, hourly };
}

/** Runs the retention sweep now and then every intervalMs; errors are logged and retried next round. */
export function startRetention(opts: {
  ch: ClickHouseClient;
  database: string;
  /** CLICKHOUSE_CLUSTER, '' for one server */
  cluster?: string;
  retentionDays: number;
  log: Logger;
  intervalMs?: number;
}): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = running.then(async () => {
      try {
        const dropped = await dropExpiredEventPartitions(opts.ch, opts.database, opts.retentionDays, new Date(), opts.cluster);
        if (dropped.events.length + dropped.hourly.length)
          opts.log.info({ ...dropped, retention_days: opts.retentionDays }, 'dropped expired event partitions');
      } catch (err) {
        opts.log.warn({ err }, 'retention sweep failed; retried next round');
      }
    });
  };
  sweep();
  const timer = setInterval(sweep, opts.intervalMs ?? 3_600_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
