// The e-mail provider against a real SMTP server (smtp-server) on a local socket: STARTTLS required
// with a login, both parts delivered; a permanent 5xx is final, a refused login is final; a plain
// server is refused when STARTTLS is required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelConfigs, EmailConfig } from '@watchpost/core';
import { startSmtpDouble, type SmtpDouble } from '@watchpost/testkit/notify';
import { emailProvider } from './providers/email.ts';
import { render } from './templates.ts';
import { DeliveryError } from './errors.ts';

let tls: SmtpDouble;
let plain: SmtpDouble;
beforeAll(async () => {
  [tls, plain] = await Promise.all([
    startSmtpDouble({ tls: true, user: 'mailer', password: 'pw-1', rejectTo: 'gone@example.org' }),
    startSmtpDouble(),
  ]);
});
afterAll(async () => Promise.all([tls?.close(), plain?.close()]));

const subject = { kind: 'test' as const, requested_by: 'root', at: '2026-11-23T05:00:00Z' };
function send(email: Partial<EmailConfig>, to = 'oncall@example.org') {
  const configs = {
    email: {
      enabled: true,
      host: '127.0.0.1',
      port: tls.port,
      security: 'starttls',
      user: 'mailer',
      password: 'pw-1',
      from: 'wp@example.org',
      recipients: [to],
      verifyTls: false,
      ...email,
    },
  } as unknown as ChannelConfigs;
  return emailProvider.send({
    job: { delivery_id: 'd1', rule: 'test', destination: to, subject },
    rendered: render(subject, 'test'),
    configs,
  });
}

describe('e-mail over SMTP', () => {
  it('STARTTLS with a login: the message arrives with its HTML and text parts', async () => {
    expect(await send({})).toMatch(/^smtp 250/);
    const m = tls.mails.at(-1)!;
    expect(m.subject).toContain('Test notification');
    expect(m.text).toContain('Requested by: root');
    expect(m.html).toContain('<th align="left"');
    expect(m.headers.get('x-watchpost-delivery')).toBe('d1');
  });

  it('an unknown mailbox (550) and a refused login are final; a server without STARTTLS is refused when it is required', async () => {
    const gone = await send({}, 'gone@example.org').catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DeliveryError);
    expect((gone as DeliveryError).final).toBe(true);
    const auth = await send({ password: 'wrong' }).catch((e: unknown) => e);
    expect((auth as DeliveryError).final).toBe(true);
    expect((auth as Error).message).toMatch(/Invalid login|Invalid username/);
    const noTls = await send({ port: plain.port, user: undefined, password: undefined }).catch((e: unknown) => e);
    expect(noTls).toBeInstanceOf(DeliveryError);
    expect((noTls as Error).message).toMatch(/STARTTLS/i);
    const before = plain.mails.length;
    expect(await send({ port: plain.port, security: 'none', user: undefined, password: undefined })).toMatch(/^smtp 250/);
    expect(plain.mails.length).toBe(before + 1);
  });

  it('a certificate that does not verify is refused when verification is on', async () => {
    const err = await send({ verifyTls: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as Error).message).toMatch(/certificate/i);
  });
});
