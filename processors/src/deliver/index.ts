// The `deliver` worker role: every outbound notification connection (chat, webhook, SMTP, push)
// leaves from here, so a deployment can firewall egress everywhere else. It only sends: one BullMQ
// worker per channel queue (each with its own rate limit) runs the deliveries the deciding roles
// queued, and an admin's test-send (job `test_send`, added at the head of the channel's queue).
//
// A delivery is sent at most once per successful attempt: `beginDelivery` refuses a delivery already
// sent, whoever replays it, and an attempt holds the delivery's row lock from that check until its
// outcome is committed, so a worker paused mid-send past its job lock (a zombie when it wakes) still
// fences the worker that took the stalled job over. A worker killed after the provider accepted a
// message and before the row says `sent` sends it again on retry, with the same delivery id (webhook
// header, e-mail header).
import { DelayedError, UnrecoverableError, type Job, type Worker } from 'bullmq';
import { createPostgres, createWorker, counter, type RoleStarter, type Config, type Pool, type Logger } from '@watchpost/runtime';
import {
  DELIVERY_QUEUES,
  NOTIFY_CHANNELS,
  TEST_SEND_JOB,
  type DeliveryJob,
  type NotifyChannel,
  type TestSendJob,
  type TestSendResult,
} from '@watchpost/schemas';
import {
  beginDelivery,
  channelDefaults,
  descriptorOf,
  finishDelivery,
  loadChannelConfigs,
  type ChannelConfigs,
} from '@watchpost/core/notify';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { loadVapidKeys, type VapidKeys } from '@watchpost/core/devices';
import { DeliveryError } from './errors.ts';
import { providers } from './providers/index.ts';
import type { ProviderEnv } from './providers/provider.ts';
import { render } from './templates.ts';

const delivered = counter('watchpost_notify_delivered_total', 'Notification delivery attempts by outcome', [
  'channel',
  'outcome',
]);
const CONFIG_TTL_MS = 2000;

export interface DeliverDeps {
  pg: Pool;
  /** One client per attempt in flight (concurrency x channels), each holding its delivery's row lock. */
  attempts: Pool;
  /** a delivery reads only the notify section (the role's start reads the rest of Config) */
  config: Pick<Config, 'notify'>;
  log: Logger;
  /** Cached for a moment (deliveries); `fresh` reads the saved values now (test-send after a save). */
  configs(fresh?: boolean): Promise<ChannelConfigs>;
  vapid: () => Promise<VapidKeys>;
}

function providerEnv(deps: DeliverDeps, remember: ProviderEnv['remember'] = async () => {}): ProviderEnv {
  return { pg: deps.pg, vapid: deps.vapid, remember };
}

/** Sends one delivery job; throws (BullMQ retries) on a transient failure, UnrecoverableError on a final one. */
export async function deliverJob(deps: DeliverDeps, job: Job<DeliveryJob>, token?: string): Promise<string> {
  const d = job.data;
  const tx = await deps.attempts.connect();
  let open = false;
  try {
    await tx.query('BEGIN');
    open = true;
    const start = await beginDelivery(tx, d.delivery_id);
    if (!start.go) {
      await tx.query('COMMIT');
      open = false;
      if (start.state === 'busy') {
        // Another worker's attempt is under way (maybe paused mid-send): not an attempt of ours, look again later.
        delivered.inc({ channel: d.channel, outcome: 'busy' });
        await job.moveToDelayed(Date.now() + deps.config.notify.lockMs, token);
        throw new DelayedError();
      }
      delivered.inc({ channel: d.channel, outcome: `skipped_${start.state}` });
      return `skipped: delivery is ${start.state}`;
    }
    let response: string;
    try {
      const configs = await deps.configs();
      const env = providerEnv(deps, async (push_sent) => {
        await job.updateData({ ...job.data, push_sent });
      });
      response = await providers[d.channel].send({ job: d, rendered: render(d.subject, d.rule), configs, env });
    } catch (err) {
      const final = err instanceof DeliveryError ? err.final : false;
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof DeliveryError)) deps.log.error({ err, delivery: d.delivery_id }, 'delivery failed unexpectedly');
      await finishDelivery(tx, d.delivery_id, { ok: false, error: message, final: final || lastAttempt });
      await tx.query('COMMIT');
      open = false;
      delivered.inc({ channel: d.channel, outcome: final ? 'failed_final' : 'failed_retry' });
      if (final) throw new UnrecoverableError(message);
      throw err;
    }
    await finishDelivery(tx, d.delivery_id, { ok: true, response });
    await tx.query('COMMIT');
    open = false;
    delivered.inc({ channel: d.channel, outcome: 'sent' });
    return response;
  } finally {
    if (open) await tx.query('ROLLBACK').catch(() => {});
    tx.release();
  }
}

/** An admin's test-send: every destination of the channel, answers reported (no delivery rows). */
export async function testSend(deps: DeliverDeps, channel: NotifyChannel, by: string, at: string): Promise<TestSendResult> {
  const configs = await deps.configs(true);
  const provider = providers[channel];
  const subject = { kind: 'test' as const, requested_by: by, at };
  const dests = destinationsOf(channel, configs);
  if (dests.length === 0) return { channel, results: [{ destination: '', ok: false, response: 'no destinations configured' }] };
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

/** The two jobs of a channel queue, told apart by name (a delivery's name is its rule). */
function isTestSend(job: Job<DeliveryJob | TestSendJob>): job is Job<TestSendJob> {
  return job.name === TEST_SEND_JOB;
}

function destinationsOf<C extends NotifyChannel>(channel: C, configs: ChannelConfigs): string[] {
  return descriptorOf(channel).destinations(configs[channel]);
}

export const deliverRole: RoleStarter = async ({ config, log, clients }) => {
  // Each channel's rate limit and defaults; a wrong channel variable stops the start.
  const defaults = channelDefaults(config.notify);
  const pg = clients.pg;
  const attempts = createPostgres(
    config.databaseUrl,
    config.notify.concurrency * NOTIFY_CHANNELS.length,
    config.databaseTimeouts,
  );
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
    attempts,
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
  const conns: ReturnType<typeof clients.bullmqConnection>[] = [];
  const workers: Worker<DeliveryJob | TestSendJob, string | TestSendResult>[] = [];
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
    const w = createWorker<DeliveryJob | TestSendJob, string | TestSendResult>(
      config,
      DELIVERY_QUEUES[channel],
      // Any other job of the queue is a delivery (named after its rule).
      (job, token) =>
        isTestSend(job)
          ? testSend(deps, channel, job.data.requested_by, job.data.at)
          : deliverJob(deps, job as Job<DeliveryJob>, token),
      conn,
      { ...workerOpts, limiter: { max: defaults[channel].ratePerSecond, duration: 1000 } },
    );
    w.on('failed', (job, err) => {
      if (!job) return;
      if (job.name === TEST_SEND_JOB) return log.error({ err, channel }, 'test-send failed');
      const data = job.data as DeliveryJob;
      log.warn({ err: err.message, delivery: job.id, channel, attempts: job.attemptsMade }, 'delivery attempt failed');
      // A job that stalled too often (its workers kept dying) fails in BullMQ without running the
      // handler's bookkeeping: its row would stay `sending`, hidden from the dead-deliveries view.
      if (/stalled/i.test(err.message))
        finishDelivery(pg, data.delivery_id, { ok: false, error: err.message, final: true }).catch((e: unknown) =>
          log.error({ err: e, delivery: job.id }, 'could not record the stalled delivery as failed'),
        );
    });
    workers.push(w);
  }
  return {
    checks: { deliver_workers: async () => workers.every((w) => w.isRunning()) },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await Promise.allSettled(conns.map((c) => c.quit()));
      await attempts.end();
    },
  };
};
