// The service as an operator runs it (`ops/src/start.ts all`, or one process per role), under load
// from agents, live streams and logins, for the tests that kill -9 a server under it
// (ops/src/outage-*.int.test.ts, ops/src/kafka-cluster.int.test.ts), and the one scenario those kills
// follow (killUnderLoad). Processes are spawned by path: nothing of ops or the roles is imported here.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createKafka, redisTargetEnv, repoRoot, type ClickHouseClient, type Config, type Pool } from '@watchpost/runtime';
import type { NotificationSubject } from '@watchpost/schemas';
import { createApiKey, createUser, decide, enqueueDeliveries, recordDecisions, type DeliveryQueues } from '@watchpost/core';
import { sampleEvent } from '@watchpost/schemas/fixtures';
import { openSse, type SseClient } from './sse.ts';
import { waitFor } from './kafka.ts';
import { freePort } from './ports.ts';
import { createTestStores, type TestStores } from './stores.ts';

export interface ServiceProcess {
  role: string;
  base: string;
  child: ChildProcess;
  /** The last 20 kB of its stdout and stderr. */
  output(): string;
  alive(): boolean;
  /** SIGTERM, SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/** The environment that points a started process at the test's own names (and servers). */
export function serviceEnv(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: config.databaseUrl,
    // REDIS_URL, and the sentinels and master name when the config has them.
    ...redisTargetEnv(config.redis),
    CLICKHOUSE_URL: config.clickhouseUrl,
    CLICKHOUSE_DATABASE: config.clickhouseDatabase,
    KAFKA_TOPIC_PREFIX: config.topicPrefix,
    SERVICE_STATE_DIR: config.stateDir,
    BULLMQ_PREFIX: config.queuePrefix,
    REDIS_KEY_PREFIX: config.redisKeyPrefix,
    LOG_LEVEL: 'warn',
    // Due at 08:00 UTC by default: a process started after it would send one and one started before would
    // not, so what a test counts would depend on the hour. A test that wants it enables it (at 00:00: always due).
    SERVICE_DAILY_REPORT_ENABLED: 'false',
    // The SMTP intake listens (on a free port) in every process that runs it, so the kills reach it too.
    SERVICE_SMTP_PORT: '0',
    SERVICE_SMTP_HOST: '127.0.0.1',
    ...extra,
  };
}

/** Spawns `node ops/src/start.ts <role>` on a free port; resolves once it answers /healthz. */
export async function startServiceProcess(role: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), role], {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const alive = () => child.exitCode === null && child.signalCode === null;
  const p: ServiceProcess = {
    role,
    base: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    alive,
    async stop() {
      if (!alive()) return;
      const exited = once(child, 'exit');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(t);
    },
  };
  await waitFor(
    `${role} to listen`,
    async () => (alive() ? await health(p.base).catch(() => null) : 'exited'),
    (h) => h !== null,
    90_000,
  );
  if (!alive()) throw new Error(`${role} exited at start: ${out.slice(-3000)}`);
  return p;
}

export interface Health {
  status: string;
  checks?: Record<string, string>;
}

export async function health(base: string): Promise<Health> {
  const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) });
  return (await r.json()) as Health;
}

export async function readyStatus(base: string): Promise<number> {
  const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) });
  await r.arrayBuffer();
  return r.status;
}

/** A status, or the error code of a request that got no answer (ECONNREFUSED: the process ended). */
async function request(url: string, init: RequestInit): Promise<{ status: number | string; body?: unknown }> {
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    const text = await r.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: r.status, body };
  } catch (err) {
    return { status: (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name ?? 'fetch failed' };
  }
}

const tally = (m: Map<string, number>, k: number | string) => m.set(String(k), (m.get(String(k)) ?? 0) + 1);

export interface LoadOptions {
  /** Where agents post (the ingest process). */
  ingest: string;
  /** Where logins and live streams go (the api process). */
  api: string;
  apiKey: string;
  username: string;
  password: string;
  agents: number;
  streams: number;
  /** Host names are `${hostPrefix}-<n>`. */
  hostPrefix: string;
  /** API paths read in a loop with a bearer token (e.g. dashboards, event lists). */
  reads?: string[];
  /** A login every second (default true); false: agents (and streams, if any) only. */
  logins?: boolean;
}

/** Who the load is: an API key for the agents, an admin for logins, streams and reads. */
export interface LoadCredentials {
  apiKey: string;
  username: string;
  password: string;
}

/** Creates the API key (named `name`) and the admin `operator` a ServiceLoad uses. */
export async function createLoadCredentials(pg: Pool, name: string): Promise<LoadCredentials> {
  const apiKey = (await createApiKey(pg, name)).key;
  const password = `pw-${name}-operator`;
  await createUser(pg, { username: 'operator', password, role: 'admin' });
  return { apiKey, username: 'operator', password };
}

/**
 * Agents that retry each event until 201 or 409 (as agents do), a login every second, and live
 * streams reopened when they end (as EventSource does). Every status is counted.
 */
export class ServiceLoad {
  readonly accepted: string[] = [];
  /** The first events accepted, whole (a test resends them). */
  readonly firstAccepted: unknown[] = [];
  readonly agentStatuses = new Map<string, number>();
  readonly loginStatuses = new Map<string, number>();
  readonly streamStatuses = new Map<string, number>();
  /** Per read path: status (or error code) to count. */
  readonly readStatuses = new Map<string, Map<string, number>>();
  readonly streams: SseClient[] = [];
  private running = true;
  private readonly loops: Promise<void>[] = [];

  private readonly opts: LoadOptions;

  constructor(opts: LoadOptions) {
    this.opts = opts;
  }

  start(): void {
    for (let n = 0; n < this.opts.agents; n++) this.loops.push(this.agent(n));
    if (this.opts.logins ?? true) this.loops.push(this.logins());
    for (let n = 0; n < this.opts.streams; n++) this.loops.push(this.stream());
    if (this.opts.reads?.length) this.loops.push(this.reader(this.opts.reads));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const s of this.streams) s.close();
    await Promise.all(this.loops);
  }

  event(host: string) {
    const ev = sampleEvent({ severity: 'warning', dedup_key: `${host}:ssh.login.failed:root` });
    return { ...ev, host: { ...ev.host, hostname: host, fqdn: `${host}.example.org` } };
  }

  post(ev: unknown): Promise<number | string> {
    return request(`${this.opts.ingest}/api/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.opts.apiKey },
      body: JSON.stringify(ev),
    }).then((r) => r.status);
  }

  async login(): Promise<{ status: number | string; token?: string }> {
    const r = await request(`${this.opts.api}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: this.opts.username, password: this.opts.password }),
    });
    return { status: r.status, token: (r.body as { access_token?: string } | undefined)?.access_token };
  }

  private async agent(n: number): Promise<void> {
    while (this.running) {
      const ev = this.event(`${this.opts.hostPrefix}-${n}`);
      while (this.running) {
        const s = await this.post(ev);
        tally(this.agentStatuses, s);
        if (s === 201 || s === 409) {
          this.accepted.push(ev.event_id);
          if (this.firstAccepted.length < 20) this.firstAccepted.push(ev);
          break;
        }
        await sleep(100);
      }
    }
  }

  private async logins(): Promise<void> {
    while (this.running) {
      tally(this.loginStatuses, (await this.login()).status);
      await sleep(1000);
    }
  }

  /** `token`, or a fresh login's; undefined (after a second's pause) while logins fail. */
  private async loggedIn(token: string | undefined): Promise<string | undefined> {
    if (token) return token;
    const fresh = (await this.login()).token;
    if (!fresh) await sleep(1000);
    return fresh;
  }

  /** Reads each path in turn, as an open dashboard does. */
  private async reader(paths: string[]): Promise<void> {
    let token: string | undefined;
    while (this.running) {
      token = await this.loggedIn(token);
      if (!token) continue;
      for (const path of paths) {
        const r = token ? await this.read(path, token) : 'no token';
        if (r === 401) token = undefined;
        const m = this.readStatuses.get(path) ?? new Map<string, number>();
        this.readStatuses.set(path, tally(m, r));
      }
      await sleep(300);
    }
  }

  async read(path: string, token: string): Promise<number | string> {
    return (await request(`${this.opts.api}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
  }

  /** One live stream, reopened (with a fresh login when needed) whenever it ends. */
  private async stream(): Promise<void> {
    let token: string | undefined;
    while (this.running) {
      token = await this.loggedIn(token);
      if (!token) continue;
      let s: SseClient;
      try {
        s = await openSse(`${this.opts.api}/api/v1/stream/events?access_token=${encodeURIComponent(token)}`);
      } catch (err) {
        tally(this.streamStatuses, (err as { code?: string }).code ?? 'error');
        await sleep(1000);
        continue;
      }
      tally(this.streamStatuses, s.status);
      if (s.status === 401) token = undefined;
      if (s.status !== 200) {
        s.close();
        await sleep(1000);
        continue;
      }
      this.streams.push(s);
      while (this.running && !s.endedAt) await sleep(200);
      s.close();
    }
  }

  /** Streams open now that have received an `events` frame since `since` (ms since epoch). */
  streamsFedSince(since: number): number {
    return this.streams.filter((s) => !s.endedAt && s.frames.some((f) => f.event === 'events' && f.at >= since)).length;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StoredOnce {
  /** Accepted events found on a problem timeline. */
  correlated: number;
  /** event_ids on more than one timeline row. */
  onTwoTimelines: number;
  /** Timeline rows, and the sum of the problems' counts (equal when no event was counted twice). */
  timelineRows: number;
  problemCount: number;
  /** ClickHouse `events` rows after collapsing (FINAL), and distinct event_ids. */
  storedRows: number;
  storedIds: number;
}

/**
 * What the stores hold of the accepted events, once every one is correlated and stored (or the wait
 * ran out): a test expects `correlated` = `storedRows` = `storedIds` = the number accepted, nothing on
 * two timelines and problem counts equal to the timeline rows.
 */
export async function storedOnce(
  stores: { pg: Pool; ch: ClickHouseClient },
  ids: string[],
  waitMs = 60_000,
): Promise<StoredOnce> {
  const correlated = async () =>
    (
      await stores.pg.query<{ n: number }>(
        'SELECT count(DISTINCT event_id)::int AS n FROM problem_events WHERE event_id = ANY($1::uuid[])',
        [ids],
      )
    ).rows[0]!.n;
  const stored = async () => {
    const rs = await stores.ch.query({
      query: 'SELECT count() AS rows, uniqExact(event_id) AS ids FROM events FINAL',
      format: 'JSONEachRow',
    });
    const [r] = await rs.json<{ rows: string; ids: string }>();
    return { rows: Number(r!.rows), ids: Number(r!.ids) };
  };
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && ((await correlated()) < ids.length || (await stored()).ids < ids.length)) await sleep(500);
  const totals = await stores.pg.query<{ rows: number; counted: number; twice: number }>(
    `SELECT (SELECT count(*)::int FROM problem_events) AS rows,
            (SELECT coalesce(sum(count), 0)::int FROM problems) AS counted,
            (SELECT count(*)::int FROM (SELECT event_id FROM problem_events GROUP BY event_id HAVING count(*) > 1) t) AS twice`,
  );
  const ch = await stored();
  return {
    correlated: await correlated(),
    onTwoTimelines: totals.rows[0]!.twice,
    timelineRows: totals.rows[0]!.rows,
    problemCount: totals.rows[0]!.counted,
    storedRows: ch.rows,
    storedIds: ch.ids,
  };
}

/** What storedOnce finds when each of `n` accepted events is correlated and stored exactly once. */
export function exactlyOnce(n: number): StoredOnce {
  return { correlated: n, onTwoTimelines: 0, timelineRows: n, problemCount: n, storedRows: n, storedIds: n };
}

/** The processes of `ps` that ended, with the end of their output. */
export function endedProcesses(
  ps: ServiceProcess[],
): { role: string; code: number | null; signal: string | null; log: string }[] {
  return ps
    .filter((p) => !p.alive())
    .map((p) => ({ role: p.role, code: p.child.exitCode, signal: p.child.signalCode, log: p.output().slice(-3000) }));
}

/** What an outage test runs on: its stores, the load's credentials, the service's processes. */
export interface OutageService {
  config: Config;
  stores: TestStores;
  credentials: LoadCredentials;
  /** The environment of the processes started (a test may add to it before it starts them). */
  env: Record<string, string>;
  processes: ServiceProcess[];
  /** `node ops/src/start.ts <role>` with `env`; stopped by close(). */
  start(role: string): Promise<ServiceProcess>;
  /** Every role of `roles` as a process of its own; `byRole` finds one. */
  startRoles(roles: readonly string[]): Promise<ServiceProcess[]>;
  byRole: (role: string) => ServiceProcess;
  /** A ServiceLoad of 6 agents posting to `ingest`, logins, streams and reads going to `api`. */
  load(ingest: ServiceProcess, api: ServiceProcess, opts: { streams: number; hostPrefix: string; reads?: string[] }): ServiceLoad;
  /** Stops the processes, drops the stores and stops the test's own server (if it ran on one). */
  close(): Promise<void>;
}

/**
 * The stores of `config` (migrated; on the test's own server where `config` points there), an API key
 * and an admin named after `name`, and the service environment (`serviceEnv` with `extra`). `server`:
 * the test's own server the config points at, stopped last by close().
 */
export async function setUpOutageService(
  config: Config,
  name: string,
  extra: Record<string, string> = {},
  server?: { stop(): Promise<void> },
): Promise<OutageService> {
  const stores = await createTestStores(config);
  const credentials = await createLoadCredentials(stores.pg, name);
  const processes: ServiceProcess[] = [];
  const svc: OutageService = {
    config,
    stores,
    credentials,
    env: serviceEnv(config, extra),
    processes,
    async start(role) {
      const p = await startServiceProcess(role, svc.env);
      processes.push(p);
      return p;
    },
    startRoles: (roles) => Promise.all(roles.map((role) => svc.start(role))),
    byRole: (role) => processes.find((p) => p.role === role)!,
    load: (ingest, api, opts) => new ServiceLoad({ ingest: ingest.base, api: api.base, ...credentials, agents: 6, ...opts }),
    async close() {
      await Promise.all(processes.map((p) => p.stop()));
      await stores.drop().catch(() => {});
      await server?.stop();
    },
  };
  return svc;
}

/** Notifications sent to a webhook receiver on this machine (`url`), retried quickly. */
export function webhookNotifyEnv(url: string): Record<string, string> {
  return { NOTIFY_WEBHOOK_ALLOW: '127.0.0.1', NOTIFY_CHANNELS: 'webhook', NOTIFY_BACKOFF_MS: '200', NOTIFY_WEBHOOK_URL: url };
}

/** Events on problem timelines (correlated), all hosts together. */
export async function correlatedCount(pg: Pool): Promise<number> {
  return (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM problem_events')).rows[0]!.n;
}

/** The statuses (or error codes) heard that are not among `allowed` (a test expects none). */
export function statusesBeyond(heard: Map<string, number>, allowed: string[]): string[] {
  return [...heard.keys()].filter((st) => !allowed.includes(st));
}

/** Committed lag of the two groups that read the events topic, over the brokers given. */
export async function eventsTopicLag(brokers: string[], config: Config): Promise<Record<'store' | 'correlate', number>> {
  const admin = createKafka(brokers, 'test-lag').admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(config.topics.events);
    const lag = async (groupId: string) => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [config.topics.events] });
      return ends.reduce((sum, e) => {
        const c = Number(committed!.partitions.find((p) => p.partition === e.partition)?.offset ?? -1);
        return sum + Number(e.high) - (c < 0 ? 0 : c);
      }, 0);
    };
    return { store: await lag(config.consumerGroups.store), correlate: await lag(config.consumerGroups.correlate) };
  } finally {
    await admin.disconnect();
  }
}

/** How long a wait may take, and how often it looks (waitFor's default when left out). */
export interface Within {
  ms: number;
  everyMs?: number;
}

/** Until `n` events are correlated (load flowing through correlate), then until 2 live streams are fed. */
export async function loadFlowing(
  pg: Pool,
  load: ServiceLoad,
  opts: { correlated: number; correlatedWithin: Within; streamsWithin: Within },
): Promise<void> {
  const { correlatedWithin: c, streamsWithin: st } = opts;
  await waitFor(
    'events to be correlated',
    () => correlatedCount(pg),
    (n) => n >= opts.correlated,
    c.ms,
    c.everyMs,
  );
  await waitFor(
    'live streams to be fed',
    async () => load.streamsFedSince(0),
    (n) => n >= 2,
    st.ms,
    st.everyMs,
  );
}

/** Until 20 more events are accepted than now. */
export async function acceptedAgain(load: ServiceLoad, within: Within): Promise<void> {
  const since = load.accepted.length;
  await waitFor(
    'agents to be accepted again',
    async () => load.accepted.length,
    (n) => n >= since + 20,
    within.ms,
    within.everyMs,
  );
}

/** Until 2 live streams have been fed since `since` (`what`: since when, for the failure). */
export async function streamsFedAgain(load: ServiceLoad, since: number, what: string, within: Within): Promise<void> {
  await waitFor(
    `live streams fed ${what}`,
    async () => load.streamsFedSince(since),
    (n) => n >= 2,
    within.ms,
    within.everyMs,
  );
}

/** Until every process answers /healthz with status ok. */
export async function healthyAgain(ps: ServiceProcess[], within: Within): Promise<void> {
  for (const p of ps)
    await waitFor(
      `${p.role} /healthz ok`,
      () => health(p.base).catch(() => null),
      (h) => h?.status === 'ok',
      within.ms,
      within.everyMs,
    );
}

/** Until every process answers /readyz 200. */
export async function readyAgain(ps: ServiceProcess[], within: Within): Promise<void> {
  for (const p of ps)
    await waitFor(
      `${p.role} /readyz`,
      () => readyStatus(p.base).catch(() => 0),
      (st) => st === 200,
      within.ms,
      within.everyMs,
    );
}

/** What agents (and readers) heard and what the processes logged, for a failure message. */
export function loadReport(load: ServiceLoad, ps: ServiceProcess[]): string {
  const reads = [...load.readStatuses].map(([k, m]) => [k, Object.fromEntries(m)]);
  return [
    `agents heard ${JSON.stringify(Object.fromEntries(load.agentStatuses))}`,
    ...(reads.length ? [`reads heard ${JSON.stringify(reads)}`] : []),
    ...ps.map((p) => `--- ${p.role}\n${p.output().slice(-4000)}`),
  ].join('\n');
}

/** A server a test runs itself: its kill -9, and its restart on the same data and ports. */
export interface KillableServer {
  kill9(): Promise<void>;
  restart(): Promise<void>;
}

export interface KillScenario {
  load: ServiceLoad;
  /** The service's processes: each must stay up, and answer /healthz ok once the server is back. */
  processes: ServiceProcess[];
  server: KillableServer;
  /** Waits until the load flows through what the kill will interrupt. */
  flowing(): Promise<void>;
  /** Runs right before the kill (e.g. jobs queued that then exist only in the server killed). */
  beforeKill?(): Promise<void>;
  /** How long the server stays dead. */
  downMs: number;
  /** The test's checks once the server has been dead `downMs` (every kill test: no process ended). */
  whileDown(): void;
  /** How long each process may take to answer /healthz ok once the server is back. */
  healthyWithin: Within;
  /** The test's waits for its recovery, once every process is healthy; `back`: when the restart returned. */
  recovered(back: number): Promise<void>;
  /** More for a failure message (beyond what the load heard and the processes logged). */
  report?(): string;
}

/**
 * The kill every outage test runs: load started and flowing, kill -9 of the server, `downMs` without it,
 * the restart, every process healthy again, the test's own recovery waits; the load is stopped in any
 * case. A failure says what the load heard and the processes logged. What the stores hold is the
 * test's to check after (storedOnce: every accepted event stored once).
 */
export async function killUnderLoad(sc: KillScenario): Promise<void> {
  const { load, processes } = sc;
  load.start();
  try {
    await sc.flowing();
    await sleep(500);
    await sc.beforeKill?.();

    await sc.server.kill9();
    await sleep(sc.downMs);
    sc.whileDown();

    await sc.server.restart();
    const back = Date.now();
    await healthyAgain(processes, sc.healthyWithin);
    await sc.recovered(back);
  } catch (err) {
    const more = sc.report ? `\n${sc.report()}` : '';
    throw new Error(`${(err as Error).message}\n${loadReport(load, processes)}${more}`, { cause: err });
  } finally {
    await load.stop();
  }
}

const lockoutSubject = (k: string): NotificationSubject => ({
  kind: 'login_lockout',
  username: k,
  address: '198.51.100.9',
  at: 't',
});
const WEBHOOK_TARGETS = {
  chat: { enabled: true, destinations: [] },
  webhook: { enabled: true, destinations: [{ id: 'default' }] },
  email: { enabled: false, recipients: [] },
  push: { enabled: true, devices: 0 },
};

/**
 * `n` login-lockout deliveries queued as notify queues them (a row in Postgres, a job on `queues`),
 * routed to the webhook (as a report: the policy's channels), whose receiver counts them by delivery id
 * (subject keys `lockout:<tag><i>`). Their delivery ids.
 */
export async function queueWebhookDeliveries(
  stores: { pg: Pool; config: Config },
  queues: DeliveryQueues,
  tag: string,
  n: number,
): Promise<string[]> {
  const queued = await recordDecisions(
    stores.pg,
    Array.from({ length: n }, (_, i) => ({
      subjectKey: `lockout:${tag}${i}`,
      subjectKind: 'login_lockout',
      subjectId: `${tag}${i}`,
      decision: decide(
        { kind: 'daily_report', recipients: [] },
        { minSeverity: 'high', channels: ['webhook'] },
        WEBHOOK_TARGETS,
        {
          overrides: new Map(),
          hidden: new Set(),
        },
      ),
      subject: lockoutSubject(`lockout:${tag}${i}`),
    })),
  );
  await enqueueDeliveries(queues, stores.config.notify, queued, lockoutSubject);
  return queued.map((q) => q.id);
}
