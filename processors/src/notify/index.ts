// The `notify` role: its own consumer group on events.v1 and problems.v1 (both from the end for a new
// group unless NOTIFY_FROM_BEGINNING: a first start never floods chat with last week's events). It decides with the policy
// (core/src/notify/policy.ts), records the decisions and queues one delivery job per (trigger,
// channel, destination) on the channel's BullMQ queue; the `deliver` role sends them. Nothing here
// talks to a provider, and nothing in ingest waits for it (spec: ingest rule 6).
import { counter, type RoleStarter } from '@watchpost/runtime';
import { parseProblemMessage, type EventEnvelope, type ProblemMessage } from '@watchpost/schemas';
import { closeDeliveryQueues, createDeliveryQueues, loadChannelTargets, loadPolicy, typeSettingsCache } from '@watchpost/core';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { notifyEvents, notifyProblems, type DecideContext } from './decide.ts';

const queued = counter('watchpost_notify_queued_total', 'Deliveries queued by the notify role', ['input']);
const SETTINGS_TTL_MS = 2000;

export const notifyRole: RoleStarter = async ({ config, log, clients, fatal }) => {
  const pg = clients.pg;
  const conn = clients.bullmqConnection();
  const queues = createDeliveryQueues(config, conn);
  const typeSettings = typeSettingsCache(pg, SETTINGS_TTL_MS);
  let cached: { at: number; value: Pick<DecideContext, 'policy' | 'targets'> } | null = null;
  const context = async (): Promise<DecideContext> => {
    if (!cached || Date.now() - cached.at > SETTINGS_TTL_MS) {
      const [policy, targets] = await Promise.all([loadPolicy(pg, config.notify), loadChannelTargets(pg, config.notify)]);
      cached = { at: Date.now(), value: { policy, targets } };
    }
    return { pg, queues, notify: config.notify, ...cached.value, typeSettings: await typeSettings() };
  };

  const consumer = await startBatchConsumer<EventEnvelope | ProblemMessage | null>({
    kafka: clients.kafka,
    groupId: config.consumerGroups.notify,
    inputs: [
      { topic: config.topics.events, fromBeginning: config.notify.fromBeginning },
      {
        topic: config.topics.problems,
        fromBeginning: config.notify.fromBeginning,
        decode: (value) => ({ ok: true, value: parseProblemMessage(value) }),
      },
    ],
    deadLetterTopic: config.topics.deadLetter,
    name: 'notify',
    maxBatchSize: 1000,
    maxBatchMs: 20,
    maxBatchBytes: config.consumerBatchMaxBytes,
    log,
    onFatal: (err) => fatal?.('notify consumer crashed', err),
    async handle(batch) {
      const ctx = await context();
      if (batch[0]?.topic === config.topics.problems) {
        const messages = batch.map((b) => b.envelope as ProblemMessage | null).filter((m): m is ProblemMessage => m !== null);
        queued.inc({ input: 'problems' }, await notifyProblems(ctx, messages));
        return;
      }
      queued.inc(
        { input: 'events' },
        await notifyEvents(
          ctx,
          batch.map((b) => b.envelope as EventEnvelope),
        ),
      );
    },
  });

  return {
    checks: { notify_consumer: async () => consumer.healthy() },
    ready: { notify_consumer: () => consumer.ready() },
    async close() {
      await consumer.stop();
      await closeDeliveryQueues(queues);
      await conn.quit().catch(() => undefined);
    },
  };
};
