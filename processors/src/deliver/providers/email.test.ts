// The SMTP server passes the webhooks' SSRF guard: loopback, link-local (the metadata service),
// unspecified and multicast addresses are refused before any connection unless the environment names
// them (NOTIFY_EMAIL_ALLOW, or SMTP_HOST itself); private and public servers pass (an admin's setting).
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelConfigs, EmailConfig, SsrfAllow } from '@watchpost/core';
import { DeliveryError } from '../errors.ts';
import { render } from '../templates.ts';
import { emailProvider, smtpAddress } from './email.ts';

const none: SsrfAllow = { environment: [], admin: [], variable: 'NOTIFY_EMAIL_ALLOW' };

describe('smtpAddress: the SSRF guard on the SMTP server', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['localhost', /loopback/],
    ['169.254.169.254', /linkLocal/],
    ['fe80::1', /linkLocal/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['[::1]', /loopback/],
    ['100.100.100.200', /only NOTIFY_EMAIL_ALLOW can allow it/],
  ])('refuses %s, final', async (host, why) => {
    const err = await smtpAddress({ host, allow: none }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).final).toBe(true);
    expect((err as Error).message).toMatch(/^SMTP: refused by the SSRF guard: /);
    expect((err as Error).message).toMatch(why);
  });

  it('lets public and private servers through (a relay on the local network), as the checked address', async () => {
    for (const host of ['93.184.216.34', '10.1.2.3', '192.168.1.25', '100.64.1.25', 'fd12::25', '2606:2800:220:1::25'])
      expect(await smtpAddress({ host, allow: none })).toBe(host);
  });

  it('the environment opens what it names: an address, a network or the host name (SMTP_HOST is on that list)', async () => {
    expect(await smtpAddress({ host: '127.0.0.1', allow: { environment: ['127.0.0.1'], admin: [] } })).toBe('127.0.0.1');
    expect(await smtpAddress({ host: '127.0.0.2', allow: { environment: ['127.0.0.0/8'], admin: [] } })).toBe('127.0.0.2');
    expect(await smtpAddress({ host: 'localhost', allow: { environment: ['localhost'], admin: [] } })).toMatch(
      /^(127\.0\.0\.1|::1)$/,
    );
    // Another loopback address than the one named stays refused.
    await expect(smtpAddress({ host: '127.0.0.2', allow: { environment: ['127.0.0.1'], admin: [] } })).rejects.toThrow(
      /loopback/,
    );
  });
});

describe('the e-mail provider refuses before connecting', () => {
  let port = 0;
  const connections: Socket[] = [];
  const server = createServer((s) => {
    connections.push(s);
    s.destroy();
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const subject = { kind: 'test' as const, requested_by: 'root', at: '2026-11-23T05:00:00Z' };
  const send = (email: Partial<EmailConfig>) =>
    emailProvider.send({
      job: { delivery_id: 'd1', rule: 'test', destination: 'oncall@example.org', subject },
      rendered: render(subject, 'test'),
      configs: {
        email: {
          enabled: true,
          host: '127.0.0.1',
          port,
          security: 'none',
          user: undefined,
          password: undefined,
          from: 'wp@example.org',
          recipients: ['oncall@example.org'],
          verifyTls: false,
          allow: none,
          ...email,
        },
      } as unknown as ChannelConfigs,
    });

  it('a loopback server an admin set (no environment entry) gets no connection', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const err = await send({ host }).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).final, host).toBe(true);
      expect((err as Error).message, host).toMatch(/SSRF guard/);
    }
    expect(connections).toHaveLength(0);
  });

  it('connects to the server the environment names (the guard lets it through)', async () => {
    const err = await send({ allow: { environment: ['127.0.0.1'], admin: [] } }).catch((e: unknown) => e);
    // The double hangs up at once: the connection was made, the SMTP exchange then fails (not final).
    expect((err as Error).message).not.toMatch(/SSRF guard/);
    await expect.poll(() => connections.length).toBe(1);
  });
});
