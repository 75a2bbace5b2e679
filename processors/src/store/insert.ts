// The sink write: TabSeparated inserts. A throw (ClickHouse down, timeout) makes the batch consumer
// pause, back off and retry the same batch; repeats collapse in ReplacingMergeTree.
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@watchpost/runtime';
import { EVENT_COLUMNS, type EventRow } from './rows.ts';
import { rowsToTsv } from './tsv.ts';

async function insertTsv(ch: ClickHouseClient, chunks: Buffer[], table: string): Promise<void> {
  await ch.insert({
    table,
    values: Readable.from(chunks, { objectMode: false }),
    format: 'TabSeparated',
    columns: [...EVENT_COLUMNS],
  });
}

export async function insertEventRows(ch: ClickHouseClient, rows: readonly EventRow[], table = 'events'): Promise<void> {
  if (rows.length === 0) return;
  await insertTsv(ch, [rowsToTsv(rows)], table);
}

interface Waiting {
  tsv: Buffer;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Joins the batches of several partitions into one INSERT: at most `maxInFlight` inserts run at a
 * time, and every batch that arrives meanwhile goes into the next one together. ClickHouse pays per
 * insert (a new part per partition, later merged), so a few large inserts take far less of its CPU
 * than many small ones. Each caller's promise settles with the insert that carried its rows, so a
 * partition still commits only after its own rows were written, and a failure rejects (and makes
 * retry) every batch of that insert.
 */
export class CoalescingInserter {
  private readonly ch: ClickHouseClient;
  private readonly table: string;
  private readonly maxInFlight: number;
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(ch: ClickHouseClient, opts: { table?: string; maxInFlight?: number } = {}) {
    this.ch = ch;
    this.table = opts.table ?? 'events';
    this.maxInFlight = opts.maxInFlight ?? 2;
  }

  insert(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.insertTsv(rowsToTsv(rows));
  }

  /** Rows already encoded as TabSeparated (EVENT_COLUMNS order). */
  insertTsv(tsv: Buffer): Promise<void> {
    if (tsv.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ tsv, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const group = this.queue;
    this.queue = [];
    this.inFlight++;
    insertTsv(
      this.ch,
      group.map((w) => w.tsv),
      this.table,
    )
      .then(
        () => {
          for (const w of group) w.resolve();
        },
        (err: unknown) => {
          for (const w of group) w.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.next();
      });
  }
}
