// Lockout alerts are capped (issue 21): a stranger rotating usernames and addresses makes one lockout
// after another; at most NOTIFY_LOCKOUT_ALERTS_MAX reach chat in the window, the one that reaches the
// cap says so, the rest are recorded as decisions that send nothing, and the next alert after the
// window counts them. Real notify and deliver roles, real Postgres/Redis, a Telegram double.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, createQueue } from '@watchpost/runtime';
import { LOGIN_RATE_LIMITED_JOB, NOTIFICATIONS_QUEUE } from '@watchpost/schemas';
import { waitFor, type TestStores } from '@watchpost/testkit';
import { startNotifyPipeline, startTelegramDouble } from '@watchpost/testkit/notify';

const TOKEN = '222333:lockout-token';
let stores: TestStores;
let telegram: Awaited<ReturnType<typeof startTelegramDouble>>;
let pipeline: Awaited<ReturnType<typeof startNotifyPipeline>>;
let clients: Clients;
let queue: ReturnType<typeof createQueue>;

beforeAll(async () => {
  telegram = await startTelegramDouble(TOKEN);
  pipeline = await startNotifyPipeline('notify_lockout_cap', {
    NOTIFY_TELEGRAM_API_BASE: telegram.url,
    NOTIFY_TELEGRAM_TOKEN: TOKEN,
    NOTIFY_TELEGRAM_CHAT_IDS: '-1009',
    NOTIFY_CHAT_ALLOW: '127.0.0.1',
    NOTIFY_LOCKOUT_ALERTS_MAX: '2',
    NOTIFY_BACKOFF_MS: '100',
  });
  stores = pipeline.stores;
  clients = new Clients(pipeline.config);
  queue = createQueue(pipeline.config, NOTIFICATIONS_QUEUE, clients.bullmqConnection());
}, 60_000);

afterAll(async () => {
  await queue?.close();
  await clients?.close();
  await pipeline?.close();
  await telegram?.close();
});

const lockout = (username: string, address: string) =>
  queue.add(
    LOGIN_RATE_LIMITED_JOB,
    { kind: 'login_rate_limited', channel: 'chat', username, address, at: new Date().toISOString() },
    { jobId: `lockout-${username}` },
  );
const decisions = async () =>
  (
    await stores.pg.query<{ subject_id: string; reason: string; deliveries: number }>(
      `SELECT d.subject_id, d.reason, (SELECT count(*)::int FROM notification_deliveries x WHERE x.subject_key = d.subject_key) AS deliveries
         FROM notification_decisions d WHERE d.subject_kind = 'login_lockout' ORDER BY d.created_at, d.subject_id`,
    )
  ).rows;
/** The lockout messages chat received, as plain text (Telegram gets HTML). */
const lockoutMessages = () =>
  telegram
    .messages()
    .map((m) => ({ text: m.text.replace(/<[^>]+>/g, '') }))
    .filter((m) => m.text.includes('Login locked'));

describe('lockout alerts are capped', () => {
  it('at most N alerts in the window reach chat; the rest are counted and reported with the next alert', async () => {
    // A stranger rotating usernames and addresses: five lockouts, one after another.
    for (let i = 1; i <= 5; i++) {
      await lockout(`victim-${i}`, `198.18.0.${i}`);
      await waitFor(`decision ${i}`, decisions, (d) => d.length === i);
    }
    const rows = await decisions();
    expect(rows.map((r) => [r.subject_id, r.deliveries, r.reason.startsWith('lockout alert cap reached')])).toEqual([
      ['victim-1', 1, false],
      ['victim-2', 1, false],
      ['victim-3', 0, true],
      ['victim-4', 0, true],
      ['victim-5', 0, true],
    ]);
    const sent = await waitFor(
      'two alerts in chat',
      async () => lockoutMessages(),
      (m) => m.length === 2,
    );
    expect(sent[0]!.text).toContain('victim-1');
    expect(sent[0]!.text).not.toContain('Alert cap');
    // The alert that reaches the cap says so.
    expect(sent[1]!.text).toContain('victim-2');
    expect(sent[1]!.text).toMatch(/Alert cap reached: further lockouts until \S+ are recorded/);
    await new Promise((r) => setTimeout(r, 500));
    expect(lockoutMessages()).toHaveLength(2);

    // An hour later (the window has passed): the next lockout is alerted with the count of the silent ones.
    await stores.pg.query(
      `UPDATE notification_decisions SET created_at = created_at - interval '2 hours' WHERE subject_kind = 'login_lockout'`,
    );
    await lockout('victim-6', '198.18.0.6');
    const next = await waitFor(
      'the next alert',
      async () => lockoutMessages(),
      (m) => m.length === 3,
    );
    expect(next[2]!.text).toContain('victim-6');
    expect(next[2]!.text).toMatch(/Not alerted: 3 more lockouts since \S+ \(alert cap/);
    expect(next[2]!.text).not.toContain('Alert cap reached');
  });
});
