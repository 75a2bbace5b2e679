// The one way to make a BullMQ queue or worker: always under the deployment's BULLMQ_PREFIX, so a
// producer's jobs land where the workers look.
import { Queue, Worker, type Processor, type QueueOptions, type WorkerOptions } from 'bullmq';
import type { QueueName } from '@watchpost/schemas';
import type { Config } from './config/config.ts';
import type { Redis } from './clients/redis.ts';

type Names = Pick<Config, 'queuePrefix'>;

/** `connection` must come from createRedis(url, { forBullmq: true }) (Clients.bullmqConnection()). */
export function createQueue<Data = unknown, Result = unknown, JobName extends string = string>(
  config: Names,
  name: QueueName,
  connection: Redis,
  opts: Omit<QueueOptions, 'connection' | 'prefix'> = {},
): Queue<Data, Result, JobName> {
  const queue = new Queue<Data, Result, JobName>(name, { ...opts, connection, prefix: config.queuePrefix });
  queue.on('error', quiet);
  return queue;
}

export function createWorker<Data = unknown, Result = unknown, JobName extends string = string>(
  config: Names,
  name: QueueName,
  processor: Processor<Data, Result, JobName>,
  connection: Redis,
  opts: Omit<WorkerOptions, 'connection' | 'prefix'> = {},
): Worker<Data, Result, JobName> {
  const worker = new Worker<Data, Result, JobName>(name, processor, { ...opts, connection, prefix: config.queuePrefix });
  worker.on('error', quiet);
  return worker;
}

// A lost Redis connection is re-emitted by the queue or worker on every reconnect attempt; without a
// listener BullMQ prints each one to stderr. ioredis reconnects, the worker resumes by itself, and the
// callers' commands fail (and are answered) while Redis is away.
function quiet(): void {}

/**
 * Runs `restore` each time `connection` is ready again after a reconnect (not at the first connect).
 * Job schedulers live in Redis: a Redis that comes back without its data (no AOF, a replaced instance)
 * has none, and no periodic job would run again until the process restarts. Returns a stop function.
 */
export function onRedisReconnect(connection: Redis, restore: () => Promise<void>, onError: (err: unknown) => void): () => void {
  // A connection already up has had its first 'ready'; one still connecting has it to come.
  let connected = connection.status === 'ready';
  const ready = () => {
    if (connected) restore().catch(onError);
    connected = true;
  };
  connection.on('ready', ready);
  return () => connection.off('ready', ready);
}
