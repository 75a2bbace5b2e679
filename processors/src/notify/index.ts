// The `notify` role: its own consumer group on events.v1 and problems.v1 (both from the end for a new
// group unless NOTIFY_FROM_BEGINNING: a first start never floods chat with last week's events). It decides with the policy
// (core/src/notify/policy.ts), records the decisions and queues one delivery job per (trigger,
// channel, destination) on the channel's BullMQ queue; the `deliver` role sends them. The API's
// login-lockout triggers (BullMQ queue `notifications`) are decided here too (./lockout.ts). Nothing
// here talks to a provider, and nothing in ingest waits for it (spec: ingest rule 6).
import { UnrecoverableError } from 'bullmq';
import { counter, createWorker, type RoleStarter } from '@watchpost/runtime';
import {
  LOGIN_RATE_LIMITED_JOB,
  NOTIFICATIONS_QUEUE,
  parseProblemMessage,
  type EventEnvelope,
  type LoginRateLimitedJob,
  type ProblemMessage,
} from '@watchpost/schemas';
import {
  channelDefaults,
  closeDeliveryQueues,
  createDeliveryQueues,
  loadChannelTargets,
  loadPolicy,
} from '@watchpost/core/notify';
import { typeSettingsCache } from '@watchpost/core/type-settings';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { consumerOptions } from '../kafka/consumer-options.ts';
import { notifyEvents, notifyProblems, type DecideContext } from './decide.ts';
import { notifyLockout } from './lockout.ts';

const queued = counter('watchpost_notify_queued_total', 'Deliveries queued by the notify role', ['input']);
const SETTINGS_TTL_MS = 2000;

export const notifyRole: RoleStarter = async ({ config, log, clients }) => {
  // A wrong channel variable stops the start, not the first notification.
  channelDefaults(config.notify);
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
    ...consumerOptions(config, 'notify'),
    inputs: [
      { topic: config.topics.events, fromBeginning: config.notify.fromBeginning },
      {
        topic: config.topics.problems,
        fromBeginning: config.notify.fromBeginning,
        decode: (value) => ({ ok: true, value: parseProblemMessage(value) }),
      },
    ],
    log,
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

  const triggersConn = clients.bullmqConnection();
  const triggers = createWorker<LoginRateLimitedJob, number>(
    config,
    NOTIFICATIONS_QUEUE,
    async (job) => {
      if (job.name !== LOGIN_RATE_LIMITED_JOB) throw new UnrecoverableError(`unknown notifications job ${job.name}`);
      const n = await notifyLockout(await context(), job.data);
      queued.inc({ input: 'lockouts' }, n);
      return n;
    },
    triggersConn,
    { concurrency: 4 },
  );
  triggers.on('failed', (job, err) => log.error({ err, job: job?.name }, 'notifications job failed'));

  return {
    checks: { notify_consumer: async () => consumer.healthy(), notify_triggers: async () => triggers.isRunning() },
    ready: { notify_consumer: () => consumer.ready() },
    async close() {
      await triggers.close();
      await consumer.stop();
      await closeDeliveryQueues(queues);
      await Promise.allSettled([conn.quit(), triggersConn.quit()]);
    },
  };
};
