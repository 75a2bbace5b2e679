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
  return new Queue<Data, Result, JobName>(name, { ...opts, connection, prefix: config.queuePrefix });
}

export function createWorker<Data = unknown, Result = unknown, JobName extends string = string>(
  config: Names,
  name: QueueName,
  processor: Processor<Data, Result, JobName>,
  connection: Redis,
  opts: Omit<WorkerOptions, 'connection' | 'prefix'> = {},
): Worker<Data, Result, JobName> {
  return new Worker<Data, Result, JobName>(name, processor, { ...opts, connection, prefix: config.queuePrefix });
}
