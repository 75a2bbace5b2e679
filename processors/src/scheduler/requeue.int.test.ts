// The requeue sweep on the real Postgres and Redis: rows still queued in Postgres whose BullMQ job is
// gone (as after a Redis restarted without its data) get their job back with the same id and data; a
// row with a live job is left alone, a sent or finished row is never queued again; and what it puts
// back is then delivered or run exactly once by the real workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients } from '@watchpost/runtime';
import { decide, enqueueDeliveries, getAction, recordAction, recordDecisions, type DecisionInput } from '@watchpost/core';
import type { NotificationSubject } from '@watchpost/schemas';
import { createTestStores, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import { startDeliverRole, startHttpReceiver, type HttpReceiver } from '@watchpost/testkit/notify';
import { createTestGitRepo, startActionsWorker, type TestGitRepo } from '@watchpost/testkit/actions';
import { closeRequeueQueues, openRequeueQueues, requeueLostJobs, type RequeueQueues } from './requeue.ts';

let stores: TestStores;
let rx: HttpReceiver;
let repo: TestGitRepo;
let clients: Clients;
let queues: RequeueQueues;

beforeAll(async () => {
  rx = await startHttpReceiver();
  repo = createTestGitRepo();
  repo.commit({ README: 'agent\n' });
  stores = await createTestStores(
    testConfig('requeue', {
      NOTIFY_WEBHOOK_URL: `${rx.url}/hook`,
      NOTIFY_WEBHOOK_ALLOW: '127.0.0.1',
      NOTIFY_CHANNELS: 'webhook',
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
    }),
    { kafka: false },
  );
  clients = new Clients(stores.config);
  queues = openRequeueQueues(stores.config, clients.bullmqConnection());
});
afterAll(async () => {
  if (queues) await closeRequeueQueues(queues);
  await clients?.close();
  await rx?.close();
  repo?.close();
  await stores?.drop();
});

const TARGETS = {
  chat: { enabled: true, destinations: [] },
  webhook: { enabled: true, destinations: [{ id: 'default' }] },
  email: { enabled: false, recipients: [] },
  push: { enabled: true, devices: 0 },
};
const subjectOf = (k: string): NotificationSubject => ({ kind: 'login_lockout', username: k, address: '198.51.100.7', at: 't' });

function items(names: string[]): DecisionInput[] {
  return names.map((n) => ({
    subjectKey: `lockout:${n}`,
    subjectKind: 'login_lockout',
    subjectId: n,
    // routed as a report (policy channels): the webhook, whose receiver counts arrivals by delivery id
    decision: decide({ kind: 'daily_report', recipients: [] }, { minSeverity: 'high', channels: ['webhook'] }, TARGETS, {
      overrides: new Map(),
      hidden: new Set(),
    }),
    subject: subjectOf(`lockout:${n}`),
  }));
}

const age = (table: string, column: string, ids: (string | number)[]) =>
  stores.pg.query(`UPDATE ${table} SET ${column} = now() - interval '5 minutes' WHERE id::text = ANY($1)`, [ids.map(String)]);

describe('requeue sweep', () => {
  it('puts back only the lost jobs of unfinished deliveries, which are then sent exactly once', async () => {
    const webhook = queues.deliveries.webhook;
    const rows = await recordDecisions(stores.pg, items(['live', 'sent', 'lost1', 'lost2', 'young']));
    const byName = new Map(rows.map((r) => [r.subject_key.slice('lockout:'.length), r]));
    const id = (n: string) => byName.get(n)!.id;
    // Every job queued, then Redis "forgets" all but one of them.
    await enqueueDeliveries(queues.deliveries, stores.config.notify, rows, subjectOf);
    for (const n of ['sent', 'lost1', 'lost2', 'young']) expect(await webhook.remove(id(n))).toBe(1);
    const liveJob = await webhook.getJob(id('live'));
    // 'sent' was delivered and its job removed on completion: it must never come back.
    await stores.pg.query(`UPDATE notification_deliveries SET state = 'sent', sent_at = now() WHERE id = $1`, [id('sent')]);
    // 'lost2' died mid-send ('sending', no lock held any more).
    await stores.pg.query(`UPDATE notification_deliveries SET state = 'sending' WHERE id = $1`, [id('lost2')]);
    await age('notification_deliveries', 'updated_at', ['live', 'sent', 'lost1', 'lost2'].map(id));

    expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 2, actions: 0 });
    const waiting = await webhook.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(waiting.map((j) => j.id).sort()).toEqual([id('live'), id('lost1'), id('lost2')].sort());
    // The live job is the same one (not replaced), the requeued ones carry the recorded subject.
    expect((await webhook.getJob(id('live')))!.timestamp).toBe(liveJob!.timestamp);
    expect((await webhook.getJob(id('lost1')))!.data).toEqual({
      delivery_id: id('lost1'),
      rule: byName.get('lost1')!.rule,
      channel: 'webhook',
      destination: 'default',
      subject: subjectOf('lockout:lost1'),
    });
    // Idempotent: a second sweep finds nothing to put back.
    expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 0, actions: 0 });

    const deliver = await startDeliverRole(stores.config);
    try {
      await waitFor(
        'three deliveries sent',
        async () =>
          (await stores.pg.query(`SELECT count(*)::int AS n FROM notification_deliveries WHERE state = 'sent'`)).rows[0].n,
        (n) => n === 4,
        30_000,
      );
      // Sent, and their completed jobs gone from Redis as after removeOnComplete: still never requeued.
      for (const n of ['live', 'lost1', 'lost2']) await webhook.remove(id(n));
      await age('notification_deliveries', 'updated_at', ['live', 'lost1', 'lost2'].map(id));
      expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 0, actions: 0 });
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await deliver.close();
    }
    const arrivals = new Map<string, number>();
    for (const r of rx.requests) {
      const d = r.headers['x-watchpost-delivery'] as string;
      arrivals.set(d, (arrivals.get(d) ?? 0) + 1);
    }
    expect(Object.fromEntries(arrivals)).toEqual({ [id('live')]: 1, [id('lost1')]: 1, [id('lost2')]: 1 });
    // The young row (inside the grace period) was left to its queue.
    const young = await stores.pg.query(`SELECT state FROM notification_deliveries WHERE id = $1`, [id('young')]);
    expect(young.rows[0].state).toBe('queued');
  }, 60_000);

  it('puts back the job of a queued action, which the actions worker then runs once', async () => {
    const who = { actor: 'ada', role: 'admin' as const, address: null };
    const plan = { kind: 'git.test' as const, payload: { git_url: repo.url, branch: 'main' } };
    const deadline = new Date(Date.now() + 3600_000);
    // Recorded as the API does, its job lost with Redis before any worker took it.
    const { action: lost, job } = await recordAction(stores.pg, plan, who, deadline);
    const { action: done } = await recordAction(stores.pg, plan, who, deadline);
    await stores.pg.query(`UPDATE actions SET status = 'succeeded', finished_at = now() WHERE id = $1`, [done.id]);
    const { action: young } = await recordAction(stores.pg, plan, who, deadline);
    await age('actions', 'created_at', [lost.id, done.id]);

    expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 0, actions: 1 });
    const back = await queues.actions.getJob(`action-${lost.id}`);
    expect(back!.name).toBe('git.test');
    expect(back!.data).toEqual(job);
    expect(await queues.actions.getJob(`action-${done.id}`)).toBeUndefined();
    expect(await queues.actions.getJob(`action-${young.id}`)).toBeUndefined();
    expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 0, actions: 0 });

    const worker = await startActionsWorker(stores.config);
    try {
      await waitFor(
        'the action finished',
        async () => (await getAction(stores.pg, lost.id))!.status,
        (s) => s === 'succeeded',
        30_000,
      );
      // Finished and its job removed: never put back.
      await queues.actions.remove(`action-${lost.id}`);
      expect(await requeueLostJobs(stores.pg, stores.config.notify, queues)).toEqual({ deliveries: 0, actions: 0 });
    } finally {
      await worker.close();
    }
    const audits = await stores.pg.query(`SELECT count(*)::int AS n FROM audit_log WHERE details->>'action_id' = $1`, [
      String(lost.id),
    ]);
    expect(audits.rows[0].n).toBe(1);
    expect((await getAction(stores.pg, young.id))!.status).toBe('queued');
  }, 60_000);
});
