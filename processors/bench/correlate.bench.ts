// npm run bench:correlate — fills a fresh topic with BENCH_EVENTS (default 1,000,000) events of the
// fleet mix (fleet.ts, seed 1), then times, in the same run:
//   1. the correlate role (a child process, as deployed) draining the topic into a fresh database,
//   2. the landed per-event correlator (per-event-correlator.ts, same consumer) on the first
//      BENCH_BASELINE_EVENTS (default 100,000) of the same events into another fresh database,
//   3. the physical floor: the same events' host rows (one upsert per host per batch) and the
//      timeline rows correlate wrote, with plain multi-row INSERTs and nothing else (no Kafka),
//   4. bench:ingest's single-event phase (BENCH_ONLY=single, BENCH_INGEST=0 skips it),
// and prints events/s, the targets, the correlate process's peak RSS and Postgres bytes per million events.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createKafka, repoRoot, type Config, type Pool } from '@watchpost/runtime';
import { encodeEnvelope } from '@watchpost/schemas';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { correlatePosition } from '@watchpost/testkit/correlate';
import { hostRowsOf, pgSafeEnvelope } from '../src/correlate/processor.ts';
import { fleetEvents } from './fleet.ts';

const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BASELINE = Math.min(N, Number(process.env.BENCH_BASELINE_EVENTS ?? 100_000));
const HOSTS = Number(process.env.BENCH_HOSTS ?? 800);
const PARTITIONS = 4;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 900) * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mark = (ok: boolean) => (ok ? 'REACHED' : 'NOT reached');

const env = { KAFKA_PARTITIONS: String(PARTITIONS), LOG_LEVEL: 'warn', SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: '60' };
const main = await createTestStores(testConfig('bench_correlate', env));
const baseline = await createTestStores(testConfig('bench_correlate_pe', env), { kafka: false });
const floor = await createTestStores(testConfig('bench_correlate_floor', env), { kafka: false });
const { config } = main;
const children = new Set<ChildProcess>();

async function dbBytes(pool: Pool): Promise<number> {
  return Number((await pool.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0]!.n);
}

/** Starts correlate-drain.ts against `db` (a test database) and waits for its "ready". */
async function startDrain(mode: 'set' | 'per-event', db: Config): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=TimeoutNegativeWarning',
      // BENCH_PROFILE=<dir> writes a V8 CPU profile of each correlator process there.
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      fileURLToPath(new URL('./correlate-drain.ts', import.meta.url)),
      mode,
    ],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: db.databaseUrl,
        KAFKA_TOPIC_PREFIX: config.topicPrefix,
        KAFKA_PARTITIONS: String(PARTITIONS),
        SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: '60',
        LOG_LEVEL: 'warn',
        PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  if (line !== 'ready') throw new Error(`drain child said ${line}`);
  return child;
}

const peakRssMiB = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** Polls `progress` until it reaches `target`; returns seconds from the first progress and from the start. */
async function timeUntil(progress: () => Promise<number>, target: number, started: number) {
  let first = 0;
  for (;;) {
    const n = await progress();
    if (n > 0 && first === 0) first = Date.now();
    if (n >= target) break;
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`timeout at ${n} of ${target}`);
    await sleep(100);
  }
  const end = Date.now();
  return { fromStart: (end - started) / 1000, fromFirst: (end - first) / 1000 };
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  await Promise.race([once(child, 'exit'), sleep(20_000)]);
  child.kill('SIGKILL');
}

try {
  // ---- fill ---------------------------------------------------------------------------------------
  const producer = createKafka(config.kafkaBrokers, 'bench-correlate').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const t0 = Date.now();
  let bytes = 0;
  let chunk: { key: string; value: Buffer }[] = [];
  const sends: Promise<unknown>[] = [];
  const flush = async () => {
    sends.push(producer.send({ topic: config.topics.events, acks: -1, messages: chunk }));
    chunk = [];
    if (sends.length >= 8) await Promise.all(sends.splice(0));
  };
  for (const e of fleetEvents(N, 1, HOSTS)) {
    const value = encodeEnvelope(e);
    bytes += value.length;
    chunk.push({ key: e.event.host.hostname, value });
    if (chunk.length === 1000) await flush();
  }
  if (chunk.length) await flush();
  await Promise.all(sends);
  await producer.disconnect();
  console.log(
    `bench:correlate  ${fmt(N)} events of the fleet mix (processors/bench/fleet.ts, seed 1, ${HOSTS} hosts), envelope ${Math.round(bytes / N)} B avg, ${PARTITIONS} partitions; filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(
    `correlate batch: ${config.correlate.batchSize} events / ${config.correlate.batchMs} ms (CORRELATE_BATCH_SIZE/_MS)`,
  );

  // ---- 1. the correlate role ----------------------------------------------------------------------
  const emptyBytes = await dbBytes(main.pg);
  let started = Date.now();
  let child = await startDrain('set', main.config);
  const set = await timeUntil(() => correlatePosition(main.pg), N, started);
  const setRss = peakRssMiB(child.pid!);
  await stop(child);
  const setRate = N / set.fromFirst;
  const grown = (await dbBytes(main.pg)) - emptyBytes;
  const tables = (
    await main.pg.query<{ t: string; rows: string; bytes: string }>(
      `SELECT c.relname AS t, c.reltuples::bigint::text AS rows, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class c
        WHERE c.relname IN ('hosts','problems','problem_events','rdg_sessions','rdg_flap_events','problem_outbox','consumer_offsets','processed_events')`,
    )
  ).rows;
  const counts = (
    await main.pg.query<{ t: string; n: number }>(
      `SELECT 'hosts' AS t, count(*)::int AS n FROM hosts UNION ALL SELECT 'problems', count(*)::int FROM problems
       UNION ALL SELECT 'problem_events', count(*)::int FROM problem_events UNION ALL SELECT 'rdg_flap_events', count(*)::int FROM rdg_flap_events
       UNION ALL SELECT 'problem_outbox', count(*)::int FROM problem_outbox UNION ALL SELECT 'processed_events', count(*)::int FROM processed_events`,
    )
  ).rows;

  // ---- 2. the per-event correlator on the first BASELINE events ----------------------------------
  const ledger = async () =>
    Number((await baseline.pg.query<{ n: string }>('SELECT count(*)::text AS n FROM processed_events')).rows[0]!.n);
  started = Date.now();
  child = await startDrain('per-event', baseline.config);
  // The ledger counts distinct events; the fleet mix has no repeats, so it counts messages.
  const pe = await timeUntil(ledger, BASELINE, started);
  await stop(child);
  const peRate = BASELINE / pe.fromFirst;

  // ---- 3. the physical floor -----------------------------------------------------------------------
  await floor.pg.query('CREATE TABLE floor_timeline (LIKE problem_events INCLUDING ALL)');
  const timeline = (
    await main.pg.query<Record<string, unknown>>(
      'SELECT problem_id, event_id, occurred_at, received_at, type, severity, title FROM problem_events ORDER BY received_at',
    )
  ).rows;
  const batches = Math.ceil(N / config.correlate.batchSize);
  const perBatch = Math.ceil(timeline.length / batches);
  const partitionOf = (host: string) => {
    let h = 0;
    for (let k = 0; k < host.length; k++) h = (h * 31 + host.charCodeAt(k)) >>> 0;
    return h % PARTITIONS;
  };
  const pending: ReturnType<typeof pgSafeEnvelope>[][] = Array.from({ length: PARTITIONS }, () => []);
  let tl = 0;
  let floorSeconds = 0;
  const writeFloor = async (batch: ReturnType<typeof pgSafeEnvelope>[]) => {
    const rows = JSON.stringify(hostRowsOf(batch));
    const tRows = JSON.stringify(timeline.slice(tl, tl + perBatch));
    tl += perBatch;
    const t = performance.now();
    await floor.pg.query(
      `INSERT INTO hosts (hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
         agent_instance_id, first_seen, last_seen, last_heartbeat, status, status_changed_at, internal_address)
       SELECT hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
         agent_instance_id, first_seen, last_seen, last_heartbeat, 'online', first_seen, ipv4
         FROM json_to_recordset($1::json) AS t(hostname text, display_name text, os_family text, os_version text, fqdn text,
           ipv4 text, ipv6 text, timezone text, product text, product_version text, agent_instance_id text,
           first_seen timestamptz, last_seen timestamptz, last_heartbeat timestamptz)
       ON CONFLICT (hostname) DO UPDATE SET last_seen = EXCLUDED.last_seen, last_heartbeat = EXCLUDED.last_heartbeat`,
      [rows],
    );
    await floor.pg.query(`INSERT INTO floor_timeline SELECT * FROM json_populate_recordset(NULL::floor_timeline, $1::json)`, [
      tRows,
    ]);
    floorSeconds += (performance.now() - t) / 1000;
  };
  for (const e of fleetEvents(N, 1, HOSTS)) {
    const p = pending[partitionOf(e.event.host.hostname)]!;
    p.push(pgSafeEnvelope(e));
    if (p.length === config.correlate.batchSize) await writeFloor(p.splice(0));
  }
  for (const p of pending) if (p.length) await writeFloor(p);
  const floorRate = N / floorSeconds;

  // ---- 4. ingest, single events --------------------------------------------------------------------
  let ingestRate = NaN;
  if (process.env.BENCH_INGEST !== '0') {
    const ing = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', 'ingest/bench/ingest.bench.ts'], {
      cwd: repoRoot,
      env: { ...process.env, BENCH_ONLY: 'single' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.add(ing);
    let out = '';
    ing.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await once(ing, 'exit');
    const m = /^ingest POST \/api\/v1\/events\s+(\d+)/m.exec(out);
    if (m) ingestRate = Number(m[1]);
    console.log(`\n--- bench:ingest (BENCH_ONLY=single), same run ---\n${out.trim()}\n---`);
  }

  // ---- report --------------------------------------------------------------------------------------
  console.log(`\n${'phase'.padEnd(58)}${'events'.padStart(11)}${'seconds'.padStart(10)}${'events/s'.padStart(11)}`);
  const row = (name: string, n: number, s: number) =>
    console.log(`${name.padEnd(58)}${fmt(n).padStart(11)}${s.toFixed(1).padStart(10)}${fmt(n / s).padStart(11)}`);
  row('correlate role (set-based), first batch to last', N, set.fromFirst);
  row('correlate role, from process start (incl. start-up)', N, set.fromStart);
  row(`per-event correlator (landed), first ${fmt(BASELINE)} events`, BASELINE, pe.fromFirst);
  row('physical floor: host upserts + timeline INSERTs only', N, floorSeconds);
  if (Number.isFinite(ingestRate))
    console.log(
      `${'bench:ingest single events (autocannon, 64 conn.)'.padEnd(58)}${''.padStart(21)}${fmt(ingestRate).padStart(11)}`,
    );
  console.log(`\ncorrelate process peak RSS (VmHWM): ${setRss.toFixed(0)} MiB`);
  console.log(
    `Postgres growth: ${fmt(grown)} bytes for ${fmt(N)} events = ${fmt((grown / N) * 1e6)} bytes per million events (pg_database_size)`,
  );
  for (const c of counts) {
    const t = tables.find((x) => x.t === c.t);
    console.log(
      `  ${c.t.padEnd(18)} ${fmt(c.n).padStart(9)} rows  ${fmt(Number(t?.bytes ?? 0)).padStart(13)} bytes with indexes`,
    );
  }
  console.log('\ntargets');
  console.log(`  >= 20,000 events/s over the whole drain: ${fmt(setRate)}  ${mark(setRate >= 20_000)}`);
  console.log(`  >= 5x the per-event correlator: ${(setRate / peRate).toFixed(1)}x  ${mark(setRate / peRate >= 5)}`);
  if (Number.isFinite(ingestRate))
    console.log(`  >= 1.0x single-event ingest: ${(setRate / ingestRate).toFixed(2)}x  ${mark(setRate >= ingestRate)}`);
  else console.log('  >= 1.0x single-event ingest: not measured (BENCH_INGEST=0)');
  console.log(`  vs the physical floor: ${(setRate / floorRate).toFixed(2)}x of its rate`);
} finally {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all([main, baseline, floor].map((s: TestStores) => s.drop()));
}
