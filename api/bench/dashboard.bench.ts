// npm run bench:dashboard — seeds BENCH_EVENTS (default 10,000,000) events over the last 24 h into a
// dedicated ClickHouse database (server-side INSERT ... SELECT FROM numbers(), the fastest way on
// 18.16; the change log of migration 0400 marks every seeded hour as changed), runs the exact hourly
// rollup once (what the scheduler role does every 30 s; seeding is the bench's job, so it waits until
// the seed insert is older than the rollup overlap and runs it itself), plus a realistic
// Postgres set (hosts, problems, one hidden type and one severity override), then measures
// GET /api/v1/dashboards/summary through the real app (inject, real auth) and prints p50/p95, next to
// baselines on the same table: a bare `SELECT count() FROM events` and the same figures computed from
// the raw table without the pre-aggregation. The default window is exact (the last 24 hours to the
// second), so its two partial edge hours are always read from `events`; an absolute 12-hour window cut
// mid-hour is timed too. Env: BENCH_EVENTS, BENCH_REQUESTS (50), BENCH_HOSTS (200),
// BENCH_KEEP=1 keeps the databases.
import { performance } from 'node:perf_hooks';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { createQueue, createRedis } from '@watchpost/runtime';
import { NOTIFICATIONS_QUEUE, type LoginRateLimitedJob } from '@watchpost/schemas';
import { createTestStores, testConfig, uniqueTestName } from '@watchpost/testkit';
import { ROLLUP_OVERLAP_SECONDS, runHourlyRollup } from '@watchpost/testkit/api';
import { createActionsQueue } from '@watchpost/api';
import { createUser } from '@watchpost/core';
import { seedBenchEvents, seedBenchPostgres } from './seed-dashboard.ts';
import { BENCH_USER, benchApiApp, benchLogin } from './bench-app.ts';

const N = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const HOSTS = Number(process.env.BENCH_HOSTS ?? 200);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function timeIt(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number; min: number }> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return { p50: percentile(t, 50), p95: percentile(t, 95), min: Math.min(...t) };
}
const ms = (x: { p50: number; p95: number }) => `p50 ${x.p50.toFixed(1)} ms  p95 ${x.p95.toFixed(1)} ms`;

const config = testConfig('bench_dashboard', { LOG_LEVEL: 'silent', SERVICE_HEARTBEAT_STALE_MINUTES: '10' });
const s = await createTestStores(config, { kafka: false });
const { ch, pg } = s;
const redis = createRedis(config.redisUrl);
const queueRedis = createRedis(config.redisUrl, { forBullmq: true });
const notifications = createQueue<LoginRateLimitedJob>(config, NOTIFICATIONS_QUEUE, queueRedis);
const actions = createActionsQueue(config, createRedis(config.redisUrl, { forBullmq: true }));

try {
  console.log(
    `ClickHouse ${(await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`))[0]!.v}, database ${config.clickhouseDatabase}`,
  );
  // ---- seed ClickHouse (api/bench/seed-dashboard.ts) ----
  const t0 = performance.now();
  const now = Math.floor(Date.now() / 1000);
  // In chunks of at most 2.5 M (each spread over the same 24 h): one 10 M INSERT can outlast the client's
  // 60 s request timeout on a busy machine.
  const CHUNK = 2_500_000;
  for (let done = 0; done < N; done += CHUNK) await seedBenchEvents(ch, Math.min(CHUNK, N - done), HOSTS, now);
  const seeded = await queryRows<{ n: string }>(ch, sql`SELECT count() AS n FROM events`);
  console.log(
    `seeded ${fmt(Number(seeded[0]!.n))} events over the last 24 h in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  // The change log stamps each inserted block when it is written: roll up once the last one is older
  // than the overlap, so that every hour is served from events_hourly (as in a running deployment).
  const waitMs = (ROLLUP_OVERLAP_SECONDS + 2) * 1000;
  if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
  const t1 = performance.now();
  const rollup = await runHourlyRollup(ch, config.clickhouseDatabase);
  const hourly = await queryRows<{ n: string }>(ch, sql`SELECT count() AS n FROM events_hourly`);
  console.log(
    `rollup: ${rollup.hours} hours recomputed in ${((performance.now() - t1) / 1000).toFixed(1)} s (events_hourly: ${fmt(Number(hourly[0]!.n))} rows)`,
  );

  // ---- seed Postgres: hosts (10 % stale), 5,000 problems over 7 days, settings ----
  await seedBenchPostgres(pg, HOSTS);
  console.log(`postgres: ${HOSTS} hosts, 5,000 problems, 1 hidden type, 1 severity override`);

  // ---- the real app ----
  const app = await benchApiApp({
    config,
    pg,
    redis,
    redisKeyPrefix: `${uniqueTestName('bench')}:`,
    clickhouse: ch,
    notifications,
    actions,
  });
  await createUser(pg, { ...BENCH_USER, role: 'monitor' });
  const token = await benchLogin(app);
  const summary = () =>
    app.inject({ method: 'GET', url: '/api/v1/dashboards/summary', headers: { authorization: `Bearer ${token}` } });

  const first = await summary();
  if (first.statusCode !== 200) throw new Error(`summary answered ${first.statusCode}: ${first.body}`);
  const body = first.json();
  console.log(
    `summary: events_24h ${fmt(body.events_24h)}, severity ${JSON.stringify(body.severity)}, hosts ${JSON.stringify(body.hosts)}, ` +
      `problems_24h ${JSON.stringify(body.problems_24h)}, daily_reports_24h ${body.daily_reports_24h}, heartbeats ${body.heartbeats.events_24h}`,
  );
  for (let i = 0; i < 5; i++) await summary(); // warm-up

  const bare = await timeIt(REQUESTS, () => queryRows(ch, sql`SELECT count() FROM events`));
  const timeSummary = () =>
    timeIt(REQUESTS, async () => {
      const r = await summary();
      if (r.statusCode !== 200) throw new Error(`summary answered ${r.statusCode}`);
    });
  const api = await timeSummary();
  // The events list on the same data (its total and page bound come from the same hourly rollup).
  const listTimes: [string, { p50: number; p95: number }][] = [];
  // ...and one event by id (looked up in events_by_id, then read from `events` by its key).
  const someId = (
    await queryRows<{ id: string }>(ch, sql`SELECT event_id AS id FROM events WHERE hostname = 'host-7' LIMIT 1`)
  )[0]!.id;
  for (const q of [
    '?page=1&page_size=50',
    '?hostname=host-5&page=1&page_size=50',
    '?severity=critical&type=ssh&page=20&page_size=50',
    `/${someId}`,
  ]) {
    const url = `/api/v1/events${q}`;
    const get = () => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const r = await get();
    if (r.statusCode !== 200) throw new Error(`events answered ${r.statusCode}: ${r.body}`);
    const total = (r.json() as { total?: number }).total;
    listTimes.push([total === undefined ? url : `${url} (total ${fmt(total)})`, await timeIt(Math.min(REQUESTS, 20), get)]);
  }
  // Live steady state: the store keeps inserting into the current hour, so it is pending (not rolled
  // up since) and the summary counts it from `events` (uniqExact over ~1/24 of the rows).
  await ch.command({
    query: sql`INSERT INTO events (event_id, occurred_at, received_at, hostname, type, severity)
      SELECT toString(generateUUIDv4()), now(), now(), concat('host-', toString(number % ${HOSTS})), 'agent.heartbeat', 'info'
      FROM numbers(100)`.text,
  });
  const pendingApi = await timeSummary();
  // An absolute window cut mid-hour at both ends (the dashboard's custom range / a past 12 hours).
  const wFrom = new Date((now - 20 * 3600 - 1234) * 1000).toISOString();
  const wTo = new Date((now - 8 * 3600 - 2345) * 1000).toISOString();
  const windowApi = await timeIt(REQUESTS, async () => {
    const r = await app.inject({
      method: 'GET',
      url: `/api/v1/dashboards/summary?from=${wFrom}&to=${wTo}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (r.statusCode !== 200) throw new Error(`summary answered ${r.statusCode}: ${r.body}`);
  });
  // The event figures straight from the raw table (what the summary would cost without the rollup).
  const from = new Date((now - 86_400) * 1000);
  const raw = await timeIt(Math.min(REQUESTS, 10), () =>
    Promise.all([
      queryRows(ch, sql`SELECT type, severity, count() FROM events WHERE occurred_at >= ${from} GROUP BY type, severity`),
      queryRows(
        ch,
        sql`SELECT hostname, count() AS c FROM events WHERE occurred_at >= ${from} GROUP BY hostname ORDER BY c DESC LIMIT 10`,
      ),
    ]),
  );

  console.log('');
  console.log(`GET /api/v1/dashboards/summary (${REQUESTS} requests, ${fmt(N)} events): ${ms(api)}  (target p95 <= 200 ms)`);
  console.log(`  same, current hour pending (read from events):                 ${ms(pendingApi)}`);
  console.log(`  ?from&to: 12 h window 20 h to 8 h ago, cut mid-hour:           ${ms(windowApi)}`);
  for (const [q, t] of listTimes) console.log(`GET ${q}: ${ms(t)}`);
  console.log(`baseline SELECT count() FROM events (${REQUESTS} queries):            ${ms(bare)}`);
  console.log(`raw-table aggregates without pre-aggregation (${Math.min(REQUESTS, 10)} runs):    ${ms(raw)}`);
  console.log(`ratio summary/baseline: p50 ${(api.p50 / bare.p50).toFixed(1)}x, p95 ${(api.p95 / bare.p95).toFixed(1)}x`);
  await app.close();
} finally {
  await notifications.obliterate({ force: true }).catch(() => {});
  await notifications.close();
  await actions.close();
  await queueRedis.quit(); // BullMQ leaves a connection it was given open
  await redis.quit();
  if (process.env.BENCH_KEEP === '1') console.log(`kept databases ${config.clickhouseDatabase}`);
  else await s.drop();
}
