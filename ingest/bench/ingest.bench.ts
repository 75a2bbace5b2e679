// `npm run bench:ingest`: the real ingest app (Kafka acks=all, Redis claims, Postgres key check,
// its own topic) against a bare fastify server with the same compiled schema, both loaded by
// autocannon with distinct ~1 KB events (a new event_id per request), then NDJSON batch ingest.
// Servers run in a child process each so the load generator does not share their event loop.
// Loopback only; bounded: 2 s warm-up + BENCH_SECONDS (default 10) per phase. Default settings, except
// the per-key rate limit (raised: the bench's one key carries every event).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Kafka, logLevel } from 'kafkajs';
import { createTestStores, testConfig } from '@watchpost/testkit';
import { createRedis } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import { benchEvent } from '@watchpost/testkit';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const BATCH_LINES = Number(process.env.BENCH_BATCH_LINES ?? 1000);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 8);

const config = testConfig('bench_ingest', { KAFKA_PARTITIONS: '4', SERVICE_INGEST_CLAIM_TTL_DAYS: '1', LOG_LEVEL: 'info' });
const prefix = config.topicPrefix;
const stores = await createTestStores(config);
const { key } = await createApiKey(stores.pg, 'bench');
const kafka = new Kafka({ clientId: 'bench', brokers: config.kafkaBrokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();

const eventJson = () => benchEvent().json;
const eventBytes = Buffer.byteLength(eventJson());

function serverEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: config.databaseUrl,
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_PARTITIONS: '4',
    SERVICE_INGEST_CLAIM_TTL_DAYS: '1',
    // One agent key sends everything here: its rate limit is raised out of the way, not turned off,
    // so the bucket is still checked and charged on every request.
    SERVICE_INGEST_RATE_PER_KEY: '10000000',
    SERVICE_INGEST_RATE_BURST: '10000000',
    SERVICE_STATE_DIR: config.stateDir,
  };
}

async function startServer(mode: 'bare' | 'ingest'): Promise<{ child: ChildProcess; url: string }> {
  const env = serverEnv();
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of each server process there.
  const prof = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', ...prof, fileURLToPath(new URL('./server.ts', import.meta.url)), mode],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const rl = createInterface({ input: child.stdout });
  const [line] = (await once(rl, 'line')) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stopServer(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** CPU seconds (user + system) a child has used so far, from /proc (Linux; 0 elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

async function topicTotal(): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(config.topics.events);
  return offsets.reduce((s, o) => s + Number(o.high), 0);
}

function load(url: string, path: string, seconds: number, connections: number, body: () => string): Promise<autocannon.Result> {
  return autocannon({
    url: url + path,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
}

interface Row {
  name: string;
  eventsPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
  /** Server CPU per event (µs): throughput-independent, so steadier than events/s on a shared machine. */
  cpuUsPerEvent: number;
}

async function phase(
  name: string,
  mode: 'bare' | 'ingest',
  path: string,
  connections: number,
  body: () => string,
  eventsPerRequest: number,
): Promise<Row> {
  const { child, url } = await startServer(mode);
  try {
    await load(url, path, 2, connections, body); // warm-up (JIT, connections, producer metadata)
    const before = await topicTotal();
    const cpuBefore = cpuSeconds(child.pid);
    const r = await load(url, path, SECONDS, connections, body);
    const cpu = cpuSeconds(child.pid) - cpuBefore;
    const produced = (await topicTotal()) - before;
    const ok = r['2xx'];
    // Events/s: what Kafka received for the real app (acknowledged appends), 2xx × events for bare.
    const events = mode === 'ingest' ? produced : ok * eventsPerRequest;
    return {
      name,
      eventsPerSec: events / SECONDS,
      p50: r.latency.p50,
      p99: r.latency.p99,
      ok,
      other: r.non2xx + r.errors + r.timeouts,
      cpuUsPerEvent: events > 0 ? (cpu * 1e6) / events : 0,
    };
  } finally {
    await stopServer(child);
  }
}

/** kafkajs alone (produce-only.ts): the same sink and envelopes, no HTTP, Redis or logging. */
async function produceOnly(name: string, perSend: number, inFlight: number): Promise<Row> {
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=TimeoutNegativeWarning',
      fileURLToPath(new URL('./produce-only.ts', import.meta.url)),
      String(perSend),
      String(inFlight),
      String(SECONDS),
    ],
    { env: serverEnv(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const rl = createInterface({ input: child.stdout });
  const exited = once(child, 'exit');
  const [line] = (await once(rl, 'line')) as [string];
  await exited;
  const r = JSON.parse(line) as { events: number; seconds: number; cpuSeconds: number };
  return {
    name,
    eventsPerSec: r.events / r.seconds,
    p50: NaN,
    p99: NaN,
    ok: 0,
    other: 0,
    cpuUsPerEvent: (r.cpuSeconds * 1e6) / r.events,
  };
}

function batchBody(): string {
  const lines: string[] = [];
  for (let i = 0; i < BATCH_LINES; i++) lines.push(eventJson());
  return lines.join('\n');
}

console.log(
  `bench:ingest — ${SECONDS} s per phase after 2 s warm-up, ${CONNECTIONS} connections, events of ${eventBytes} bytes, topic ${config.topics.events} (4 partitions, acks=all)`,
);
const rows: Row[] = [];
const ceilings: Row[] = [];
try {
  // BENCH_ONLY=bare|single|batch|ceiling runs one phase (profiling); the summary needs the first three.
  const only = process.env.BENCH_ONLY;
  if (!only || only === 'bare')
    rows.push(await phase('bare fastify + schema (no Kafka/Redis)', 'bare', '/api/v1/events', CONNECTIONS, eventJson, 1));
  if (!only || only === 'single')
    rows.push(await phase('ingest POST /api/v1/events', 'ingest', '/api/v1/events', CONNECTIONS, eventJson, 1));
  if (!only || only === 'batch') {
    rows.push(
      await phase(
        `ingest POST /api/v1/events/batch (${BATCH_LINES} lines)`,
        'ingest',
        '/api/v1/events/batch',
        BATCH_CONNECTIONS,
        batchBody,
        BATCH_LINES,
      ),
    );
  }
  if (!only || only === 'ceiling') {
    ceilings.push(await produceOnly('kafkajs alone, sends of 25 events x 8', 25, 8));
    ceilings.push(await produceOnly(`kafkajs alone, sends of ${BATCH_LINES} events x 8`, BATCH_LINES, 8));
  }
} finally {
  // Leave nothing behind: claims, topics, databases.
  const redis = createRedis(config.redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.topics.events}:claim:*`, 'COUNT', 10_000);
    if (keys.length) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
  await admin.deleteTopics({ topics: [config.topics.events, config.topics.deadLetter, config.topics.problems] }).catch(() => {});
  await admin.disconnect();
  await stores.drop();
}

const pad = (s: string, w: number) => s.padEnd(w);
console.log(
  `\n${pad('phase', 48)}${pad('events/s', 12)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('2xx', 10)}${pad('non-2xx/errors', 16)}server CPU µs/event`,
);
for (const r of rows)
  console.log(
    `${pad(r.name, 48)}${pad(Math.round(r.eventsPerSec).toString(), 12)}${pad(String(r.p50), 9)}${pad(String(r.p99), 9)}${pad(String(r.ok), 10)}${pad(String(r.other), 16)}${r.cpuUsPerEvent.toFixed(1)}`,
  );
if (ceilings.length) {
  console.log(`\nceiling: ingest's Kafka sink alone (${config.kafkaCompression}), no HTTP, Redis or logging`);
  for (const r of ceilings)
    console.log(`${pad(r.name, 48)}${pad(Math.round(r.eventsPerSec).toString(), 12)}CPU ${r.cpuUsPerEvent.toFixed(1)} µs/event`);
}
if (rows.length < 3) process.exit(0);
const [bare, single, batch] = rows as [Row, Row, Row];
const ratio = single.eventsPerSec / bare.eventsPerSec;
console.log(
  `\nratio ingest/bare: ${ratio.toFixed(2)} (server CPU per event: bare ${bare.cpuUsPerEvent.toFixed(1)} µs, ingest ${single.cpuUsPerEvent.toFixed(1)} µs = ${(single.cpuUsPerEvent / bare.cpuUsPerEvent).toFixed(2)}x)`,
);
const verdict = (ok: boolean) => (ok ? 'reached' : 'NOT reached');
console.log(
  `targets: single >= 20000/s ${verdict(single.eventsPerSec >= 20_000)}; p99 < 20 ms ${verdict(single.p99 < 20)}; ratio >= 0.6 ${verdict(ratio >= 0.6)}; batch >= 100000/s ${verdict(batch.eventsPerSec >= 100_000)}`,
);
