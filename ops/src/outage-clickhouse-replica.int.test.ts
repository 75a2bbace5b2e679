// ClickHouse cluster mode (CLICKHOUSE_CLUSTER): one shard, two replicas and a ZooKeeper of this test's
// own (ops/src/stack/clickhouse-cluster.ts, ports 28141+, 29041+, 29061+, 22191). The store's insert
// writes batches (a tenth of them delivered twice, as after a crash) through the Distributed `events`
// of replica 1 while replica 2 is killed with kill -9: no insert fails, every acknowledged event is
// stored once, and after replica 2 is back and replica 1 is killed -9 in turn, reads on replica 2
// answer every event once. Control: the same events in single-server tables (no CLICKHOUSE_CLUSTER)
// on replica 1 are gone for reads on replica 2 once replica 1 dies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { migrateClickhouse } from '@watchpost/core/migrate';
import { insertEventRows } from '@watchpost/processors';
import { waitFor } from '@watchpost/testkit';
import { startClusterNode, startTestCluster, type ClickhouseClusterNode } from './stack/clickhouse-cluster.ts';

const root = join(import.meta.dirname, '..', '..');
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let n1: ClickhouseClusterNode;
let n2: ClickhouseClusterNode;
const db = `outage_ch_${process.pid}`;
const control = `${db}_single`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function eventRow(id: string, i: number) {
  const now = Math.floor(Date.now() / 1000);
  return {
    event_id: id,
    occurred_at: now,
    received_at: now,
    agent_occurred_at: now,
    clock_skewed: 0,
    hostname: `host-${i % 50}`,
    display_name: `Host ${i % 50}`,
    os_family: 'windows',
    product: 'wp',
    product_version: '1',
    category: 'auth',
    type: 'logon_failed',
    severity: 'warning',
    title: 'Logon failed',
    summary: `attempt ${i}`,
    tags: [],
    dedup_key: '',
    correlation_id: '',
    fingerprint: '',
    actor_user: 'alice',
    source_ip: '10.0.0.1',
    agent_key_id: 0,
    event_json: '{}',
  };
}

function kill9(node: { dir: string }): void {
  process.kill(Number(readFileSync(join(node.dir, 'pid'), 'utf8')), 'SIGKILL');
}

/** [rows after collapsing (FINAL), distinct ids, how many of `ids` are among them]. */
/** Rows, distinct ids and how many of `ids` are stored, read through `table` (the Distributed events, or a replica's own events_local). */
async function stored(ch: ClickHouseClient, ids: string[], table = 'events'): Promise<[number, number, number]> {
  const rs = await ch.query({ query: `SELECT event_id FROM ${table} FINAL`, format: 'JSONEachRow' });
  const rows = ((await rs.json()) as { event_id: string }[]).map((r) => r.event_id);
  const distinct = new Set(rows);
  return [rows.length, distinct.size, ids.filter((id) => distinct.has(id)).length];
}

/** Writes batches through `ch` until stop(), retrying a failed batch as the store does; the acknowledged ids. */
function writeUnderLoad(ch: ClickHouseClient, prefix: string) {
  const acked: string[] = [];
  let failures = 0;
  let running = true;
  const done = (async () => {
    for (let b = 0; running; b++) {
      const rows = Array.from({ length: 200 }, (_, i) => eventRow(`${prefix}-${b}-${i}`, b * 200 + i));
      for (;;) {
        try {
          await insertEventRows(ch, rows);
          if (b % 10 === 0) await insertEventRows(ch, rows.slice(0, 50)); // a redelivery
          break;
        } catch {
          failures++;
          await sleep(200);
        }
      }
      acked.push(...rows.map((r) => r.event_id));
      await sleep(40);
    }
  })();
  return {
    acked,
    get failures() {
      return failures;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

describe('ClickHouse cluster: a replica killed -9 under load', () => {
  let a: ClickHouseClient;
  let b: ClickHouseClient;

  beforeAll(async () => {
    // one shard of two replicas, on ports of this test's own
    const shape = {
      name: 'wp_test',
      shards: 1,
      replicas: 2,
      zkPort: 22191,
      httpPort: 28141,
      tcpPort: 29041,
      interserverPort: 29061,
    };
    cluster = await startTestCluster(root, shape);
    [n1, n2] = cluster.nodes as [ClickhouseClusterNode, ClickhouseClusterNode];
    await migrateClickhouse(n1.url, db, () => {}, cluster.layout.name);
    await migrateClickhouse(n1.url, control); // the control: single-server tables on replica 1 only
    a = createClient({ url: n1.url, database: db, request_timeout: 30_000 });
    b = createClient({ url: n2.url, database: db, request_timeout: 30_000 });
  }, 180_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.stop();
  });

  it('loses no event and reads answer from the other replica', async () => {
    const load = writeUnderLoad(a, 'r');
    await sleep(2000);
    kill9(n2);
    await sleep(3000);
    // Replica 2 is dead: reads on replica 1 answer every event acknowledged so far, once.
    const during = [...load.acked];
    const [rowsDuring, idsDuring, knownDuring] = await stored(a, during);
    expect(knownDuring).toBe(during.length);
    expect(idsDuring).toBe(rowsDuring);
    await sleep(1000);
    await load.stop();
    expect(load.failures).toBe(0);
    expect(load.acked.length).toBeGreaterThan(3000);
    expect(await stored(a, load.acked)).toEqual([load.acked.length, load.acked.length, load.acked.length]);

    // Replica 2 back on its data; it fetches what it missed. Then replica 1 dies and replica 2 answers.
    startClusterNode(cluster.layout, n2, 1);
    // Replication is asynchronous: replica 2 has every acknowledged event once it fetched, from replica 1,
    // the parts it missed. The wait reads its own table (the Distributed one may answer from replica 1).
    const all = [load.acked.length, load.acked.length, load.acked.length];
    await waitFor(
      'replica 2 to catch up with replica 1',
      () => stored(b, load.acked, 'events_local').catch(() => [0, 0, 0] as [number, number, number]),
      (r) => r.every((v, i) => v === all[i]),
      60_000,
    );
    kill9(n1);
    await sleep(500);
    expect(await stored(b, load.acked)).toEqual([load.acked.length, load.acked.length, load.acked.length]);
  }, 180_000);

  it('control: single-server tables lose the events for reads once their server dies', async () => {
    // Replica 1 was killed above; restart it for the control's writes, then kill it again.
    startClusterNode(cluster.layout, n1, 1);
    const c1 = createClient({ url: n1.url, database: control, request_timeout: 30_000 });
    for (let i = 0; i < 60; i++) {
      try {
        await c1.query({ query: 'SELECT 1' });
        break;
      } catch {
        await sleep(500);
      }
    }
    const ids = Array.from({ length: 500 }, (_, i) => `c-${i}`);
    await insertEventRows(
      c1,
      ids.map((id, i) => eventRow(id, i)),
    );
    expect(await stored(c1, ids)).toEqual([500, 500, 500]);
    await c1.close();
    kill9(n1);
    const c2 = createClient({ url: n2.url, database: control, request_timeout: 30_000 });
    const onReplica2 = await stored(c2, ids).catch(() => [0, 0, 0] as [number, number, number]);
    await c2.close();
    // The check the cluster passed above fails here: replica 2 has none of them.
    expect(onReplica2[2]).toBeLessThan(ids.length);
  }, 120_000);
});
