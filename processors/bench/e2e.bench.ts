// npm run bench:e2e — end-to-end latency from an agent's 201 to the problem being readable through the
// API, with the service as it is deployed for load: roles ingest, store, correlate and api, each its
// own process (`node ops/src/start.ts <role>`), on a fresh stack namespace.
//
// Load generator: wrk (Debian package `wrk`, apt-get install wrk) with a Lua script that posts single
// events of the fleet mix (75 % heartbeats, logins, failed logins, sudo, bans, daily reports over 800
// hosts), each with its own event_id. Phases: (0) capacity: wrk closed loop, BENCH_CONNECTIONS (64)
// connections, 10 s; (1) half of that rate for BENCH_SECONDS (60); (2) the full rate for as long. A
// fixed rate is wrk's per-connection delay() (rate = connections x 1000 / (delay + latency) ms), set
// from the target and corrected once by a 5 s calibration run; the achieved rate is printed beside it. During each phase probes (5/s, from this Node process) post an event
// that opens a problem of its own (type e2e.probe, severity high, one host per probe); a poller reads
// GET /api/v1/problems?type=e2e.probe every 25 ms, and the latency of a probe is from its 201 to the
// first list that shows its problem. After each phase: seconds until correlate's stored positions reach
// the end of events.v1 (lag 0). Targets: p99 <= 1 s at half load; lag 0 within 10 s after the full load.
// Notifications: roles notify and deliver run too (policy: webhook, minimum high); a webhook receiver in
// this process records when each probe's event notification arrives (201 -> webhook received), so the
// same probes give the ingest -> webhook delivered latency (issue: p99 <= 1 s at half load). The fleet
// mix's high events (sudo, 2.5 %) are notified too, at NOTIFY_WEBHOOK_RATE_PER_SECOND (bench: 5000).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, repoRoot } from '@watchpost/runtime';
import { createTestStores, freePort, testConfig } from '@watchpost/testkit';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const PROBES_PER_S = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mark = (ok: boolean) => (ok ? 'REACHED' : 'NOT reached');

if (spawnSync('wrk', ['--version']).error) {
  console.error('bench:e2e needs wrk (Debian: apt-get install wrk)');
  process.exit(2);
}

const stores = await createTestStores(testConfig('bench_e2e', { KAFKA_PARTITIONS: '4' }));
const { config } = stores;
const KEY = `wpk_${randomBytes(32).toString('base64url')}`;
const PASSWORD = `E2e-${randomBytes(18).toString('base64url')}`;
const port = await freePort();
const apiPort = await freePort();
const base = `http://127.0.0.1:${port}`;
const api = `http://127.0.0.1:${apiPort}`;
const services: ChildProcess[] = [];

// The webhook receiver: first arrival of each probe host's event notification.
const hooked = new Map<string, number>();
const hookServer = createHttpServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    try {
      const b = JSON.parse(Buffer.concat(chunks).toString()) as { subject?: { kind?: string; hostname?: string } };
      const h = b.subject?.kind === 'event' ? b.subject.hostname : undefined;
      if (h?.startsWith('probe-') && !hooked.has(h)) hooked.set(h, now);
    } catch {
      // not ours
    }
    res.end('ok');
  });
});
await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(hookServer.address() as { port: number }).port}/hook`;

const lua = join(tmpdir(), `watchpost-e2e-${process.pid}.lua`);
writeFileSync(
  lua,
  `-- distinct fleet-mix events; args: delay_ms phase
local counter = 0
local types = {
  {75, "agent.heartbeat", "info", "agent"}, {83, "ssh.login.success", "info", "auth"},
  {88, "ssh.login.failed", "warning", "auth"}, {90.5, "privilege.sudo.command", "high", "privilege"},
  {92.5, "ssh.ip.banned", "warning", "network"}, {100, "report.daily.ssh", "info", "report"},
}
function setup(thread) thread:set("tid", tostring(math.random(1, 65535))) end
function init(args)
  delay_ms = tonumber(args[1]) or 0
  phase = tonumber(args[2]) or 0
  math.randomseed(tonumber(tid) * 7919 + phase)
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-api-key"] = "${KEY}"
function request()
  counter = counter + 1
  local id = string.format("%08x-%04x-4000-8000-%012x", tonumber(tid), phase, counter)
  local h = math.random(0, 799)
  local r = math.random() * 100
  local t = types[#types]
  for _, x in ipairs(types) do if r < x[1] then t = x; break end end
  local body = string.format('{"schema_version":"1.0","event_id":"%s","occurred_at":"2025-03-01T00:00:00Z",' ..
    '"source":{"product":"ssh-monitor","product_version":"2.4.1","agent_instance_id":"agent-%04d"},' ..
    '"host":{"hostname":"fleet-%04d","os_family":"linux","ipv4":"10.0.%d.%d"},"category":"%s","type":"%s","severity":"%s",' ..
    '"title":"%s on fleet-%04d","summary":"Accepted publickey for deploy from 198.51.100.23 port 51234 ssh2"}',
    id, h, h, math.floor(h / 256), h % 256, t[4], t[2], t[3], t[2], h)
  return wrk.format(nil, "/api/v1/events", nil, body)
end
function delay() return delay_ms end
`,
);

interface WrkResult {
  rps: number;
  non2xx: number;
  text: string;
}
function runWrk(seconds: number, delayMs: number, phase: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const w = spawn('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', lua, base, '--', String(delayMs), String(phase)]);
    let text = '';
    w.stdout.on('data', (d: Buffer) => (text += d.toString()));
    w.stderr.on('data', (d: Buffer) => (text += d.toString()));
    w.on('error', reject);
    w.on('exit', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
      resolve({ rps, non2xx, text });
    });
  });
}

async function stalledEvents(): Promise<number> {
  const admin = createKafka(config.kafkaBrokers, 'bench-e2e').admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(config.topics.events);
    const r = await stores.pg.query<{ partition: number; n: string }>(
      'SELECT partition, next_offset::text AS n FROM consumer_offsets WHERE consumer_group = $1',
      [config.consumerGroups.correlate],
    );
    const done = new Map(r.rows.map((x) => [x.partition, Number(x.n)]));
    return ends.reduce((s, p) => s + Math.max(0, Number(p.high) - (done.get(p.partition) ?? 0)), 0);
  } finally {
    await admin.disconnect();
  }
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : NaN;
};

async function phase(name: string, phaseNo: number, rate: number | null, token: string) {
  let delayMs = rate ? Math.max(1, Math.round((CONNECTIONS * 1000) / rate)) : 0;
  if (rate) {
    // wrk has no fixed-rate mode: the delay comes on top of each request's latency, so calibrate once.
    const probe = await runWrk(5, delayMs, 100 + phaseNo);
    const latencyMs = probe.rps > 0 ? (CONNECTIONS * 1000) / probe.rps - delayMs : 0; // cycle = delay + latency
    delayMs = Math.max(1, Math.round((CONNECTIONS * 1000) / rate - Math.max(0, latencyMs)));
  }
  const seconds = rate ? SECONDS : 10;
  const sent = new Map<string, number>();
  const seen = new Map<string, number>();
  let stop = false;
  const probes = (async () => {
    for (let n = 0; !stop; n++) {
      const t = Date.now();
      const host = `probe-${phaseNo}-${n}`;
      const body = JSON.stringify({
        schema_version: '1.0',
        event_id: randomUUID(),
        occurred_at: new Date().toISOString(),
        source: { product: 'ssh-monitor', product_version: '2.4.1' },
        host: { hostname: host, os_family: 'linux' },
        category: 'auth',
        type: 'e2e.probe',
        severity: 'high',
        title: `probe ${n}`,
        summary: 'end-to-end probe',
      });
      const r = await fetch(`${base}/api/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        body,
      }).catch(() => null);
      if (r?.status === 201) sent.set(host, Date.now());
      await r?.arrayBuffer();
      await sleep(Math.max(0, 1000 / PROBES_PER_S - (Date.now() - t)));
    }
  })();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const r = await fetch(`${api}/api/v1/problems?type=e2e.probe&page_size=100`, {
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => null);
      if (r?.ok) {
        const now = Date.now();
        const body = (await r.json()) as { items: { host: string }[] };
        for (const p of body.items) if (!seen.has(p.host)) seen.set(p.host, now);
      }
      await sleep(25);
    }
  })();
  const wrk = await runWrk(seconds, delayMs, phaseNo);
  stop = true;
  await probes;
  const stoppedAt = Date.now();
  let lagZeroS = NaN;
  for (;;) {
    if ((await stalledEvents()) === 0) {
      lagZeroS = (Date.now() - stoppedAt) / 1000;
      break;
    }
    if (Date.now() - stoppedAt > 300_000) break;
    await sleep(200);
  }
  const waitUntil = Date.now() + 10_000;
  while ([...sent.keys()].some((h) => !seen.has(h)) && Date.now() < waitUntil) await sleep(100);
  polling = false;
  await poller;
  while ([...sent.keys()].some((h) => !hooked.has(h)) && Date.now() < waitUntil + 10_000) await sleep(100);
  const lat = [...sent].filter(([h]) => seen.has(h)).map(([h, t]) => seen.get(h)! - t);
  const hook = [...sent].filter(([h]) => hooked.has(h)).map(([h, t]) => hooked.get(h)! - t);
  return {
    name,
    rate,
    delayMs,
    wrk,
    lat,
    hook,
    probes: sent.size,
    missing: sent.size - lat.length,
    hookMissing: sent.size - hook.length,
    lagZeroS,
  };
}

try {
  const env = {
    ...process.env,
    DATABASE_URL: config.databaseUrl,
    CLICKHOUSE_DATABASE: config.clickhouseDatabase,
    KAFKA_TOPIC_PREFIX: config.topicPrefix,
    KAFKA_PARTITIONS: '4',
    SERVICE_STATE_DIR: config.stateDir,
    BULLMQ_PREFIX: config.queuePrefix,
    REDIS_KEY_PREFIX: config.redisKeyPrefix,
    SERVICE_BOOTSTRAP_API_KEY: KEY,
    SERVICE_ADMIN_PASSWORD: PASSWORD,
    // One agent key carries the whole fleet here: lift the per-key rate limit.
    SERVICE_INGEST_RATE_PER_KEY: '10000000',
    SERVICE_INGEST_RATE_BURST: '100000000',
    LOG_LEVEL: 'info',
    NOTIFY_CHANNELS: 'webhook',
    NOTIFY_MIN_SEVERITY: 'high',
    NOTIFY_WEBHOOK_URL: hookUrl,
    NOTIFY_WEBHOOK_ALLOW: '127.0.0.1',
    NOTIFY_WEBHOOK_RATE_PER_SECOND: '5000',
    NOTIFY_DELIVERY_CONCURRENCY: '32',
  };
  for (const [role, p] of [
    ['api', apiPort],
    ['ingest', port],
    ['store', 0],
    ['correlate', 0],
    ['notify', 0],
    ['deliver', 0],
  ] as const) {
    const child = spawn(
      process.execPath,
      ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), role],
      {
        cwd: repoRoot,
        env: { ...env, PORT: String(p) },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    services.push(child);
    if (p === 0) continue;
    for (const deadline = Date.now() + 90_000; ;) {
      const r = await fetch(`http://127.0.0.1:${p}/ready`).catch(() => null);
      if (r?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`${role} did not become ready`);
      await sleep(250);
    }
  }
  await sleep(3000); // the consumers join their groups
  const login = await fetch(`${api}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };

  console.log(
    `bench:e2e — roles ingest, store, correlate, api, notify, deliver (one process each); load: wrk 2 threads, ${CONNECTIONS} connections, Lua fleet mix; probes ${PROBES_PER_S}/s (Node fetch); ${SECONDS} s per phase`,
  );
  const cap = await phase('capacity (wrk closed loop, 10 s)', 1, null, token);
  const capacity = Number(process.env.BENCH_CAPACITY ?? cap.wrk.rps);
  const half = await phase('half capacity', 2, capacity / 2, token);
  const full = await phase('full capacity', 3, capacity, token);

  console.log(
    `\n${'phase'.padEnd(34)}${'target/s'.padStart(10)}${'wrk req/s'.padStart(11)}${'non-2xx'.padStart(9)}${'probes'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'lag 0 after stop'.padStart(18)}`,
  );
  for (const p of [cap, half, full])
    console.log(
      `${p.name.padEnd(34)}${(p.rate ? fmt(p.rate) : '-').padStart(10)}${fmt(p.wrk.rps).padStart(11)}${String(p.wrk.non2xx).padStart(9)}${`${p.probes - p.missing}/${p.probes}`.padStart(8)}${String(pct(p.lat, 0.5)).padStart(8)}${String(pct(p.lat, 0.99)).padStart(8)}${String(Math.max(...p.lat)).padStart(8)}${`${p.lagZeroS.toFixed(1)} s`.padStart(18)}`,
    );
  console.log(
    `\n${'ingest -> webhook delivered'.padEnd(34)}${'probes'.padStart(10)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}`,
  );
  for (const p of [cap, half, full])
    console.log(
      `${p.name.padEnd(34)}${`${p.probes - p.hookMissing}/${p.probes}`.padStart(10)}${String(pct(p.hook, 0.5)).padStart(8)}${String(pct(p.hook, 0.99)).padStart(8)}${String(Math.max(...p.hook)).padStart(8)}`,
    );
  console.log(
    `\n(wrk per-connection delay: half ${half.delayMs} ms, full ${full.delayMs} ms; latency = 201 -> first API list showing the problem, polled every 25 ms; webhook latency = 201 -> the receiver got the event's notification)`,
  );
  console.log('targets');
  const p99 = pct(half.lat, 0.99);
  console.log(`  p99 <= 1 s at half load: ${p99} ms  ${mark(p99 <= 1000 && half.missing === 0)}`);
  const hp99 = pct(half.hook, 0.99);
  console.log(`  webhook p99 <= 1 s at half load: ${hp99} ms  ${mark(hp99 <= 1000 && half.hookMissing === 0)}`);
  console.log(
    `  correlate lag 0 within 10 s after the full load stops: ${full.lagZeroS.toFixed(1)} s  ${mark(full.lagZeroS <= 10)}`,
  );
} finally {
  for (const c of services) c.kill('SIGTERM');
  await sleep(3000);
  for (const c of services) c.kill('SIGKILL');
  rmSync(lua, { force: true });
  hookServer.close();
  await stores.drop();
}
