// The e-mail provider against a real SMTP server (smtp-server) on a local socket: STARTTLS required
// with a login, both parts delivered; a permanent 5xx is final, a refused login is final; a plain
// server is refused when STARTTLS is required.
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelDefaults, descriptorOf, type ChannelConfigs, type EmailConfig } from '@watchpost/core';
import { ConfigError, loadConfig } from '@watchpost/runtime';
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
      // The doubles listen on loopback: the SSRF guard lets it through only when the environment names it.
      allow: { environment: ['127.0.0.1'], admin: [] },
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

/** A plain SMTP server (AUTH allowed without TLS) that records every login offered to it, and accepts it. */
async function recordingServer(host: string) {
  const logins: { username: string; password: string }[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.server.address() as AddressInfo).port,
    logins,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The e-mail configuration the deliver role would send with: environment defaults plus a saved value. */
function effective(env: Record<string, string>, stored: object): EmailConfig {
  const d = descriptorOf('email');
  const plain = { encrypt: (_f: string, v: string) => v, decrypt: (_f: string, v: string) => v };
  return d.config(stored as never, channelDefaults(loadConfig(env).notify).email, plain);
}
const sendWith = (email: EmailConfig) => send(email);

// A non-loopback address of this machine, to stand for another host on the network.
const lan = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

describe("the environment's SMTP password goes only to the environment's server (issue 21)", () => {
  it('an admin-chosen server (another port here) does not get SMTP_USER/SMTP_PASSWORD; the delivery says why', async () => {
    const [own, rogue] = await Promise.all([recordingServer('127.0.0.1'), recordingServer('127.0.0.1')]);
    try {
      // A loopback relay over `none` (allowed with a password: it never leaves this machine).
      const env = {
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(own.port),
        SMTP_SECURITY: 'none',
        SMTP_USER: 'mailer',
        SMTP_PASSWORD: 'env-secret',
      };
      // The environment's own server: the login is used.
      expect(await sendWith(effective(env, {}))).toMatch(/^smtp 250/);
      expect(own.logins).toEqual([{ username: 'mailer', password: 'env-secret' }]);
      // An admin points the channel elsewhere: no login is offered there.
      const moved = effective(env, { port: rogue.port });
      expect(moved).toMatchObject({ password: undefined, user: undefined });
      const err = await sendWith({ ...moved, user: 'mailer' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).final).toBe(true);
      expect((err as Error).message).toMatch(/SMTP_PASSWORD is sent only to SMTP_HOST:SMTP_PORT/);
      // Without a login of its own, the message goes there unauthenticated: the password never does.
      expect(await sendWith(moved)).toMatch(/^smtp 250/);
      expect(rogue.logins).toEqual([]);
      // A password saved with the change is the admin's own, and is used.
      expect(await sendWith(effective(env, { port: rogue.port, user: 'other', password_enc: 'own-pw' }))).toMatch(/^smtp 250/);
      expect(rogue.logins).toEqual([{ username: 'other', password: 'own-pw' }]);
    } finally {
      await Promise.all([own.close(), rogue.close()]);
    }
  });

  it.skipIf(!lan)('no password over security "none" to another host: neither the environment\'s nor a saved one', async () => {
    const plainLan = await recordingServer(lan!);
    try {
      // SMTP_SECURITY=none with a password to a non-loopback host stops the start.
      const bad = (() => {
        try {
          channelDefaults(loadConfig({ SMTP_HOST: lan!, SMTP_SECURITY: 'none', SMTP_PASSWORD: 'x' }).notify);
        } catch (e) {
          return e;
        }
      })();
      expect(bad).toBeInstanceOf(ConfigError);
      expect((bad as ConfigError).variable).toBe('SMTP_PASSWORD');
      // The environment's server over starttls; an admin switches it to `none`: the password is withheld.
      const env = { SMTP_HOST: lan!, SMTP_PORT: String(plainLan.port), SMTP_USER: 'mailer', SMTP_PASSWORD: 'env-secret' };
      const weakened = effective(env, { security: 'none' });
      expect(weakened.password).toBeUndefined();
      const err = await sendWith({ ...weakened, user: 'mailer' }).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/never sent over security "none"/);
      // The deliver role's own guard: whatever the configuration says, no password in the clear to another host.
      const saved = await sendWith({ ...weakened, user: 'mailer', password: 'saved-secret' }).catch((e: unknown) => e);
      expect(saved).toBeInstanceOf(DeliveryError);
      expect((saved as Error).message).toMatch(/never sent over security "none" to /);
      expect(plainLan.logins).toEqual([]);
    } finally {
      await plainLan.close();
    }
  });
});
