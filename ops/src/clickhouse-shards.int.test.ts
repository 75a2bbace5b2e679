// ClickHouse cluster mode (CLICKHOUSE_CLUSTER) on two shards: two servers and a ZooKeeper of this test's
// own (ops/src/stack/clickhouse-cluster.ts, ports 28151+, 29051+, 29071+, 22192). The same events, a tenth
// of them delivered twice, go into the cluster (through its Distributed tables) and into single-server
// tables (the control, the local stack's server); after the hourly rollup on both, what the service reads
// must be equal: the dashboard, search totals, facets and histogram, and the daily report's figures. Then
// what changes rows in place works per shard: retention drops the expired days on every shard (a day only
// the second shard holds included: the first server's own system.parts does not list it, the control),
// a host's deletion reaches the shard that holds it, and a backup of the cluster's tables restores onto
// one server and onto a new cluster database with the same rows.
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { migrateClickhouse } from '@watchpost/core/migrate';
import { NO_TYPE_SETTINGS } from '@watchpost/core';
import { queryRows, sql, Sql } from '@watchpost/runtime';
import { dashboardSummary, deleteHost, eventFacets, eventHistogram, listEvents } from '@watchpost/api';
import { dailyFigures, dropExpiredEventPartitions } from '@watchpost/processors';
import { createTestStores, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import { correlate, fixtureEnvelope, insertEnvelopes, runHourlyRollup } from '@watchpost/testkit/api';
import type { EventEnvelope } from '@watchpost/schemas';
import { exportTable, importTable, listTables } from './backup/clickhouse.ts';
import { startTestCluster, type ClickhouseClusterNode } from './stack/clickhouse-cluster.ts';

const root = join(import.meta.dirname, '..', '..');
const NAME = 'wp_shards';
const db = `shards_${process.pid}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Cut to the second and half past an hour: the windows below never split a stored second.
const now = new Date(Math.floor(Date.now() / HOUR) * HOUR + 30 * 60_000);
const TYPES = [
  ['ssh.login.failed', 'warning'],
  ['ssh.login.success', 'info'],
  ['rdp.login.failed', 'warning'],
  ['agent.heartbeat', 'info'],
  ['privilege.sudo.command', 'high'],
  ['ssh.ip.banned', 'high'],
] as const;

/** Event i: one of 24 hosts, a user and an address, within the last 30 hours. */
function recentEvent(i: number): EventEnvelope {
  const [type, severity] = TYPES[i % TYPES.length]!;
  const e = fixtureEnvelope(
    { key: `R${i}`, host: 'alpha', type, severity, ago: ((i * 7_919) % 30) * HOUR + (i % 50) * 60_000 + 1000 },
    now,
  );
  e.event.host.hostname = `host-${i % 24}`;
  e.event.details = { user: `user${i % 7}`, source_ip: `10.0.${i % 5}.${i % 11}` };
  return e;
}

/** Expired events, 40 and 41 days old: day 40 on every host, day 41 only on hosts of `hosts`. */
function oldEvents(hosts: readonly string[]): EventEnvelope[] {
  const out: EventEnvelope[] = [];
  for (let i = 0; i < 48; i++) {
    const e = fixtureEnvelope({ key: `O${i}`, host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 40 * DAY }, now);
    e.event.host.hostname = `host-${i % 24}`;
    out.push(e);
  }
  for (const h of hosts) {
    const e = fixtureEnvelope({ key: `P${h}`, host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 41 * DAY }, now);
    e.event.host.hostname = h;
    out.push(e);
  }
  return out;
}

/** A count this test's own SQL asks for (names and values below are the test's, never input). */
const count = async (ch: ClickHouseClient, q: string) => Number((await queryRows<{ n: string }>(ch, new Sql(q)))[0]!.n);

describe('ClickHouse cluster on two shards', () => {
  let s: TestStores;
  let c1: ClickHouseClient;
  let c2: ClickHouseClient;
  const recent = Array.from({ length: 720 }, (_, i) => recentEvent(i));
  let shard2Hosts: string[] = [];
  let cluster: Awaited<ReturnType<typeof startTestCluster>>;
  let n1: ClickhouseClusterNode;

  beforeAll(async () => {
    // two shards of one replica, on ports of this test's own
    const shape = { name: NAME, shards: 2, replicas: 1, zkPort: 22192, httpPort: 28151, tcpPort: 29051, interserverPort: 29071 };
    cluster = await startTestCluster(root, shape);
    const n2 = cluster.nodes[1]!;
    n1 = cluster.nodes[0]!;
    await migrateClickhouse(n1.url, db, () => {}, NAME);
    c1 = createClient({ url: n1.url, database: db, request_timeout: 60_000 });
    c2 = createClient({ url: n2.url, database: db, request_timeout: 60_000 });
    s = await createTestStores(testConfig('chshards'), { kafka: false });
    // The same events into both, a tenth twice (a redelivery after a crash)
    const again = recent.filter((_, i) => i % 10 === 0);
    for (const ch of [c1, s.ch]) {
      await insertEnvelopes(ch, recent);
      await insertEnvelopes(ch, again);
    }
    await correlate(s.pg, recent);
    // Inserts into a Distributed table reach the shards in the background
    await waitFor(
      'the cluster to hold every event',
      () => count(c1, 'SELECT uniqExact(event_id) AS n FROM events'),
      (n) => n === recent.length,
      60_000,
    );
    const onShard2 = await queryRows<{ hostname: string }>(c2, sql`SELECT DISTINCT hostname FROM events_local ORDER BY hostname`);
    shard2Hosts = onShard2.map((r) => r.hostname);
    await new Promise((r) => setTimeout(r, 1100)); // the rollup below reads hours logged before its second
    await runHourlyRollup(c1, db, { overlapSeconds: 0, cluster: NAME });
    await runHourlyRollup(s.ch, s.config.clickhouseDatabase, { overlapSeconds: 0 });
  }, 240_000);

  afterAll(async () => {
    await c1?.close();
    await c2?.close();
    await s?.drop();
    await cluster?.stop();
  });

  it('spreads the hosts over both shards, each host on one', async () => {
    const onShard1 = (await queryRows<{ hostname: string }>(c1, sql`SELECT DISTINCT hostname FROM events_local`)).map(
      (r) => r.hostname,
    );
    expect(onShard1.length).toBeGreaterThan(0);
    expect(shard2Hosts.length).toBeGreaterThan(0);
    expect(onShard1.filter((h) => shard2Hosts.includes(h))).toEqual([]);
    expect(onShard1.length + shard2Hosts.length).toBe(24);
  });

  it('answers the dashboard, search, facets, histogram and daily report as one server does', async () => {
    const reads = async (ch: ClickHouseClient) => {
      const dash = await dashboardSummary(ch, s.pg, NO_TYPE_SETTINGS, { now, staleMinutes: 60 });
      const window = { from: new Date(now.getTime() - 30 * HOUR), toExclusive: now };
      const page = await listEvents(ch, s.pg, NO_TYPE_SETTINGS, window, 1, 50);
      const failed = await listEvents(ch, s.pg, NO_TYPE_SETTINGS, { ...window, typePrefix: 'ssh.login.failed' }, 2, 20);
      const byUser = await listEvents(ch, s.pg, NO_TYPE_SETTINGS, { ...window, user: 'user3' }, 1, 10);
      const text = await listEvents(ch, s.pg, NO_TYPE_SETTINGS, { ...window, text: 'R1' }, 1, 10);
      const report = await dailyFigures(ch, s.pg, { from: window.from, to: now, day: 'test', timezone: 'UTC' });
      return {
        events_24h: dash.events_24h,
        severity: dash.severity,
        top_hosts: dash.top_hosts,
        by_hour: dash.events_by_hour,
        heartbeats: dash.heartbeats,
        totals: [page.total, failed.total, byUser.total, text.total],
        pages: [page.items.map((e) => e.event_id), failed.items.map((e) => e.event_id)],
        facets: await eventFacets(ch, NO_TYPE_SETTINGS, window, 10),
        histogram: await eventHistogram(ch, NO_TYPE_SETTINGS, window),
        report,
      };
    };
    const single = await reads(s.ch);
    expect(single.totals[0]).toBe(recent.length); // the control itself counts every event once
    expect(await reads(c1)).toEqual(single);
  });

  it('drops the expired days on every shard, a day only shard 2 holds included', async () => {
    const old = oldEvents(shard2Hosts);
    await insertEnvelopes(c1, old);
    const day41 = (() => {
      const d = new Date(now.getTime() - 41 * DAY - 1000);
      return String(d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate());
    })();
    await waitFor(
      'the expired events on the shards',
      () => count(c1, 'SELECT count() AS n FROM events'),
      (n) => n >= recent.length + old.length,
      60_000,
    );
    // Control: the first server's own parts do not list the day only shard 2 holds (why retention reads
    // system.parts of every shard); the cluster's do.
    const parts = (q: string) => queryRows<{ partition: string }>(c1, new Sql(q)).then((r) => r.map((x) => x.partition));
    const local = `SELECT DISTINCT partition FROM system.parts WHERE database = '${db}' AND table = 'events_local' AND active`;
    expect(await parts(local)).not.toContain(day41);
    expect(await parts(local.replace('system.parts', `cluster('${NAME}', system, parts)`))).toContain(day41);

    const dropped = await dropExpiredEventPartitions(c1, db, 30, now, NAME);
    expect(dropped.events).toContain(day41);
    for (const ch of [c1, c2])
      expect(await count(ch, `SELECT count() AS n FROM events_local WHERE occurred_at < now() - INTERVAL 30 DAY`)).toBe(0);
    expect(await count(c1, 'SELECT uniqExact(event_id) AS n FROM events')).toBe(recent.length);
  });

  it('backs up the cluster and restores its rows onto one server and onto a new cluster database', async () => {
    const { tables, derived } = await listTables(c1, db);
    expect(tables.map((t) => t.name)).toContain('events');
    expect(tables.some((t) => t.name.endsWith('_local'))).toBe(false);
    expect(tables.find((t) => t.name === 'events')!.engine).toMatch(/^ReplicatedReplacingMergeTree/);
    const files = new Map<string, { data: Buffer; entry: Awaited<ReturnType<typeof exportTable>> }>();
    for (const t of tables) {
      const chunks: Buffer[] = [];
      const entry = await exportTable(c1, db, t, async (data: Readable) => {
        for await (const c of data) chunks.push(c as Buffer);
      });
      files.set(t.name, { data: Buffer.concat(chunks), entry });
    }
    expect(files.get('events')!.entry.rows).toBe(recent.length);

    const single = `${s.config.clickhouseDatabase}_restored`;
    const cluster = `${db}_restored`;
    await migrateClickhouse(s.config.clickhouseUrl, single);
    await migrateClickhouse(n1.url, cluster, () => {}, NAME);
    for (const [url, database] of [
      [s.config.clickhouseUrl, single],
      [n1.url, cluster],
    ] as const) {
      const ch = createClient({ url, database, request_timeout: 60_000 });
      try {
        for (const [name, f] of files) {
          const body = new PassThrough();
          body.end(f.data);
          await importTable(ch, database, name, { ...f.entry, file: name }, body);
        }
        for (const [name, f] of files)
          expect({ name, rows: await count(ch, `SELECT count() AS n FROM ${name}`) }).toEqual({ name, rows: f.entry.rows });
        for (const name of derived) expect(await count(ch, `SELECT count() AS n FROM ${name}`)).toBeGreaterThan(0);
        expect(await count(ch, 'SELECT uniqExact(event_id) AS n FROM events')).toBe(recent.length);
      } finally {
        await ch.close();
      }
    }
    const drop = createClient({ url: s.config.clickhouseUrl });
    await drop.command({ query: `DROP DATABASE IF EXISTS ${single}` }).finally(() => drop.close());
  });

  it("deletes a host's events on the shard that holds it", async () => {
    const host = shard2Hosts[0]!;
    const { rows } = await s.pg.query<{ id: number }>('SELECT id FROM hosts WHERE hostname = $1', [host]);
    expect(rows.length).toBe(1);
    const out = await deleteHost(s.pg, c1, rows[0]!.id, { database: db, cluster: NAME });
    expect(out?.hostname).toBe(host);
    const left = (ch: ClickHouseClient, table: string) =>
      count(ch, `SELECT count() AS n FROM ${table} WHERE hostname = '${host}'`);
    await waitFor(
      `the events of ${host} gone from shard 2`,
      async () => [await left(c2, 'events_local'), await left(c2, 'events_hourly_local'), await left(c2, 'events_by_id_local')],
      (n) => n.every((x) => x === 0),
      60_000,
    );
    expect(await left(c1, 'events')).toBe(0);
    // the other hosts keep theirs
    expect(await count(c1, 'SELECT uniqExact(hostname) AS n FROM events')).toBe(23);
  });
});
