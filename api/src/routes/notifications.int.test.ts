// The notification API on the real stores: policy and channel settings (admin only, secrets masked
// and encrypted at rest), test-send through a real deliver role to a Telegram double, explainability
// of events and problems, deliveries and daily reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelDefaults, decide, loadChannelConfigs, loadSecretsKey, recordDecisions, saveChannelConfig } from '@watchpost/core';
import { makeEnvelope } from '@watchpost/testkit';
import { addUser, createApiHarness, insertEnvelopes, login, type ApiHarness } from '@watchpost/testkit/api';
import { startDeliverRole, startHttpReceiver, startTelegramDouble, type HttpReceiver } from '@watchpost/testkit/notify';

const TOKEN = '987654:bot-token-secret';
let h: ApiHarness;
let telegram: Awaited<ReturnType<typeof startTelegramDouble>>;
let hook: HttpReceiver;
let deliver: { close(): Promise<void> };
let admin: Record<string, string>;
let monitor: Record<string, string>;

beforeAll(async () => {
  [telegram, hook] = await Promise.all([startTelegramDouble(TOKEN), startHttpReceiver()]);
  // The doubles listen on loopback: only the environment may allow that (the API's allow lists cannot).
  h = await createApiHarness('api_notify', {
    env: { NOTIFY_MIN_SEVERITY: 'critical', NOTIFY_CHANNELS: 'chat', NOTIFY_CHAT_ALLOW: '127.0.0.1' },
  });
  deliver = await startDeliverRole(h.config);
  const [a, m] = await Promise.all([addUser(h, 'root', 'admin'), addUser(h, 'watcher', 'monitor')]);
  admin = { authorization: `Bearer ${(await login(h, a.username, a.password)).json().access_token}` };
  monitor = { authorization: `Bearer ${(await login(h, m.username, m.password)).json().access_token}` };
}, 60_000);

afterAll(async () => {
  await deliver?.close();
  await h?.close();
  await Promise.all([telegram?.close(), hook?.close()]);
});

const call = (method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) =>
  h.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('notification settings', () => {
  it('policy: environment defaults, admin update, monitor refused, audited', async () => {
    expect((await call('GET', '/settings/notifications/policy', admin)).json()).toEqual({
      min_severity: 'critical',
      channels: ['chat'],
      source: 'environment',
    });
    expect((await call('GET', '/settings/notifications/policy', monitor)).statusCode).toBe(403);
    expect(
      (await call('PUT', '/settings/notifications/policy', monitor, { min_severity: 'info', channels: [] })).statusCode,
    ).toBe(403);
    const bad = await call('PUT', '/settings/notifications/policy', admin, { min_severity: 'urgent', channels: ['pager'] });
    expect(bad.statusCode).toBe(400);
    const put = await call('PUT', '/settings/notifications/policy', admin, {
      min_severity: 'high',
      channels: ['chat', 'webhook'],
    });
    expect(put.json()).toEqual({ min_severity: 'high', channels: ['chat', 'webhook'], source: 'database' });
    const a = await h.deps.pg.query(`SELECT actor, details FROM audit_log WHERE action = 'setting.notify_policy'`);
    expect(a.rows[0]).toMatchObject({ actor: 'root', details: { min_severity: 'high' } });
  });

  it('chat: secrets are write-only, encrypted at rest, masked in views and the audit log', async () => {
    const put = await call('PUT', '/settings/notifications/channels/chat', admin, {
      telegram_api_base: telegram.url,
      telegram_token: TOKEN,
      destinations: [
        { id: 'ops', kind: 'telegram', chat_id: '-100200', routes: [] },
        { id: 'team', kind: 'slack', url: `${hook.url}/hooks/T1/B1/secretpart`, routes: ['ssh-monitor'] },
      ],
    });
    expect(put.statusCode).toBe(200);
    const text = put.body + (await call('GET', '/settings/notifications/channels/chat', admin)).body;
    expect(text).not.toContain('bot-token-secret');
    expect(text).not.toContain('secretpart');
    expect(put.json()).toMatchObject({
      telegram_token_set: true,
      destinations: [
        { id: 'ops', chat_id: '-100200' },
        { id: 'team', url_set: true, routes: ['ssh-monitor'] },
      ],
    });
    const stored = await h.deps.pg.query<{ value: unknown }>(`SELECT value FROM settings WHERE key = 'notify.chat'`);
    expect(JSON.stringify(stored.rows[0]!.value)).not.toContain('bot-token-secret');
    expect(JSON.stringify(stored.rows[0]!.value)).not.toContain('secretpart');
    const audit = await h.deps.pg.query(`SELECT details FROM audit_log WHERE action = 'setting.notify_chat'`);
    expect(JSON.stringify(audit.rows)).not.toContain('bot-token-secret');
    // A slack destination saved again without its URL keeps it; a new one without a URL is refused.
    const keep = await call('PUT', '/settings/notifications/channels/chat', admin, {
      destinations: [
        { id: 'ops', kind: 'telegram', chat_id: '-100200' },
        { id: 'team', kind: 'slack', routes: [] },
      ],
    });
    expect(keep.json()).toMatchObject({ destinations: [{ id: 'ops' }, { id: 'team', url_set: true }] });
    const missing = await call('PUT', '/settings/notifications/channels/chat', admin, {
      destinations: [{ id: 'new', kind: 'slack' }],
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toMatch(/needs url/);
    // The token is bound to the API base it was saved with: another base alone does not get it.
    const moved = await call('PUT', '/settings/notifications/channels/chat', admin, {
      telegram_api_base: 'https://telegram-proxy.example.org',
    });
    expect(moved.json()).toMatchObject({ telegram_token_set: false });
    const back = await call('PUT', '/settings/notifications/channels/chat', admin, { telegram_api_base: telegram.url });
    expect(back.json()).toMatchObject({ telegram_token_set: true });
    expect((await call('GET', '/settings/notifications/channels/email', monitor)).statusCode).toBe(403);
  });

  it("test-send goes through the deliver role and answers each provider's answer", async () => {
    // Chat endpoints pass the SSRF guard too: the loopback doubles are allowed by NOTIFY_CHAT_ALLOW (shown
    // read-only), and an allow list saved through the API cannot add loopback.
    const loopback = await call('PUT', '/settings/notifications/channels/chat', admin, { allow: ['127.0.0.1'] });
    expect(loopback.statusCode).toBe(400);
    expect(loopback.json().error.message).toMatch(/"127\.0\.0\.1" is not inside a private network.*NOTIFY_CHAT_ALLOW/);
    expect((await call('GET', '/settings/notifications/channels/chat', admin)).json()).toMatchObject({
      allow: [],
      allow_environment: ['127.0.0.1'],
    });
    const r = await call('POST', '/settings/notifications/channels/chat/test', admin);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.channel).toBe('chat');
    expect(body.results).toEqual(
      expect.arrayContaining([
        { destination: 'ops', ok: true, response: expect.stringMatching(/^telegram 200 message_id=\d+/) },
        { destination: 'team', ok: true, response: expect.stringMatching(/^webhook 200/) },
      ]),
    );
    expect(telegram.messages().at(-1)).toMatchObject({ chat_id: '-100200', text: expect.stringContaining('Test notification') });
    // A webhook to a loopback address is refused by the SSRF guard, and the answer says so.
    const saved = await call('PUT', '/settings/notifications/channels/webhook', admin, {
      url: `${hook.url}/wh?token=url-token-secret`,
      secret: 'a-long-enough-secret',
    });
    expect(saved.json()).toMatchObject({ url: `${hook.url}/wh?token=url-token-secret`, secret_set: true });
    const logged = await h.deps.pg.query(`SELECT details FROM audit_log WHERE action = 'setting.notify_webhook'`);
    expect(JSON.stringify(logged.rows)).not.toContain('url-token-secret');
    expect(JSON.stringify(logged.rows)).not.toContain('a-long-enough-secret');
    expect(logged.rows.at(-1)?.details).toMatchObject({ url: `${hook.url}/wh?…` });
    const before = hook.requests.length;
    const w = await call('POST', '/settings/notifications/channels/webhook/test', admin);
    expect(w.json().results).toEqual([
      { destination: 'default', ok: false, response: expect.stringMatching(/SSRF guard: 127\.0\.0\.1 is a loopback address/) },
    ]);
    expect(hook.requests.length).toBe(before);
    expect((await call('POST', '/settings/notifications/channels/chat/test', monitor)).statusCode).toBe(403);
  });
});

describe('SSRF allow lists saved through the API (issue 21)', () => {
  it('may name private networks only: loopback, any, link-local, metadata and public entries are refused', async () => {
    for (const entry of [
      '127.0.0.1',
      '::1',
      '0.0.0.0/0',
      '::/0',
      '0.0.0.0',
      '169.254.169.254',
      'fe80::/10',
      '10.0.0.0/7',
      '100.64.0.0/10',
      'fd00:ec2::/32',
      '8.8.8.8',
      'localhost',
    ]) {
      const r = await call('PUT', '/settings/notifications/channels/webhook', admin, { allow: ['10.1.0.0/16', entry] });
      expect(r.statusCode, entry).toBe(400);
      expect(r.json().error.message, entry).toMatch(
        /allow list entry refused: .*only in the environment \(NOTIFY_WEBHOOK_ALLOW\)/,
      );
    }
    const ok = await call('PUT', '/settings/notifications/channels/webhook', admin, {
      allow: ['10.20.0.0/16', '192.168.7.9', 'fd12:3456::/32', 'hooks.internal.example'],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      allow: ['10.20.0.0/16', '192.168.7.9', 'fd12:3456::/32', 'hooks.internal.example'],
      allow_environment: [],
    });
  });

  it('a list stored before (or written around the API) still cannot open loopback: test-send is refused before connecting', async () => {
    for (const [url, allow] of [
      [`${hook.url}/wh`, ['0.0.0.0/0', '127.0.0.1', '::/0']],
      [`${hook.url.replace('127.0.0.1', 'localhost')}/wh`, ['localhost']],
    ] as const) {
      await call('PUT', '/settings/notifications/channels/webhook', admin, { url, allow: [] });
      await h.deps.pg.query(`UPDATE settings SET value = jsonb_set(value, '{allow}', $1::jsonb) WHERE key = 'notify.webhook'`, [
        JSON.stringify(allow),
      ]);
      const before = hook.requests.length;
      const w = await call('POST', '/settings/notifications/channels/webhook/test', admin);
      expect(w.json().results, url).toEqual([
        {
          destination: 'default',
          ok: false,
          response: expect.stringMatching(
            /SSRF guard: .*loopback address \(an allow list saved through the API opens private addresses only/,
          ),
        },
      ]);
      expect(hook.requests.length).toBe(before);
    }
  });
});

describe('explainability', () => {
  it('an event below the minimum: computed now, every channel with its reason', async () => {
    const env = makeEnvelope({ type: 'ssh.login.failed', severity: 'warning' });
    await insertEnvelopes(h.stores.ch, [env]);
    const r = await call('GET', `/notifications/explain?event_id=${env.event.event_id}`, monitor);
    expect(r.statusCode).toBe(200);
    const [d] = r.json().decisions;
    expect(d).toMatchObject({ rule: null, recorded: false, reason: expect.stringMatching(/below the minimum high/) });
    expect(d.routes).toHaveLength(4);
  });

  it('a recorded decision comes with each delivery state', async () => {
    const id = '00000000-0000-4000-8000-0000000000aa';
    const decision = decide(
      { kind: 'event', type: 'rdp.login.success', severity: 'info' },
      { minSeverity: 'info', channels: ['chat', 'email'] },
      {
        chat: { enabled: true, destinations: [{ id: 'ops', routes: [] }] },
        webhook: { enabled: true, destinations: [] },
        email: { enabled: true, recipients: ['alice.oncall@example.org'] },
        push: { enabled: true, devices: 0 },
      },
      { overrides: new Map(), hidden: new Set() },
    );
    await recordDecisions(h.deps.pg, [{ subjectKey: `event:${id}`, subjectKind: 'event', subjectId: id, decision }]);
    await h.deps.pg.query(
      `UPDATE notification_deliveries SET state = 'failed', attempts = 1, last_error = 'SMTP: 550 no such user', response = '550 5.1.1'
        WHERE subject_key = $1 AND channel = 'email'`,
      [`event:${id}`],
    );
    const r = await call('GET', `/notifications/explain?event_id=${id}`, monitor);
    expect(r.statusCode).toBe(200);
    const [d] = r.json().decisions;
    expect(d).toMatchObject({
      rule: 'login_success',
      recorded: true,
      deliveries: expect.arrayContaining([
        expect.objectContaining({ channel: 'chat', destination: 'ops', state: 'queued', attempts: 0 }),
        // a monitor sees that the e-mail failed, not to whom nor the provider's words
        expect.objectContaining({
          channel: 'email',
          destination: '…@example.org',
          state: 'failed',
          last_error: null,
          response: null,
        }),
      ]),
    });
    expect(JSON.stringify(r.json())).not.toContain('alice.oncall');
    const asAdmin = (await call('GET', `/notifications/explain?event_id=${id}`, admin)).json();
    expect(asAdmin.decisions[0].deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ destination: 'alice.oncall@example.org', last_error: 'SMTP: 550 no such user' }),
      ]),
    );
    expect(d.routes.find((x: { channel: string }) => x.channel === 'push')).toMatchObject({ chosen: false });
    expect((await call('GET', '/notifications/explain', monitor)).statusCode).toBe(400);
    expect((await call('GET', `/notifications/explain?problem_id=${id}`, monitor)).statusCode).toBe(404);
    const list = await call('GET', '/notifications/deliveries?state=queued', admin);
    expect(list.json().items.map((x: { subject_key: string }) => x.subject_key)).toContain(`event:${id}`);
    expect((await call('GET', '/notifications/deliveries', monitor)).statusCode).toBe(403);
  });
});

describe('daily reports', () => {
  it('lists and shows past reports to any user', async () => {
    await h.deps.pg.query(
      `INSERT INTO daily_reports (day, timezone, period_start, period_end, figures, html, text)
       VALUES ('2026-11-22', 'UTC', '2026-11-21T08:00Z', '2026-11-22T08:00Z', '{"ssh":{"failed":3}}', '<p>r</p>', 'r')`,
    );
    const list = await call('GET', '/reports/daily', monitor);
    expect(list.json().items).toEqual([
      expect.objectContaining({ day: '2026-11-22', timezone: 'UTC', figures: { ssh: { failed: 3 } } }),
    ]);
    const one = await call('GET', `/reports/daily/${list.json().items[0].id}`, monitor);
    expect(one.json()).toMatchObject({ html: '<p>r</p>', text: 'r', period_end: '2026-11-22T08:00:00.000Z' });
    expect((await call('GET', '/reports/daily/999999', monitor)).statusCode).toBe(404);
  });
});

describe('channel settings edge cases', () => {
  it('hooks from the environment saved from the UI by id keep their URLs; a new SMTP host or a weaker connection does not get the old password', async () => {
    const key = await loadSecretsKey(h.config.actions.secretsKey, h.config.stateDir);
    const env = {
      ...h.config.notify,
      env: { ...h.config.notify.env, NOTIFY_SLACK_WEBHOOK_URLS: 'https://hooks.example.org/services/T1/B1/envsecret' },
    };
    const saved = await h.deps.pg.query<{ value: unknown }>(`SELECT value FROM settings WHERE key = 'notify.chat'`);
    await h.deps.pg.query(`DELETE FROM settings WHERE key = 'notify.chat'`);
    try {
      await saveChannelConfig(
        h.deps.pg,
        key,
        env,
        'chat',
        { destinations: [{ id: 'slack:1', kind: 'slack', routes: ['ssh-monitor'] }] },
        't',
      );
      const chat = (await loadChannelConfigs(h.deps.pg, env, key)).chat;
      expect(chat.destinations).toEqual([
        { id: 'slack:1', kind: 'slack', url: 'https://hooks.example.org/services/T1/B1/envsecret', routes: ['ssh-monitor'] },
      ]);
    } finally {
      await h.deps.pg.query(`DELETE FROM settings WHERE key = 'notify.chat'`);
      if (saved.rows[0])
        await h.deps.pg.query(`INSERT INTO settings (key, value) VALUES ('notify.chat', $1)`, [
          JSON.stringify(saved.rows[0].value),
        ]);
    }

    const email = async () => (await loadChannelConfigs(h.deps.pg, h.config.notify, key)).email;
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { host: 'smtp.a.example.org', password: 'pw-a' }, 't');
    expect(await email()).toMatchObject({ host: 'smtp.a.example.org', password: 'pw-a' });
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { host: 'smtp.a.example.org', port: 2525 }, 't');
    expect((await email()).password).toBe('pw-a'); // same server: kept
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { security: 'tls' }, 't');
    expect((await email()).password).toBe('pw-a'); // still encrypted: kept
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { security: 'none' }, 't');
    expect((await email()).password).toBe(channelDefaults(h.config.notify).email.password); // cleartext: not offered
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { security: 'tls', password: 'pw-a2' }, 't');
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { verify_tls: false }, 't');
    expect((await email()).password).toBe(channelDefaults(h.config.notify).email.password); // unverified server: not offered
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { verify_tls: true, password: 'pw-a' }, 't');
    await saveChannelConfig(h.deps.pg, key, h.config.notify, 'email', { host: 'smtp.b.example.org' }, 't');
    expect(await email()).toMatchObject({
      host: 'smtp.b.example.org',
      password: channelDefaults(h.config.notify).email.password,
    });
  });
});
