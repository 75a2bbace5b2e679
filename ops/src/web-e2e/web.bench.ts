// npm run bench:web — the web UI's budgets, printed (not a timed test):
//   1. initial JavaScript (gzip) of the login and dashboard routes: the entry chunk, the route's chunk
//      and everything they import statically (lazy chunks such as the charts are not initial), from a
//      Vite build with its manifest;
//   2. time from submitting the login form to a rendered dashboard (figures and charts drawn) in Debian's
//      chromium, against the real API with BENCH_EVENTS (default 10,000,000) events in ClickHouse,
//      seeded by the dashboard bench's own code (api/bench/seed-dashboard.ts) and rolled up as the scheduler would.
// Env: BENCH_EVENTS, BENCH_HOSTS (200), BENCH_RUNS (5).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { queryRows, sql } from '@watchpost/runtime';
import { addUser, ROLLUP_OVERLAP_SECONDS, runHourlyRollup } from '@watchpost/testkit/api';
import { seedBenchEvents, seedBenchPostgres } from '../../../api/bench/seed-dashboard.ts';
import { launchChromium } from './chromium.ts';
import { startWebServer } from './server.ts';
import { DESKTOP } from './pages.ts';

const N = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const HOSTS = Number(process.env.BENCH_HOSTS ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const JS_TARGET_KB = 250;
const RENDER_TARGET_MS = 1500;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mark = (ok: boolean) => (ok ? 'reached' : 'NOT reached');

// ---- 1. initial JS per route ----
interface Chunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
}
const out = mkdtempSync(join(tmpdir(), 'web-bench-'));
const build = spawnSync('npx', ['vite', 'build', '--manifest', '--outDir', out, '--emptyOutDir'], {
  cwd: join(ROOT, 'web'),
  encoding: 'utf8',
});
if (build.status !== 0) throw new Error(`vite build failed: ${build.stderr}`);
const manifest = JSON.parse(readFileSync(join(out, '.vite/manifest.json'), 'utf8')) as Record<string, Chunk>;
const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
function closure(keys: string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (k: string) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const i of manifest[k]?.imports ?? []) walk(i);
  };
  keys.forEach(walk);
  return seen;
}
const gz = (file: string) => gzipSync(readFileSync(join(out, file)), { level: 9 }).length;
const jsSizes: [string, number][] = [];
for (const [route, view] of [
  ['login', 'src/views/LoginView.vue'],
  ['dashboard', 'src/views/DashboardView.vue'],
] as const) {
  const files = [...closure([entryKey, view])].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js'));
  jsSizes.push([route, files.reduce((a, f) => a + gz(f), 0)]);
}
rmSync(out, { recursive: true, force: true });

// ---- 2. time to a rendered dashboard with N events ----
const srv = await startWebServer('bench_web');
const browser = await launchChromium();
const times: number[] = [];
let events24h = '';
try {
  const { ch, pg } = srv.h.stores;
  const t0 = performance.now();
  await seedBenchEvents(ch, N, HOSTS, Math.floor(Date.now() / 1000));
  const seeded = await queryRows<{ n: string }>(ch, sql`SELECT count() AS n FROM events`);
  console.log(`seeded ${fmt(Number(seeded[0]!.n))} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await seedBenchPostgres(pg, HOSTS);
  // As the scheduler would have done meanwhile: roll the closed hours up once the inserts are older than the overlap.
  await new Promise((r) => setTimeout(r, (ROLLUP_OVERLAP_SECONDS + 2) * 1000));
  await runHourlyRollup(ch, srv.h.config.clickhouseDatabase);
  const user = await addUser(srv.h, 'bench', 'monitor', 'bench-password-123');
  for (let i = 0; i <= RUNS; i++) {
    const ctx = await browser.newContext({ viewport: DESKTOP });
    const page = await ctx.newPage();
    await page.goto(`${srv.url}/login`);
    await page.waitForSelector('#login-user');
    await page.fill('#login-user', user.username);
    await page.fill('#login-password', user.password);
    const start = performance.now();
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=kpi-events]');
    await page.waitForFunction(() => document.querySelectorAll('canvas').length >= 4);
    const ms = performance.now() - start;
    events24h = (await page.textContent('[data-testid=kpi-events]')) ?? '';
    if (i > 0) times.push(ms); // the first run warms ClickHouse's caches and the browser's
    await ctx.close();
  }
} finally {
  await browser.close();
  await srv.close();
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;

console.log('');
for (const [route, bytes] of jsSizes)
  console.log(
    `initial JS, ${route} route: ${(bytes / 1024).toFixed(1)} KB gzip (target <= ${JS_TARGET_KB} KB: ${mark(bytes / 1024 <= JS_TARGET_KB)})`,
  );
console.log(
  `login submit -> rendered dashboard (figures + 4 charts), ${fmt(N)} events (dashboard shows ${events24h} in 24 h), ${RUNS} runs: ` +
    `median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms ` +
    `(target <= ${RENDER_TARGET_MS} ms: ${mark(median <= RENDER_TARGET_MS)})`,
);
