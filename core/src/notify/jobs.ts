// Putting deliveries on their channel's BullMQ queue. The job id is the delivery id: while BullMQ
// keeps the job (completed ones for a day), adding it again is a no-op; after that the delivery row
// (`sent`) stops a second send (records.ts).
import type { Queue } from 'bullmq';
import { createQueue, type Config, type Pool, type Redis } from '@watchpost/runtime';
import {
  DELIVERY_QUEUES,
  NOTIFY_CHANNELS,
  type DeliveryJob,
  type NotificationSubject,
  type NotifyChannel,
} from '@watchpost/schemas';
import { recordDecisions, type DecisionInput, type QueuedDelivery } from './records.ts';

export type DeliveryQueues = Record<NotifyChannel, Queue<DeliveryJob>>;

export function createDeliveryQueues(config: Pick<Config, 'queuePrefix'>, connection: Redis): DeliveryQueues {
  return Object.fromEntries(
    NOTIFY_CHANNELS.map((c) => [c, createQueue<DeliveryJob>(config, DELIVERY_QUEUES[c], connection)]),
  ) as DeliveryQueues;
}

export async function closeDeliveryQueues(q: DeliveryQueues): Promise<void> {
  await Promise.all(Object.values(q).map((x) => x.close()));
}

export async function enqueueDeliveries(
  queues: DeliveryQueues,
  notify: Pick<Config['notify'], 'attempts' | 'backoffMs'>,
  rows: QueuedDelivery[],
  subjectOf: (subjectKey: string) => NotificationSubject,
): Promise<void> {
  const byChannel = new Map<NotifyChannel, QueuedDelivery[]>();
  for (const r of rows) byChannel.set(r.channel, [...(byChannel.get(r.channel) ?? []), r]);
  await Promise.all(
    [...byChannel].map(([channel, list]) =>
      queues[channel].addBulk(
        list.map((r) => ({
          name: r.rule,
          data: { delivery_id: r.id, rule: r.rule, channel, destination: r.destination, subject: subjectOf(r.subject_key) },
          opts: {
            jobId: r.id,
            attempts: notify.attempts,
            backoff: { type: 'exponential', delay: notify.backoffMs },
            removeOnComplete: { age: 86_400, count: 100_000 },
            // Dead jobs stay visible (BullMQ's failed set, and the delivery row says `failed`).
            removeOnFail: { age: 7 * 86_400 },
          },
        })),
      ),
    ),
  );
}

/**
 * Records the decisions (and their deliveries) of a batch, then queues every delivery not finished yet,
 * each job carrying its subject. Returns the number queued. The notify role's events and problems and
 * the scheduler's daily report go through it.
 */
export async function recordAndEnqueue(
  ctx: { pg: Pool; queues: DeliveryQueues; notify: Pick<Config['notify'], 'attempts' | 'backoffMs'> },
  items: DecisionInput[],
  subjects: Map<string, NotificationSubject>,
): Promise<number> {
  if (items.length === 0) return 0;
  const queued = await recordDecisions(
    ctx.pg,
    items.map((i) => ({ ...i, subject: subjects.get(i.subjectKey) })),
  );
  await enqueueDeliveries(ctx.queues, ctx.notify, queued, (k) => subjects.get(k)!);
  return queued.length;
}
