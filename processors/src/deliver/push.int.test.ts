// Push delivery over a real socket: a local HTTPS Web Push service checks each request's VAPID JWT,
// decrypts the aes128gcm payload with the test subscription's private key, and answers 201, 429 or
// 410: delivered once per subscription, retried without repeating the ones already reached, a gone
// subscription removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, withTransaction } from '@watchpost/runtime';
import {
  closeDeliveryQueues,
  createDeliveryQueues,
  decide,
  enqueueDeliveries,
  enrollDevice,
  issueEnrollmentCode,
  loadChannelTargets,
  loadSecretsKey,
  loadVapidKeys,
  recordDecisions,
  savePushSubscription,
} from '@watchpost/core';
import type { NotificationSubject } from '@watchpost/schemas';
import { createTestStores, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import {
  startDeliverRole,
  startPushServiceDouble,
  type PushServiceDouble,
  type PushSubscriptionKeys,
} from '@watchpost/testkit/notify';

let stores: TestStores;
let push: PushServiceDouble;
let deliver: { close(): Promise<void> };
let subs: PushSubscriptionKeys[];
let publicKey = '';
const previousTls = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

beforeAll(async () => {
  // The double's certificate is self-signed.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  push = await startPushServiceDouble(() => publicKey);
  stores = await createTestStores(
    testConfig('push_delivery', {
      NOTIFY_CHANNELS: 'push',
      NOTIFY_PUSH_ALLOW: '127.0.0.1',
      NOTIFY_BACKOFF_MS: '100',
      NOTIFY_DELIVERY_ATTEMPTS: '5',
    }),
    { kafka: false },
  );
  const { pg, config } = stores;
  const key = await loadSecretsKey(config.actions.secretsKey, config.stateDir);
  publicKey = (
    await loadVapidKeys(pg, key, { publicKey: undefined, privateKey: undefined, subject: config.devices.vapidSubject })
  ).publicKey;
  const u = await pg.query<{ id: string }>(
    `INSERT INTO users (username, password_hash, role) VALUES ('phone', 'x', 'monitor') RETURNING id`,
  );
  const code = await issueEnrollmentCode(pg, { userId: Number(u.rows[0]!.id), createdBy: 'root', ttlMinutes: 5 });
  const r = await withTransaction(pg, (c) =>
    enrollDevice(c, { code: code.code, deviceUuid: crypto.randomUUID(), name: 'phone', platform: 'android' }),
  );
  if (!r.ok) throw new Error(r.reason);
  // The session the API hands the device at enrollment: pushes go only to devices that hold one.
  await pg.query(
    `INSERT INTO refresh_tokens (token_hash, user_id, family_id, token_version, session_started_at, expires_at, device_id)
     SELECT 'push-test', u.id, gen_random_uuid(), u.token_version, now(), now() + interval '1 day', $2 FROM users u WHERE u.id = $1`,
    [r.device.userId, r.device.id],
  );
  subs = [push.subscribe(), push.subscribe()];
  for (const s of subs) await savePushSubscription(pg, r.device.id, s);
  deliver = await startDeliverRole(config);
}, 60_000);

afterAll(async () => {
  await deliver?.close();
  await push?.close();
  await stores?.drop();
  if (previousTls === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previousTls;
});

const subject = (n: string): NotificationSubject => ({
  kind: 'event',
  event_id: crypto.randomUUID(),
  type: 'ssh.bruteforce.mass',
  severity: 'high',
  hostname: 'web-01',
  title: `Brute force ${n}`,
  summary: 'many failures',
  occurred_at: new Date().toISOString(),
  received_at: new Date().toISOString(),
});

async function notify(s: NotificationSubject & { kind: 'event' }): Promise<string> {
  const { pg, config } = stores;
  const targets = await loadChannelTargets(pg, config.notify);
  const decision = decide(
    { kind: 'event', type: s.type, severity: s.severity },
    { minSeverity: 'high', channels: ['push'] },
    targets,
    {
      overrides: new Map(),
      hidden: new Set(),
    },
  );
  const key = `event:${s.event_id}`;
  const queued = await recordDecisions(pg, [{ subjectKey: key, subjectKind: 'event', subjectId: s.event_id, decision }]);
  const clients = new Clients(config);
  const conn = clients.bullmqConnection();
  const queues = createDeliveryQueues(config, conn);
  await enqueueDeliveries(queues, config.notify, queued, () => s);
  await closeDeliveryQueues(queues);
  await conn.quit();
  await clients.close();
  return queued[0]!.id;
}

const delivery = async (id: string) =>
  (
    await stores.pg.query<{ state: string; attempts: number; response: string | null }>(
      'SELECT state, attempts, response FROM notification_deliveries WHERE id = $1',
      [id],
    )
  ).rows[0];
/** Waits until delivery `id` is sent (every case below ends there; what differs is how it got there). */
const sent = (id: string, what = 'sent', timeoutMs?: number) =>
  waitFor(
    what,
    () => delivery(id),
    (d) => d?.state === 'sent',
    timeoutMs,
  );

describe('push channel', () => {
  it('the policy counts enrolled devices with a subscription', async () => {
    expect((await loadChannelTargets(stores.pg, stores.config.notify)).push.devices).toBe(1);
  });

  it('each subscription gets the encrypted payload once, with VAPID, urgency and TTL by severity', async () => {
    const s = subject('one') as NotificationSubject & { kind: 'event' };
    const id = await notify(s);
    await sent(id);
    const got = push.messages.filter((m) => m.payload.tag === id);
    expect(got.map((m) => m.path).sort()).toEqual(subs.map((x) => new URL(x.endpoint).pathname).sort());
    expect(got[0]).toMatchObject({
      urgency: 'high',
      ttl: '43200',
      topic: id,
      vapid: { aud: push.origin, sub: 'mailto:watchpost@localhost' },
    });
    expect(got[0]!.payload).toMatchObject({
      title: expect.stringContaining('Brute force one'),
      severity: 'high',
      url: `/events/${s.event_id}`,
    });
    expect(push.refused).toEqual([]);
  });

  it('429 on one subscription: retried, the other not sent twice; 410: the subscription is removed', async () => {
    const [a, b] = subs.map((x) => new URL(x.endpoint).pathname) as [string, string];
    push.script.set(a, [429]);
    const s1 = subject('two') as NotificationSubject & { kind: 'event' };
    const id = await notify(s1);
    await sent(id, 'sent after a retry', 20_000);
    expect((await delivery(id))!.attempts).toBe(2);
    const got = push.messages.filter((m) => m.payload.tag === id).map((m) => m.path);
    expect(got.sort()).toEqual([a, b].sort()); // each once

    push.script.set(b, [410]);
    const s2 = subject('three') as NotificationSubject & { kind: 'event' };
    const id2 = await notify(s2);
    await sent(id2);
    expect((await delivery(id2))!.response).toMatch(/1 sent, 1 gone \(removed\)/);
    const left = await stores.pg.query<{ endpoint: string }>('SELECT endpoint FROM push_subscriptions');
    expect(left.rows.map((r) => new URL(r.endpoint).pathname)).toEqual([a]);
  });

  it('a subscription whose key cannot encrypt is refused alone: the others are sent at the first attempt', async () => {
    const dev = await stores.pg.query<{ device_id: number }>('SELECT device_id FROM push_subscriptions LIMIT 1');
    const broken = push.subscribe();
    // stored before registration checked keys: 65 bytes, but not a point on the curve
    broken.keys.p256dh = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    await savePushSubscription(stores.pg, Number(dev.rows[0]!.device_id), broken);
    const s = subject('four') as NotificationSubject & { kind: 'event' };
    const id = await notify(s);
    await sent(id);
    const d = (await delivery(id))!;
    expect(d.attempts).toBe(1);
    expect(d.response).toMatch(/1 sent, 0 gone \(removed\), 1 refused/);
    expect(push.messages.filter((m) => m.payload.tag === id)).toHaveLength(1);
  });
});
