import { Redis, SentinelConnector, type RedisOptions, type SentinelConnectionOptions } from 'ioredis';
import type { RedisTarget } from '../config/sections/redis.ts';

export type { Redis };

export interface RedisTimeouts {
  connectMs: number;
  /** Bound on one command's answer (not applied to BullMQ's blocking connections). */
  commandMs: number;
}

export const DEFAULT_REDIS_TIMEOUTS: RedisTimeouts = { connectMs: 5000, commandMs: 5000 };

/**
 * ioredis (6.0.0) gives each connection a failover detector, but the detector outlives its connection:
 * while the client reconnects after losing the master, the lost connection's detector still listens, and
 * a +switch-master that arrives while the reconnect is asking a sentinel for the master makes that
 * connect throw "Connection is closed."; ioredis then ends the client for good (status "end", no further
 * reconnect, every command refused). A reconnect asks the sentinels anyway, so the lost connection's
 * detector is retired as each connect starts; the new connection subscribes its own once it is up.
 * (runtime/src/clients/redis-sentinel.int.test.ts holds the window open and shows both.)
 */
class FollowingSentinelConnector extends SentinelConnector {
  // ioredis types `Connector` as taking unknown options; it passes the client's (Sentinel) options.
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }

  override connect(...args: Parameters<SentinelConnector['connect']>): ReturnType<SentinelConnector['connect']> {
    // A private field of ioredis's SentinelConnector: redis-sentinel.int.test.ts fails if it is renamed or changes role.
    const own = this as unknown as { failoverDetector: { cleanup(): void } | null };
    own.failoverDetector?.cleanup();
    own.failoverDetector = null;
    return super.connect(...args);
  }
}

/**
 * Options that make a client follow a Sentinel promotion quickly (ioredis README, "Sentinel" and
 * "Reconnect on Error"; SentinelConnectionOptions in its API docs):
 * - the master is asked of the sentinels on every (re)connect and checked with ROLE (`role: 'master'`),
 *   so a reconnect after the master died lands on whichever node Sentinel promoted;
 * - `failoverDetector` subscribes to the sentinels' `+switch-master`, dropping the connection at once
 *   when the master changes while the old one still answers (a manual failover, a partition);
 * - a READONLY reply (the old master came back as a replica, the client still on it) reconnects and
 *   resends the command (`reconnectOnError` returning 2);
 * - reconnects are retried every 50 ms growing to 1 s (default: up to 2 s), sentinels every 100 ms to 1 s;
 * - the connector retires a lost connection's detector when it reconnects (FollowingSentinelConnector);
 *   `duplicate()` (BullMQ's connections) copies the option, so they follow too.
 */
function sentinelOptions(t: RedisTarget): RedisOptions {
  return {
    sentinels: t.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: t.masterName,
    role: 'master',
    ...(t.sentinelPassword ? { sentinelPassword: t.sentinelPassword } : {}),
    failoverDetector: true,
    Connector: FollowingSentinelConnector,
    sentinelRetryStrategy: (times: number) => Math.min(times * 100, 1000),
    retryStrategy: (times: number) => Math.min(times * 50, 1000),
    reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 2 : false),
  };
}

/**
 * A client of `target` (a config's `redis` or `claimsRedis`; a bare URL in tests). BullMQ needs
 * maxRetriesPerRequest null on the connections it blocks on (`forBullmq`); the connections BullMQ
 * duplicates from it keep its Sentinel settings.
 */
export function createRedis(target: RedisTarget | string, opts: { forBullmq?: boolean; timeouts?: RedisTimeouts } = {}): Redis {
  const t: RedisTarget =
    typeof target === 'string' ? { url: target, sentinels: [], masterName: '', sentinelPassword: undefined } : target;
  const timeouts = opts.timeouts ?? DEFAULT_REDIS_TIMEOUTS;
  const redis = new Redis(t.url, {
    maxRetriesPerRequest: opts.forBullmq ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    connectTimeout: timeouts.connectMs,
    // A Redis that accepts and then never answers must not hold a request: the command fails instead.
    ...(opts.forBullmq ? {} : { commandTimeout: timeouts.commandMs }),
    ...(t.sentinels.length > 0 ? sentinelOptions(t) : {}),
  });
  // Connection errors surface on the commands (and ioredis reconnects); without a listener ioredis
  // prints each one as an unhandled error event.
  redis.on('error', () => {});
  return redis;
}
