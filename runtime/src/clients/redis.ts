import { Redis } from 'ioredis';

export type { Redis };

export interface RedisTimeouts {
  connectMs: number;
  /** Bound on one command's answer (not applied to BullMQ's blocking connections). */
  commandMs: number;
}

export const DEFAULT_REDIS_TIMEOUTS: RedisTimeouts = { connectMs: 5000, commandMs: 5000 };

/** BullMQ needs maxRetriesPerRequest null on the connections it blocks on. */
export function createRedis(url: string, opts: { forBullmq?: boolean; timeouts?: RedisTimeouts } = {}): Redis {
  const t = opts.timeouts ?? DEFAULT_REDIS_TIMEOUTS;
  const redis = new Redis(url, {
    maxRetriesPerRequest: opts.forBullmq ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    connectTimeout: t.connectMs,
    // A Redis that accepts and then never answers must not hold a request: the command fails instead.
    ...(opts.forBullmq ? {} : { commandTimeout: t.commandMs }),
  });
  // Connection errors surface on the commands (and ioredis reconnects); without a listener ioredis
  // prints each one as an unhandled error event.
  redis.on('error', () => {});
  return redis;
}
