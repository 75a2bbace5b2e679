// The service's own health for GET /system/status (the sidebar's "System" box): ingest rate, consumer
// lag per group, BullMQ queue depths and whether each store answers, with its latency. Every probe is
// bounded (PROBE_TIMEOUT_MS) and fails on its own: a store that is down or hangs marks its part
// `down`, the rest still answers. Errors are reduced to "timed out" / "unreachable" (no addresses for
// monitors to read).
import { Kafka, createQueue, createRedis, sql, type Config, type Redis } from '@watchpost/runtime';
import type { ClickHouseClient, Pool } from '@watchpost/runtime';
import { QUEUES, type QueueName } from '@watchpost/schemas';
import type { Queue } from 'bullmq';

/** Longest any one probe may take; they run side by side, so the whole answer stays under ~2 s. */
export const PROBE_TIMEOUT_MS = 1500;
/** Window of the ingest rate (events stored with received_at in the last minute). */
const RATE_WINDOW_S = 60;

export type ProbeState = 'up' | 'down';
type Admin = ReturnType<Kafka['admin']>;

export interface StoreHealth {
  name: 'postgres' | 'redis' | 'clickhouse' | 'kafka';
  status: ProbeState;
  latency_ms: number | null;
  error: string | null;
}

export interface ConsumerLag {
  /** The group's role: store, correlate, stream, notify. */
  group: string;
  /** Messages on its topics not yet committed by the group; null when unknown (Kafka down, no offsets yet). */
  lag: number | null;
  /** Consumers in the group now (0: the role is not running). */
  members: number | null;
  state: string | null;
}

export interface QueueDepth {
  queue: QueueName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface SystemStatus {
  generated_at: string;
  ingest: { status: ProbeState; events_last_minute: number | null; events_per_second: number | null };
  consumers: { status: ProbeState; groups: ConsumerLag[] };
  queues: { status: ProbeState; items: QueueDepth[] };
  stores: StoreHealth[];
}

class ProbeTimeout extends Error {}

/** The probe's answer, or a ProbeTimeout after `ms` (the probe itself is left to its own timeouts). */
export function withTimeout<T>(p: Promise<T>, ms = PROBE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout('timed out')), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const reason = (err: unknown) => (err instanceof ProbeTimeout ? 'timed out' : 'unreachable');

async function timed(name: StoreHealth['name'], probe: () => Promise<unknown>): Promise<StoreHealth> {
  const start = performance.now();
  try {
    await withTimeout(probe());
    return { name, status: 'up', latency_ms: Math.round((performance.now() - start) * 10) / 10, error: null };
  } catch (err) {
    return { name, status: 'down', latency_ms: null, error: reason(err) };
  }
}

// Which topics each consumer group reads (ARCHITECTURE.md, the roles table).
const GROUP_TOPICS = {
  store: ['events'],
  correlate: ['events'],
  stream: ['events', 'problems'],
  notify: ['events', 'problems'],
} as const satisfies Record<keyof Config['consumerGroups'], readonly (keyof Config['topics'])[]>;

/** Queues whose depth tells an operator something is stuck: deliveries, remote actions, scheduled jobs. */
const WATCHED_QUEUES: QueueName[] = [
  QUEUES.notifyChat,
  QUEUES.notifyWebhook,
  QUEUES.notifyEmail,
  QUEUES.notifyPush,
  QUEUES.actions,
  QUEUES.notifications,
  QUEUES.scheduler,
];

export interface SystemProbes {
  status(): Promise<SystemStatus>;
  close(): Promise<void>;
}

/**
 * The probes of one API process. Kafka is reached through its own admin client (no retries, short
 * timeouts: a dead broker must not queue reconnects behind the route) and BullMQ through its own
 * command connection with a command timeout (BullMQ's blocking connections have none).
 */
export function createSystemProbes(deps: { config: Config; pg: Pool; redis: Redis; clickhouse: ClickHouseClient }): SystemProbes {
  const { config } = deps;
  const kafka = new Kafka({
    clientId: `watchpost-api-status`,
    brokers: config.kafkaBrokers,
    connectionTimeout: PROBE_TIMEOUT_MS,
    requestTimeout: PROBE_TIMEOUT_MS,
    retry: { retries: 0 },
    logLevel: 0, // NOTHING: a broker that is down is reported by the route, not logged every few seconds
  });
  let admin: Admin | null = null;
  let queueRedis: Redis | null = null;
  let queues: Queue[] | null = null;

  async function kafkaAdmin(): Promise<Admin> {
    if (admin) return admin;
    const a = kafka.admin({ retry: { retries: 0 } });
    try {
      await withTimeout(a.connect());
    } catch (err) {
      void a.disconnect().catch(() => {});
      throw err;
    }
    admin = a;
    return a;
  }
  /** After a failure the admin may hold dead connections: start afresh next time. */
  function dropAdmin(): void {
    const a = admin;
    admin = null;
    if (a) void a.disconnect().catch(() => {});
  }

  function watchedQueues(): Queue[] {
    queueRedis ??= createRedis(config.redis, { timeouts: { connectMs: PROBE_TIMEOUT_MS, commandMs: PROBE_TIMEOUT_MS } });
    queues ??= WATCHED_QUEUES.map((name) => createQueue(config, name, queueRedis!));
    return queues;
  }

  async function consumerLags(a: Admin): Promise<ConsumerLag[]> {
    const topicNames = [...new Set(Object.values(GROUP_TOPICS).flat())];
    const ends = new Map(
      await Promise.all(topicNames.map(async (t) => [t, await a.fetchTopicOffsets(config.topics[t])] as const)),
    );
    const groups = Object.keys(GROUP_TOPICS) as (keyof typeof GROUP_TOPICS)[];
    const described = await a.describeGroups(groups.map((g) => config.consumerGroups[g]));
    const byId = new Map(described.groups.map((g) => [g.groupId, g]));
    return Promise.all(
      groups.map(async (group) => {
        const groupId = config.consumerGroups[group];
        const topics = GROUP_TOPICS[group];
        const committed = await a.fetchOffsets({ groupId, topics: topics.map((t) => config.topics[t]) });
        let lag = 0n;
        let anyCommitted = false;
        for (const t of topics) {
          const done = new Map(
            (committed.find((c) => c.topic === config.topics[t])?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]),
          );
          for (const p of ends.get(t) ?? []) {
            const c = done.get(p.partition) ?? -1n;
            if (c >= 0n) anyCommitted = true;
            // Nothing committed yet on a partition: everything from its low watermark is behind.
            const from = c < 0n ? BigInt(p.low) : c;
            if (BigInt(p.high) > from) lag += BigInt(p.high) - from;
          }
        }
        const d = byId.get(groupId);
        return {
          group,
          lag: anyCommitted ? Number(lag) : null,
          members: d ? d.members.length : null,
          state: d?.state ?? null,
        };
      }),
    );
  }

  async function ingestRate(): Promise<number> {
    // Whole seconds: [now - 61 s, now - 1 s), so the second still arriving is not counted as empty.
    const to = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const from = new Date(to.getTime() - RATE_WINDOW_S * 1000);
    const q = sql`SELECT count() AS n FROM events WHERE received_at >= ${from} AND received_at < ${to}`;
    const rs = await deps.clickhouse.query({
      query: q.text,
      format: 'JSONEachRow',
      abort_signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const rows = await rs.json<{ n: string | number }>();
    return Number(rows[0]?.n ?? 0);
  }

  async function status(): Promise<SystemStatus> {
    let kafkaLatency: StoreHealth | undefined;
    const kafkaProbe = (async () => {
      const start = performance.now();
      try {
        const a = await kafkaAdmin();
        await withTimeout(a.describeCluster());
        kafkaLatency = {
          name: 'kafka',
          status: 'up',
          latency_ms: Math.round((performance.now() - start) * 10) / 10,
          error: null,
        };
        return await withTimeout(consumerLags(a));
      } catch (err) {
        dropAdmin();
        kafkaLatency ??= { name: 'kafka', status: 'down', latency_ms: null, error: reason(err) };
        return null;
      }
    })();
    const [pgH, redisH, chH, lags, rate, depths] = await Promise.all([
      timed('postgres', () => deps.pg.query('SELECT 1')),
      timed('redis', () => deps.redis.ping()),
      timed('clickhouse', async () => {
        const rs = await deps.clickhouse.query({
          query: 'SELECT 1',
          format: 'JSONEachRow',
          abort_signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        await rs.json(); // read to the end: an unread answer leaves its socket half-open
      }),
      kafkaProbe,
      withTimeout(ingestRate()).catch(() => null),
      withTimeout(
        Promise.all(
          watchedQueues().map(async (q) => {
            const c = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
            return {
              queue: q.name as QueueName,
              waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
              active: c.active ?? 0,
              delayed: c.delayed ?? 0,
              failed: c.failed ?? 0,
            };
          }),
        ),
      ).catch(() => null),
    ]);
    return {
      generated_at: new Date().toISOString(),
      ingest: {
        status: rate === null ? 'down' : 'up',
        events_last_minute: rate,
        events_per_second: rate === null ? null : Math.round((rate / RATE_WINDOW_S) * 100) / 100,
      },
      consumers: {
        status: lags === null ? 'down' : 'up',
        groups:
          lags ??
          (Object.keys(GROUP_TOPICS) as (keyof typeof GROUP_TOPICS)[]).map((group) => ({
            group,
            lag: null,
            members: null,
            state: null,
          })),
      },
      queues: { status: depths === null ? 'down' : 'up', items: depths ?? [] },
      stores: [pgH, redisH, chH, kafkaLatency!],
    };
  }

  return {
    status,
    async close() {
      dropAdmin();
      await Promise.allSettled((queues ?? []).map((q) => q.close()));
      queueRedis?.disconnect();
    },
  };
}
