// Each channel reads its own environment defaults from the environment the config was loaded from; a
// wrong value is refused with a message naming the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@watchpost/runtime';
import { NOTIFY_CHANNELS } from '@watchpost/schemas';
import { adminAllowRefusal, adminMayOpen, CHANNEL_DESCRIPTORS, channelDefaults, checkAdminAllowList } from './index.ts';

describe('channel descriptors', () => {
  it('one per channel name, each under its own name', () => {
    expect(Object.keys(CHANNEL_DESCRIPTORS)).toEqual([...NOTIFY_CHANNELS]);
    for (const c of NOTIFY_CHANNELS) expect(CHANNEL_DESCRIPTORS[c].channel).toBe(c);
  });

  it('documented defaults with an empty environment; each channel reads its variables', () => {
    expect(channelDefaults(loadConfig({}).notify)).toMatchObject({
      chat: { telegramApiBase: 'https://api.telegram.org', telegramChatIds: [], allow: [], ratePerSecond: 20 },
      webhook: { url: undefined, timeoutMs: 5000, ratePerSecond: 200 },
      email: { port: 587, security: 'starttls', from: 'watchpost@localhost', verifyTls: true, ratePerSecond: 10 },
      push: { allow: [], ratePerSecond: 100 },
    });
    const d = channelDefaults(
      loadConfig({
        NOTIFY_TELEGRAM_CHAT_IDS: '-1001, -1002',
        NOTIFY_SLACK_WEBHOOK_URLS: 'https://hooks.example.org/a',
        NOTIFY_CHAT_ALLOW: '10.0.0.0/8',
        NOTIFY_CHAT_RATE_PER_SECOND: '5',
        NOTIFY_WEBHOOK_URL: 'https://hook.example.org/x',
        SMTP_SECURITY: 'tls',
        NOTIFY_EMAIL_RECIPIENTS: 'a@example.org,b@example.org',
        NOTIFY_PUSH_ALLOW: '127.0.0.1',
      }).notify,
    );
    expect(d.chat).toMatchObject({
      telegramChatIds: ['-1001', '-1002'],
      slackWebhookUrls: ['https://hooks.example.org/a'],
      allow: ['10.0.0.0/8'],
      ratePerSecond: 5,
    });
    expect(d.webhook.url).toBe('https://hook.example.org/x');
    expect(d.email).toMatchObject({ security: 'tls', port: 465, recipients: ['a@example.org', 'b@example.org'] });
    expect(d.push.allow).toEqual(['127.0.0.1']);
  });

  it("e-mail: the SSRF guard's environment list is NOTIFY_EMAIL_ALLOW plus SMTP_HOST (the operator's own server)", () => {
    const plain = { encrypt: (_f: string, v: string) => v, decrypt: (_f: string, v: string) => v };
    expect(channelDefaults(loadConfig({}).notify).email.allow).toEqual([]);
    const d = channelDefaults(loadConfig({ SMTP_HOST: 'localhost', NOTIFY_EMAIL_ALLOW: '127.0.0.2, 10.9.0.0/16' }).notify).email;
    expect(d.allow).toEqual(['127.0.0.2', '10.9.0.0/16', 'localhost']);
    // A server an admin saves is checked against the same list: it does not join it.
    expect(CHANNEL_DESCRIPTORS.email.config({ host: 'relay.example.org' }, d, plain).allow).toEqual({
      environment: ['127.0.0.2', '10.9.0.0/16', 'localhost'],
      admin: [],
      variable: 'NOTIFY_EMAIL_ALLOW',
    });
  });

  it.each([
    ['NOTIFY_TELEGRAM_API_BASE', 'ftp://x'],
    ['NOTIFY_SLACK_WEBHOOK_URLS', 'https://ok.example.org/a,not a url'],
    ['NOTIFY_WEBHOOK_URL', 'nope'],
    ['NOTIFY_WEBHOOK_TIMEOUT_MS', '5'],
    ['SMTP_SECURITY', 'ssl'],
    ['SMTP_PORT', '70000'],
    ['SMTP_VERIFY_TLS', 'maybe'],
    ['NOTIFY_PUSH_RATE_PER_SECOND', '0'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    let err: unknown;
    try {
      channelDefaults(loadConfig({ [name]: value }).notify);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(name);
    expect((err as Error).message).toContain(name);
  });
});

describe('allow lists saved through the API (issue 21)', () => {
  it.each([
    '10.0.0.0/8',
    '10.20.0.0/16',
    '172.16.5.5',
    '192.168.0.0/24',
    '100.64.1.0/24',
    'fd12:3456::/32',
    'hooks.internal.example',
  ])('accepts the private entry %s', (entry) => expect(adminAllowRefusal(entry)).toBeNull());
  it.each([
    ['127.0.0.1', /not inside a private network/],
    ['::1', /not inside a private network/],
    ['0.0.0.0/0', /not inside a private network/],
    ['::/0', /not inside a private network/],
    ['169.254.169.254', /not inside a private network/],
    ['fe80::/10', /not inside a private network/],
    ['10.0.0.0/7', /not inside a private network/],
    ['8.8.8.8', /not inside a private network/],
    ['::ffff:10.0.0.1', /not inside a private network/],
    ['100.64.0.0/10', /metadata address 100\.100\.100\.200/],
    ['fd00::/8', /metadata address fd00:ec2::254/],
    ['localhost', /loopback name/],
    ['10.0.0.0/33', /longer than 32 bits/],
    ['example.org/8', /not a network/],
  ])('refuses %s', (entry, why) => expect(adminAllowRefusal(entry)).toMatch(why));
  it('a refused list names the environment variable that can allow it', () => {
    expect(() => checkAdminAllowList(['10.1.0.0/16', '127.0.0.1'], 'NOTIFY_CHAT_ALLOW')).toThrow(/NOTIFY_CHAT_ALLOW/);
    expect(() => checkAdminAllowList(undefined, 'NOTIFY_CHAT_ALLOW')).not.toThrow();
    expect(adminMayOpen('10.9.9.9')).toBe(true);
    expect(adminMayOpen('100.100.100.200')).toBe(false);
    expect(adminMayOpen('127.0.0.1')).toBe(false);
  });
});
