// The `deliver` worker role: every outbound notification connection (chat, webhook, SMTP, push)
// leaves from here, so a deployment can firewall egress everywhere else. One BullMQ worker per
// channel queue (each with its own rate limit), plus the `notifications` queue for triggers that do
// not come from Kafka: the API's login-lockout alert and an admin's test-send.
//
// A delivery is sent at most once per successful attempt: `beginDelivery` refuses a delivery already
// sent, whoever replays it. A worker killed after the provider accepted a message and before the row
// says `sent` sends it again on retry, with the same delivery id (webhook header, e-mail header).
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import { createWorker, counter, type RoleStarter, type Config, type Pool, type Logger } from '@watchpost/runtime';
import {
  DELIVERY_QUEUES,
  LOGIN_RATE_LIMITED_JOB,
  NOTIFICATIONS_QUEUE,
  NOTIFY_CHANNELS,
  type DeliveryJob,
  type NotificationsQueueJob,
  type NotifyChannel,
  type TestSendResult,
} from '@watchpost/schemas';
import {
  beginDelivery,
  closeDeliveryQueues,
  createDeliveryQueues,
  decide,
  finishDelivery,
  loadChannelConfigs,
  loadChannelTargets,
  loadPolicy,
  loadSecretsKey,
  NO_TYPE_SETTINGS,
  pgSafeKey,
  loadVapidKeys,
  type VapidKeys,
  type ChannelConfigs,
  type DeliveryQueues,
} from '@watchpost/core';
import { DeliveryError } from './errors.ts';
import { providers } from './providers/index.ts';
import type { ProviderEnv } from './providers/provider.ts';
import { render } from './templates.ts';
import { record } from '../notify/decide.ts';

const delivered = counter('watchpost_notify_delivered_total', 'Notification delivery attempts by outcome', [
  'channel',
  'outcome',
]);
const CONFIG_TTL_MS = 2000;

export interface DeliverDeps {
  pg: Pool;
  config: Config;
  log: Logger;
  /** Cached for a moment (deliveries); `fresh` reads the saved values now (test-send after a save). */
  configs(fresh?: boolean): Promise<ChannelConfigs>;
  vapid: () => Promise<VapidKeys>;
}

function providerEnv(deps: DeliverDeps, remember: ProviderEnv['remember'] = async () => {}): ProviderEnv {
  return { pg: deps.pg, vapid: deps.vapid, pushAllow: deps.config.notify.pushAllow, remember };
}

/** Sends one delivery job; throws (BullMQ retries) on a transient failure, UnrecoverableError on a final one. */
export async function deliverJob(deps: DeliverDeps, job: Job<DeliveryJob>): Promise<string> {
  const d = job.data;
  const start = await beginDelivery(deps.pg, d.delivery_id);
  if (!start.go) {
    delivered.inc({ channel: d.channel, outcome: `skipped_${start.state}` });
    return `skipped: delivery is ${start.state}`;
  }
  try {
    const configs = await deps.configs();
    const env = providerEnv(deps, async (push_sent) => {
      await job.updateData({ ...job.data, push_sent });
    });
    const response = await providers[d.channel].send({ job: d, rendered: render(d.subject, d.rule), configs, env });
    await finishDelivery(deps.pg, d.delivery_id, { ok: true, response });
    delivered.inc({ channel: d.channel, outcome: 'sent' });
    return response;
  } catch (err) {
    const final = err instanceof DeliveryError ? err.final : false;
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const message = err instanceof Error ? err.message : String(err);
    if (!(err instanceof DeliveryError)) deps.log.error({ err, delivery: d.delivery_id }, 'delivery failed unexpectedly');
    await finishDelivery(deps.pg, d.delivery_id, { ok: false, error: message, final: final || lastAttempt });
    delivered.inc({ channel: d.channel, outcome: final ? 'failed_final' : 'failed_retry' });
    if (final) throw new UnrecoverableError(message);
    throw err;
  }
}

/** An admin's test-send: every destination of the channel, answers reported (no delivery rows). */
export async function testSend(deps: DeliverDeps, channel: NotifyChannel, by: string, at: string): Promise<TestSendResult> {
  const configs = await deps.configs(true);
  const provider = providers[channel];
  const subject = { kind: 'test' as const, requested_by: by, at };
  const dests = provider.destinations(configs);
  if (dests.length === 0)
    return {
      channel,
      results: [{ destination: '', ok: false, response: channel === 'push' ? 'no devices' : 'no destinations configured' }],
    };
  const results = await Promise.all(
    dests.map(async (destination) => {
      try {
        const response = await provider.send({
          job: { delivery_id: `test-${Date.now()}`, rule: 'test', destination, subject },
          rendered: render(subject, 'test'),
          configs,
          env: providerEnv(deps),
        });
        return { destination, ok: true, response };
      } catch (err) {
        return { destination, ok: false, response: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  return { channel, results };
}

export const deliverRole: RoleStarter = async ({ config, log, clients }) => {
  const pg = clients.pg;
  const key = await loadSecretsKey(config.actions.secretsKey, config.stateDir);
  let cached: { at: number; value: ChannelConfigs } | null = null;
  let vapid: Promise<VapidKeys> | undefined;
  const deps: DeliverDeps = {
    vapid: () =>
      (vapid ??= loadVapidKeys(pg, key, {
        publicKey: config.devices.vapidPublicKey,
        privateKey: config.devices.vapidPrivateKey,
        subject: config.devices.vapidSubject,
      }).catch((err: unknown) => {
        vapid = undefined;
        throw err;
      })),
    pg,
    config,
    log,
    async configs(fresh = false) {
      if (fresh || !cached || Date.now() - cached.at > CONFIG_TTL_MS)
        cached = { at: Date.now(), value: await loadChannelConfigs(pg, config.notify, key) };
      return cached.value;
    },
  };
  // The VAPID keys exist from the first start, so devices can read the public key before any push.
  deps.vapid().catch((err: unknown) => log.warn({ err }, 'VAPID keys not ready yet; generated on first use'));
  const queueConn = clients.bullmqConnection();
  const queues: DeliveryQueues = createDeliveryQueues(config, queueConn);
  const conns = [queueConn];
  const workers: Worker[] = [];
  const workerOpts = {
    concurrency: config.notify.concurrency,
    // A killed worker's job is handed to another one after its lock expires.
    lockDuration: config.notify.lockMs,
    stalledInterval: Math.max(1000, Math.floor(config.notify.lockMs / 2)),
    maxStalledCount: 5,
  };
  for (const channel of NOTIFY_CHANNELS) {
    const conn = clients.bullmqConnection();
    conns.push(conn);
    const w = createWorker<DeliveryJob, string>(config, DELIVERY_QUEUES[channel], (job) => deliverJob(deps, job), conn, {
      ...workerOpts,
      limiter: { max: config.notify.ratePerSecond[channel], duration: 1000 },
    });
    w.on('failed', (job, err) => {
      log.warn({ err: err.message, delivery: job?.id, channel, attempts: job?.attemptsMade }, 'delivery attempt failed');
      // A job that stalled too often (its workers kept dying) fails in BullMQ without running the
      // handler's bookkeeping: its row would stay `sending`, hidden from the dead-deliveries view.
      if (job && /stalled/i.test(err.message))
        finishDelivery(pg, job.data.delivery_id, { ok: false, error: err.message, final: true }).catch((e: unknown) =>
          log.error({ err: e, delivery: job.id }, 'could not record the stalled delivery as failed'),
        );
    });
    workers.push(w);
  }
  const triggersConn = clients.bullmqConnection();
  conns.push(triggersConn);
  const triggers = createWorker<NotificationsQueueJob, unknown>(
    config,
    NOTIFICATIONS_QUEUE,
    async (job) => {
      const d = job.data;
      if (d.kind === 'test_send') return testSend(deps, d.channel, d.requested_by, d.at);
      if (job.name !== LOGIN_RATE_LIMITED_JOB) throw new UnrecoverableError(`unknown notifications job ${job.name}`);
      const [policy, targets] = await Promise.all([loadPolicy(pg, config.notify), loadChannelTargets(pg, config.notify)]);
      const decision = decide({ kind: 'login_lockout' }, policy, targets, NO_TYPE_SETTINGS);
      const subjectKey = pgSafeKey(`lockout:${d.username}:${d.address}:${d.at}`);
      return record(
        { pg, queues, notify: config.notify },
        [{ subjectKey, subjectKind: 'login_lockout', subjectId: d.username, decision }],
        new Map([[subjectKey, { kind: 'login_lockout' as const, username: d.username, address: d.address, at: d.at }]]),
      );
    },
    triggersConn,
    { concurrency: 4 },
  );
  triggers.on('failed', (job, err) => log.error({ err, job: job?.name }, 'notifications job failed'));
  workers.push(triggers as unknown as Worker);
  return {
    checks: { deliver_workers: async () => workers.every((w) => w.isRunning()) },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await closeDeliveryQueues(queues);
      await Promise.allSettled(conns.map((c) => c.quit()));
    },
  };
};
