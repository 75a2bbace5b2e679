// npm run bench:search — the events page's searches (issue 23) on BENCH_EVENTS (default 10,000,000)
// events over the last 7 days, on the stack's ClickHouse 18.16 and on a current engine (chDB,
// in-process). Seeded server-side (INSERT … SELECT FROM numbers()) with fleet-like distributions:
// BENCH_HOSTS hosts (default 500) with display names, ~2,000 users and ~20,000 source addresses
// (skewed: a few very common), types per OS, titles and summaries naming user, address and host. The
// hourly rollup is run once, as the scheduler would. Then each query kind is timed through the real
// app (inject, real auth): p50/p95 per kind and engine, target p95 <= 300 ms. Env: BENCH_EVENTS,
// BENCH_CHDB_EVENTS (default BENCH_EVENTS; 0 skips chDB), BENCH_REQUESTS (20), BENCH_HOSTS,
// BENCH_KEEP=1 keeps the 18.16 database.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  occurredRangeSql,
  queryRows,
  sql,
  createQueue,
  createRedis,
  type ClickHouseClient,
  type Pool,
  type Sql,
} from '@watchpost/runtime';
import { NOTIFICATIONS_QUEUE, type LoginRateLimitedJob } from '@watchpost/schemas';
import { createTestStores, testConfig } from '@watchpost/testkit';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { runHourlyRollup } from '@watchpost/testkit/api';
import { createActionsQueue } from '@watchpost/api';
import { createUser } from '@watchpost/core';
import { applyClickhouseMigrations } from '@watchpost/core/migrate';
import { BENCH_USER, benchApiApp, benchLogin } from './bench-app.ts';

const N = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const N_CHDB = Number(process.env.BENCH_CHDB_EVENTS ?? N);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const HOSTS = Number(process.env.BENCH_HOSTS ?? 500);
const TARGET_MS = 300;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** N events over the 7 days before `now` (unix seconds), in inserts of 1 M rows (each well within the client's timeout). */
async function seed(ch: ClickHouseClient, n: number, now: number): Promise<void> {
  for (let offset = 0; offset < n; offset += 1_000_000) await seedChunk(ch, n, now, offset, Math.min(1_000_000, n - offset));
}

async function seedChunk(ch: ClickHouseClient, n: number, now: number, offset: number, size: number): Promise<void> {
  const LINUX = Math.round(HOSTS * 0.7);
  // Skewed picks: x^3 of a uniform number puts most weight on the first values (a few hosts, users and
  // addresses account for most events, as in a fleet under password spraying).
  await ch.command({
    query: sql`INSERT INTO events (event_id, occurred_at, received_at, hostname, display_name, os_family, product,
        product_version, category, type, severity, actor_user, source_ip, title, summary, tags, dedup_key, correlation_id,
        fingerprint, event_json)
      SELECT
        toString(generateUUIDv4()) AS event_id,
        toDateTime(${now} - intDiv(number * ${7 * 86_400 - 1}, ${n}) - (intHash32(number) % 5)) AS occurred_at,
        occurred_at + 1 + (number % 3) AS received_at,
        concat('host-', toString(toUInt32(pow((cityHash64(number, 1) % 10000) / 10000, 2) * ${HOSTS}))) AS hostname,
        concat(if(toUInt32(substring(hostname, 6)) < ${LINUX}, 'Web Server ', 'Office PC '), substring(hostname, 6)) AS display_name,
        if(toUInt32(substring(hostname, 6)) < ${LINUX}, 'linux', 'windows') AS os_family,
        if(os_family = 'linux', 'ssh-monitor', 'rdp-login-monitor') AS product,
        '2.4.1' AS product_version,
        'auth' AS category,
        if(os_family = 'linux',
          arrayElement(['ssh.login.failed', 'ssh.login.failed', 'ssh.login.failed', 'ssh.login.success', 'agent.heartbeat',
            'agent.heartbeat', 'privilege.sudo.command', 'session.logind.new', 'ssh.ip.banned', 'agent.lifecycle'], intHash32(number) % 10 + 1),
          arrayElement(['rdp.login.failed', 'rdp.login.failed', 'rdp.login.success', 'agent.heartbeat', 'agent.heartbeat',
            'rdg.connection.success', 'rdg.connection.disconnected', 'rdg.connection.failed', 'agent.inventory'], intHash32(number) % 9 + 1)) AS type,
        multiIf(type IN ('ssh.login.failed', 'rdp.login.failed'), 'warning',
          type IN ('privilege.sudo.command', 'ssh.ip.banned', 'rdg.connection.failed'), 'high', 'info') AS severity,
        if(type = 'agent.heartbeat', '', concat('u', toString(toUInt32(pow((cityHash64(number, 2) % 10000) / 10000, 3) * 2000)))) AS actor_user,
        if(type IN ('agent.heartbeat', 'agent.inventory', 'agent.lifecycle'), '',
          concat('198.51.', toString(toUInt32(pow((cityHash64(number, 3) % 10000) / 10000, 3) * 20000) % 80), '.',
            toString(toUInt32(pow((cityHash64(number, 3) % 10000) / 10000, 3) * 20000) % 250))) AS source_ip,
        multiIf(type = 'agent.heartbeat', concat('Heartbeat from ', hostname),
          actor_user = '', concat(type, ' on ', display_name),
          concat(type, ' for ', actor_user, ' from ', source_ip)) AS title,
        concat('Event ', toString(number), ' on ', hostname, if(actor_user = '', '', concat(': account ', actor_user)),
          if(source_ip = '', '', concat(' from ', source_ip)), '. Session ', hex(intHash32(number))) AS summary,
        ['bench'] AS tags,
        '' AS dedup_key, '' AS correlation_id, '' AS fingerprint,
        concat('{"schema_version":"1.0","event_id":"', event_id, '","type":"', type, '"}') AS event_json
      FROM (SELECT number + ${offset} AS number FROM numbers(${size}))`.text,
  });
}

/** The query kinds: [name, URL of GET /api/v1/events…]. Ranges as the page sends them. */
function kinds(now: number): [string, string][] {
  const iso = (s: number) => encodeURIComponent(new Date((now - s) * 1000).toISOString());
  const d1 = `from=${iso(86_400)}`;
  const d7 = `from=${iso(7 * 86_400)}`;
  const page = 'page=1&page_size=50';
  return [
    ['time range 24 h (list)', `?${d1}&${page}`],
    ['time range 7 d (list)', `?${d7}&${page}`],
    ['free text 24 h (q=sudo)', `?q=sudo&${d1}&${page}`],
    ['free text 7 d (q=session 1a2b)', `?q=${encodeURIComponent('Session 1A2B')}&${d7}&${page}`],
    ['user 24 h (user=u1234)', `?user=u1234&${d1}&${page}`],
    ['user 7 d (user=u7)', `?user=u7&${d7}&${page}`],
    ['source address 24 h', `?source_ip=198.51.3.3&${d1}&${page}`],
    ['source address prefix 7 d', `?source_ip=${encodeURIComponent('198.51.77.*')}&${d7}&${page}`],
    ['hostname prefix 24 h (Office PC 4*)', `?hostname=${encodeURIComponent('Office PC 4*')}&${d1}&${page}`],
    ['hostname prefix 7 d (host-1*)', `?hostname=host-1*&${d7}&${page}`],
    ['facets 24 h', `/facets?${d1}`],
    ['facets 7 d', `/facets?${d7}`],
    ['facets 24 h + q', `/facets?q=failed&${d1}`],
    ['histogram 24 h', `/histogram?${d1}`],
    ['histogram 7 d', `/histogram?${d7}`],
    ['histogram 1 h + q', `/histogram?q=u12&from=${iso(3600)}`],
  ];
}

async function measure(engine: string, ch: ClickHouseClient, database: string, pg: Pool, n: number) {
  const v = (await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`))[0]!.v;
  const t0 = performance.now();
  const now = Math.floor(Date.now() / 1000);
  await seed(ch, n, now);
  const seeded = Number((await queryRows<{ n: string }>(ch, sql`SELECT count() AS n FROM events`))[0]!.n);
  console.log(
    `${engine} (ClickHouse ${v}): seeded ${fmt(seeded)} events over 7 days in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  // Roll up every seeded hour (the scheduler's job); no overlap needed, nothing is inserted meanwhile.
  await new Promise((r) => setTimeout(r, 2000));
  await runHourlyRollup(ch, database, { overlapSeconds: 0 });

  const redis = createRedis(config.redisUrl);
  const queueRedis = [createRedis(config.redisUrl, { forBullmq: true }), createRedis(config.redisUrl, { forBullmq: true })];
  const notifications = createQueue<LoginRateLimitedJob>(config, NOTIFICATIONS_QUEUE, queueRedis[0]!);
  const actions = createActionsQueue(config, queueRedis[1]!);
  const app = await benchApiApp({
    config,
    pg,
    redis,
    redisKeyPrefix: `bench-search-${engine}:`,
    clickhouse: ch,
    notifications,
    actions,
  });
  const out: { kind: string; p50: number; p95: number; result: string }[] = [];
  for (const [kind, q] of kinds(now)) {
    // A fresh token per kind: on a busy machine the whole run outlasts one.
    const token = await benchLogin(app);
    const get = () => app.inject({ method: 'GET', url: `/api/v1/events${q}`, headers: { authorization: `Bearer ${token}` } });
    const first = await get();
    if (first.statusCode !== 200) throw new Error(`${kind}: ${first.statusCode} ${first.body}`);
    const body = first.json();
    const result =
      'total' in body
        ? `${fmt(body.total)} events`
        : 'buckets' in body
          ? `${body.buckets.length} buckets of ${body.bucket_seconds} s`
          : `top host ${body.hostname[0]?.value ?? '-'} (${fmt(body.hostname[0]?.events ?? 0)})`;
    const t: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const s = performance.now();
      const r = await get();
      if (r.statusCode !== 200) throw new Error(`${kind}: ${r.statusCode}`);
      t.push(performance.now() - s);
    }
    out.push({ kind, p50: percentile(t, 50), p95: percentile(t, 95), result });
  }
  // The machine's own speed in the same run: a bare count over 7 days (reads occurred_at only), and
  // the floor of an exact free-text answer without an index: one count of the phrase's rows (every
  // row's search_text read once), which the API's free-text page cannot beat.
  const week = occurredRangeSql({ from: new Date((now - 7 * 86_400) * 1000) });
  const baselines: [string, Sql][] = [
    ['baseline: bare count() 7 d (ClickHouse)', sql`SELECT count() AS n FROM events WHERE ${week}`],
    [
      'baseline: text scan 7 d (ClickHouse)',
      sql`SELECT count() AS n FROM events WHERE ${week} AND position(search_text, lowerUTF8(${'Session 1A2B'})) > 0`,
    ],
  ];
  for (const [kind, query] of baselines) {
    const t: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const s = performance.now();
      await queryRows(ch, query);
      t.push(performance.now() - s);
    }
    out.push({ kind, p50: percentile(t, 50), p95: percentile(t, 95), result: '' });
  }
  await app.close();
  await notifications.close();
  await actions.close();
  for (const r of queueRedis) r.disconnect();
  await redis.quit();
  return out;
}

const config = testConfig('bench_search', { LOG_LEVEL: 'silent' });
const s = await createTestStores(config, { kafka: false });
let chdb: ClickHouseClient | null = null;
try {
  await createUser(s.pg, { ...BENCH_USER, role: 'monitor' });
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  results['18.16'] = await measure('18.16', s.ch, config.clickhouseDatabase, s.pg, N);
  if (N_CHDB > 0) {
    chdb = createChdbClient();
    await applyClickhouseMigrations(chdb);
    results.chDB = await measure('chDB', chdb, 'default', s.pg, N_CHDB);
  }
  console.log('');
  console.log(
    `GET /api/v1/events… (${REQUESTS} requests per kind; target p95 <= ${TARGET_MS} ms; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const engines = Object.keys(results);
  const head = ['query kind'.padEnd(36), ...engines.map((e) => `${e} p50/p95 ms`.padStart(22)), '  result (18.16)'];
  console.log(head.join(''));
  let misses = 0;
  for (const [i, r] of results['18.16']!.entries()) {
    const cells = engines.map((e) => {
      const x = results[e]![i]!;
      if (x.p95 > TARGET_MS && !r.kind.startsWith('baseline')) misses++;
      return `${x.p50.toFixed(0)} / ${x.p95.toFixed(0)}${x.p95 > TARGET_MS ? ' !' : '  '}`.padStart(22);
    });
    console.log([r.kind.padEnd(36), ...cells, `  ${r.result}`].join(''));
  }
  console.log(misses ? `${misses} kind(s) above the target (marked !)` : 'every kind within the target');
} finally {
  await chdb?.close();
  if (process.env.BENCH_KEEP === '1') console.log(`kept database ${config.clickhouseDatabase}`);
  else await s.drop();
}
// A script: once it has printed, no connection or timer a library still holds may keep it running.
process.exit(process.exitCode ?? 0);
