// The actions queue as the API holds it (ApiDeps.actions): one BullMQ connection for adding jobs and one
// request-reply reader for the synchronous routes, made once per API app and closed with it.
import { createQueue, createRequestReply, type Config, type Redis, type RequestReply } from '@watchpost/runtime';
import { ACTIONS_QUEUE, type ActionsQueueInput } from '@watchpost/schemas';
import type { Queue } from 'bullmq';

export interface ActionsQueue {
  queue: Queue<ActionsQueueInput>;
  /** Adds a job and waits for the actions worker to finish it. */
  replies: RequestReply<ActionsQueueInput, unknown, string>;
  close(): Promise<void>;
}

/** `connection` from Clients.bullmqConnection() (or createRedis(url, { forBullmq: true })); closed here. */
export function createActionsQueue(config: Pick<Config, 'queuePrefix'>, connection: Redis): ActionsQueue {
  const queue = createQueue<ActionsQueueInput>(config, ACTIONS_QUEUE, connection);
  const replies = createRequestReply(queue, connection);
  return {
    queue,
    replies,
    async close() {
      await replies.close();
      await queue.close();
      await connection.quit().catch(() => {});
    },
  };
}
