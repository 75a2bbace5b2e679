import { Redis } from 'ioredis';

export type { Redis };

/** BullMQ needs maxRetriesPerRequest null on the connections it blocks on. */
export function createRedis(url: string, opts: { forBullmq?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: opts.forBullmq ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
  });
}
