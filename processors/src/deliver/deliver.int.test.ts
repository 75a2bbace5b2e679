// Notifications end to end on the real stack: events and problems on Kafka -> notify role (policy,
// decisions in Postgres, one BullMQ job per delivery) -> deliver role -> real protocol peers on local
// sockets: a webhook receiver checking the HMAC signature, a Telegram Bot API double, a
// Slack-compatible hook, an SMTP server.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, Clients } from '@watchpost/runtime';
import {
  encodeEnvelope,
  LOGIN_RATE_LIMITED_JOB,
  NOTIFICATIONS_QUEUE,
  problemMessage,
  type EventEnvelope,
  type WebhookBodyV1,
} from '@watchpost/schemas';
import { makeEnvelope, produce, waitFor, type TestStores } from '@watchpost/testkit';
import {
  startHttpReceiver,
  startNotifyPipeline,
  startSmtpDouble,
  startTelegramDouble,
  type HttpReceiver,
  type SmtpDouble,
} from '@watchpost/testkit/notify';

const TOKEN = '123456:test-token';
const SECRET = 'webhook-signing-secret';
let stores: TestStores;
let webhook: HttpReceiver;
let slack: HttpReceiver;
let telegram: Awaited<ReturnType<typeof startTelegramDouble>>;
let smtp: SmtpDouble;
let pipeline: Awaited<ReturnType<typeof startNotifyPipeline>>;

beforeAll(async () => {
  [webhook, slack, telegram, smtp] = await Promise.all([
    startHttpReceiver(),
    startHttpReceiver(),
    startTelegramDouble(TOKEN),
    startSmtpDouble(),
  ]);
  pipeline = await startNotifyPipeline('notify_e2e', {
    NOTIFY_MIN_SEVERITY: 'high',
    NOTIFY_CHANNELS: 'chat,webhook,email',
    NOTIFY_FROM_BEGINNING: 'true',
    NOTIFY_TELEGRAM_API_BASE: telegram.url,
    NOTIFY_TELEGRAM_TOKEN: TOKEN,
    NOTIFY_TELEGRAM_CHAT_IDS: '-1001',
    NOTIFY_SLACK_WEBHOOK_URLS: `${slack.url}/hooks/T000/B000/xyz`,
    NOTIFY_WEBHOOK_URL: `${webhook.url}/hook`,
    NOTIFY_WEBHOOK_SECRET: SECRET,
    NOTIFY_WEBHOOK_ALLOW: '127.0.0.1',
    NOTIFY_CHAT_ALLOW: '127.0.0.1',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_SECURITY: 'none',
    SMTP_FROM: 'watchpost@example.org',
    NOTIFY_EMAIL_RECIPIENTS: 'oncall@example.org',
    NOTIFY_BACKOFF_MS: '100',
    NOTIFY_DELIVERY_ATTEMPTS: '4',
  });
  stores = pipeline.stores;
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
  await Promise.all([webhook?.close(), slack?.close(), telegram?.close(), smtp?.close()]);
});

const deliveries = async (subjectKey: string) =>
  (
    await stores.pg.query<{ channel: string; destination: string; state: string; attempts: number; last_error: string | null }>(
      'SELECT channel, destination, state, attempts, last_error FROM notification_deliveries WHERE subject_key = $1 ORDER BY channel, destination',
      [subjectKey],
    )
  ).rows;
const allSent = (rows: { state: string }[]) => rows.length > 0 && rows.every((r) => r.state === 'sent');
const bodiesFor = (rx: HttpReceiver, needle: string) => rx.requests.filter((r) => r.body.includes(needle));
/** Puts events on the test's events topic as ingest does, keyed by their host unless `key` says otherwise. */
const publish = (envs: EventEnvelope[], key?: string) =>
  produce(
    stores.config,
    stores.config.topics.events,
    envs.map((e) => ({ key: key ?? e.event.host.hostname, value: encodeEnvelope(e) })),
  );
/** Waits until the event's webhook delivery is `state`; returns all the event's deliveries. */
const webhookDelivery = (what: string, env: EventEnvelope, state: 'sent' | 'failed') =>
  waitFor(
    what,
    () => deliveries(`event:${env.event.event_id}`),
    (r) => r.some((x) => x.channel === 'webhook' && x.state === state),
  );

describe('notifications', () => {
  it('a high event reaches every policy channel once: signed webhook, Telegram, Slack hook, e-mail with both parts', async () => {
    const env = makeEnvelope({ type: 'ssh.bruteforce.mass', severity: 'high', title: 'Mass brute force <on> web-01' });
    const id = env.event.event_id;
    await publish([env]);
    const rows = await waitFor(
      'deliveries sent',
      () => deliveries(`event:${id}`),
      (r) => r.length === 4 && allSent(r),
    );
    expect(rows.map((r) => `${r.channel}:${r.destination}`)).toEqual([
      'chat:slack:1',
      'chat:telegram:-1001',
      'email:oncall@example.org',
      'webhook:default',
    ]);

    const [hook] = bodiesFor(webhook, id);
    const body = JSON.parse(hook!.body) as WebhookBodyV1;
    expect(body).toMatchObject({
      version: 1,
      rule: 'min_severity',
      kind: 'event',
      subject: { event_id: id, severity: 'high', type: 'ssh.bruteforce.mass' },
    });
    const ts = hook!.headers['x-watchpost-timestamp'] as string;
    const expected = `v1=${createHmac('sha256', SECRET).update(`${ts}.${hook!.body}`).digest('hex')}`;
    expect(hook!.headers['x-watchpost-signature']).toBe(expected);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    expect(hook!.headers['x-watchpost-delivery']).toBe(body.delivery_id);

    const tg = telegram.messages().find((m) => m.text.includes(id));
    expect(tg).toMatchObject({ chat_id: '-1001', parse_mode: 'HTML' });
    expect(tg!.text).toContain('Mass brute force &lt;on&gt; web-01'); // escaped for Telegram's HTML mode
    const sl = JSON.parse(bodiesFor(slack, id)[0]!.body) as { text: string };
    expect(sl.text).toContain('Mass brute force &lt;on&gt; web-01');

    const mail = await waitFor('mail', async () => smtp.mails.find((m) => m.text?.includes(id)), Boolean);
    expect(mail!.subject).toContain('Mass brute force <on> web-01');
    expect(mail!.html).toContain('Mass brute force &lt;on&gt; web-01');
    expect(mail!.text).toContain('Severity: high');
    expect((mail!.to as { text: string }).text).toBe('oncall@example.org');
    // the delivery id as Message-ID: a repeat after a crash carries the same one
    expect(mail!.messageId).toBe(`<${mail!.headers.get('x-watchpost-delivery') as string}@watchpost.invalid>`);

    // The same event again (an agent retry that got past ingest, a replay): nothing more is sent.
    await publish([env]);
    const marker = makeEnvelope({ type: 'ssh.bruteforce.mass', severity: 'critical' });
    await publish([marker], env.event.host.hostname);
    await waitFor('the marker after the replay', () => deliveries(`event:${marker.event.event_id}`), allSent);
    expect(bodiesFor(webhook, id)).toHaveLength(1);
    expect(telegram.messages().filter((m) => m.text.includes(id))).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.text?.includes(id))).toHaveLength(1);
  });

  it('rule 3: an info login success goes to chat only; a warning failure goes nowhere', async () => {
    const ok = makeEnvelope({ type: 'rdp.login.success', severity: 'info', title: 'RDP login alice' });
    const fail = makeEnvelope({ type: 'ssh.login.failed', severity: 'warning' });
    await publish([ok, fail]);
    const rows = await waitFor(
      'chat deliveries',
      () => deliveries(`event:${ok.event.event_id}`),
      (r) => r.length === 2 && allSent(r),
    );
    expect(rows.map((r) => r.channel)).toEqual(['chat', 'chat']);
    expect(await deliveries(`event:${fail.event.event_id}`)).toEqual([]);
    const decision = await stores.pg.query('SELECT 1 FROM notification_decisions WHERE subject_key = $1', [
      `event:${fail.event.event_id}`,
    ]);
    expect(decision.rows).toHaveLength(0);
  });

  it('a new problem from problems.v1 is notified once per message id', async () => {
    const m = problemMessage('problem.opened', {
      id: '7b0c9a0e-3c1e-4a57-9d59-8d1f0d4bb001',
      fingerprint: 'fp',
      host: 'db-01',
      type: 'ssh.bruteforce.mass',
      rule: 'severity',
      title: 'Brute force on db-01',
      severity: 'critical',
      rdg_flap: false,
      created_at: new Date().toISOString(),
      details: {},
    });
    const value = JSON.stringify(m);
    await produce(stores.config, stores.config.topics.problems, [
      { key: 'db-01', value },
      { key: 'db-01', value },
    ]);
    const rows = await waitFor(
      'problem deliveries',
      () => deliveries(`problem:${m.message_id}`),
      (r) => r.length === 4 && allSent(r),
    );
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    expect(bodiesFor(webhook, m.problem.id)).toHaveLength(1);
  });

  it('a provider answering 500 then 200 gets the message once; a 400 is not retried', async () => {
    webhook.script = [500, 200];
    const a = makeEnvelope({ type: 'privilege.sudo.command', severity: 'critical' });
    await publish([a], 'h');
    const rows = await webhookDelivery('retried delivery', a, 'sent');
    expect(rows.find((r) => r.channel === 'webhook')).toMatchObject({ state: 'sent', attempts: 2 });
    expect(bodiesFor(webhook, a.event.event_id)).toHaveLength(2); // one 500, one 200: delivered once

    webhook.script = [400];
    const b = makeEnvelope({ type: 'privilege.sudo.command', severity: 'critical' });
    await publish([b], 'h');
    const failed = await webhookDelivery('final failure', b, 'failed');
    expect(failed.find((r) => r.channel === 'webhook')).toMatchObject({
      state: 'failed',
      attempts: 1,
      last_error: expect.stringMatching(/answered 400/),
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(bodiesFor(webhook, b.event.event_id)).toHaveLength(1);
  });

  it('hostile values that pass the schema (NUL, lone surrogates, 100 KB route) never stop the notify role', async () => {
    const nasty = makeEnvelope({
      type: 'agent.lifecycle',
      severity: 'critical',
      title: 'agent \u0000 stopped \ud800',
      summary: 'x'.repeat(8000),
      details: { chat_route: `team\u0000\udc00${'r'.repeat(100_000)}` },
    });
    const after = makeEnvelope({ type: 'ssh.bruteforce.mass', severity: 'critical' });
    await publish([nasty, after], 'h');
    await waitFor(
      'the next event delivered',
      () => deliveries(`event:${after.event.event_id}`),
      (r) => r.length === 4 && allSent(r),
    );
    const rows = await deliveries(`event:${nasty.event.event_id}`);
    expect(rows.map((r) => r.channel)).toEqual(['chat', 'chat', 'email', 'webhook']);
    const d = await stores.pg.query<{ reason: string }>('SELECT reason FROM notification_decisions WHERE subject_key = $1', [
      `event:${nasty.event.event_id}`,
    ]);
    expect(d.rows[0]!.reason).toContain('team\ufffd\ufffd');
  });

  it('a message too long for Telegram goes as plain text within its limit, not as HTML cut mid-entity', async () => {
    const long = makeEnvelope({
      type: 'ssh.bruteforce.mass',
      severity: 'critical',
      title: 'very long <summary> & more',
      summary: '<&>"'.repeat(2000),
    });
    await publish([long], 'h');
    const id = long.event.event_id;
    await waitFor('delivered', () => deliveries(`event:${id}`), allSent);
    const tg = telegram.messages().filter((m) => m.text.includes('very long'));
    expect(tg).toHaveLength(1);
    expect(tg[0]!.parse_mode).toBeUndefined();
    expect(tg[0]!.text.length).toBeLessThanOrEqual(4096);
    expect(tg[0]!.text).toContain('very long <summary> & more');
  });

  it('the login lockout alert the API queues goes to chat', async () => {
    const clients = new Clients(stores.config);
    const conn = clients.bullmqConnection();
    const q = createQueue(stores.config, NOTIFICATIONS_QUEUE, conn);
    try {
      const at = new Date().toISOString();
      await q.add(LOGIN_RATE_LIMITED_JOB, {
        kind: 'login_rate_limited',
        channel: 'chat',
        username: 'mallory',
        address: '198.51.100.9',
        at,
      });
      await waitFor(
        'lockout in chat',
        async () => telegram.messages().filter((m) => m.text.includes('mallory')),
        (x) => x.length === 1,
      );
      expect(telegram.messages().find((m) => m.text.includes('mallory'))!.text).toContain('198.51.100.9');
      await waitFor(
        'lockout in slack',
        async () => bodiesFor(slack, 'mallory'),
        (x) => x.length === 1,
      );
      expect(bodiesFor(webhook, 'mallory')).toHaveLength(0);
    } finally {
      await q.close();
      await conn.quit();
      await clients.close();
    }
  });
});
