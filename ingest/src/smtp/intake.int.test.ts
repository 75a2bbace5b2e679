// The SMTP intake against the real Redis, Kafka and Postgres, fed by ssh-monitor's own e-mail code path
// (testkit/python/ssh_monitor_send_email.py: python3 smtplib with STARTTLS and certificate verification,
// as the agent runs it) with the agent's own alert texts (testkit ssh-monitor-mail.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { createApiKey } from '@watchpost/core';
import { decodeEnvelope } from '@watchpost/schemas';
import {
  SSH_MONITOR_MAILS,
  localhostCertificate,
  memoryLogger,
  openIngestStoresReadingEvents,
  sshMonitorSendEmail,
  waitFor,
  type IngestStoresReadingEvents,
  type SshMonitorMailKind,
} from '@watchpost/testkit';
import type { SmtpIntakeConfig } from '@watchpost/runtime';
import { createIngest, type IngestService } from '../app.ts';
import { AgentRateLimiter } from '../admission.ts';
import { createSmtpIntake, type SmtpIntake } from './intake.ts';
import { mailEventId, mailText } from './event.ts';

const HOST = hostname(); // the agent's subject: socket.gethostname()
/** The test's stores, Redis and Kafka clients, and the reader of its events topic. */
let s: IngestStoresReadingEvents;
let ingest: IngestService;
let intake: SmtpIntake;
let port: number;
let smtpConfig: SmtpIntakeConfig;
let key: string;
let keyId: number;
let dir: string;
const logs = memoryLogger();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'watchpost-smtp-'));
  // The operator's certificate: the agent's ssl.create_default_context() verifies it (SSL_CERT_FILE below
  // makes the test's python trust it, as a fleet would trust its own CA).
  const pems = await localhostCertificate();
  writeFileSync(join(dir, 'cert.pem'), pems.cert);
  writeFileSync(join(dir, 'key.pem'), pems.key);
  s = await openIngestStoresReadingEvents(
    'smtp_intake',
    {
      SERVICE_SMTP_PORT: '0',
      SERVICE_SMTP_HOST: '127.0.0.1',
      SERVICE_SMTP_TLS_CERT_FILE: join(dir, 'cert.pem'),
      SERVICE_SMTP_TLS_KEY_FILE: join(dir, 'key.pem'),
      SERVICE_SMTP_MAX_MESSAGE_BYTES: '20000',
    },
    'smtp-test',
  );
  ({ key, id: keyId } = await createApiKey(s.stores.pg, 'ssh fleet'));
  ingest = createIngest({ config: s.config, log: logs.log, redis: s.redis, pg: s.stores.pg, kafka: s.kafka });
  smtpConfig = s.config.smtp;
  intake = createSmtpIntake({
    config: s.config.smtp,
    log: logs.log,
    pipeline: ingest.pipeline,
    keys: ingest.keys,
    rate: ingest.rate,
    certPollMs: 100,
  });
  port = await intake.listen();
}, 60_000);

afterAll(async () => {
  await intake?.close();
  await ingest?.close();
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const extra: SmtpIntake[] = [];
afterAll(async () => {
  for (const i of extra) await i.close();
});

/** Another intake on the same pipeline and keys, with its own limits (no TLS: AUTH allowed in the clear). */
async function intakeWith(limits: Partial<SmtpIntakeConfig>, rate = ingest.rate): Promise<number> {
  const config = { ...smtpConfig, tlsCertFile: '', tlsKeyFile: '', allowInsecureAuth: true, ...limits };
  const i = createSmtpIntake({ config, log: logs.log, pipeline: ingest.pipeline, keys: ingest.keys, rate });
  extra.push(i);
  return i.listen();
}

type Reply = { ok: true; response: string } | { ok: false; code: number | undefined; message: string };

/** A plain SMTP client (nodemailer's) holding one connection, as a careless or hostile sender would. */
async function client(toPort: number): Promise<{ send(hostname: string, body: string): Promise<Reply>; close(): void }> {
  const c = new SMTPConnection({ host: '127.0.0.1', port: toPort, ignoreTLS: true });
  // nodemailer reports a refused greeting as an 'error' event, not through connect's callback.
  await new Promise<void>((resolve, reject) => {
    c.once('error', reject);
    c.connect(() => resolve());
  });
  c.on('error', () => {}); // later a 421 closes the connection; its reply is in send's callback
  await new Promise<void>((resolve, reject) => c.login({ user: 'flood', pass: key }, (err) => (err ? reject(err) : resolve())));
  return {
    send: (hostname, body) =>
      new Promise((resolve) =>
        c.send(
          { from: 'ssh-monitor@flood.example', to: ['watchpost@example.org'] },
          `Subject: [ssh-monitor] ${hostname}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
          (err, info) =>
            resolve(err ? { ok: false, code: err.responseCode, message: err.message } : { ok: true, response: info.response }),
        ),
      ),
    close: () => c.close(),
  };
}

/** Runs the agent's send path with its settings (`env` overrides); resolves with its exit code and stderr. */
const send = (body: string, env: Record<string, string> = {}) =>
  sshMonitorSendEmail({ port, password: key, certFile: join(dir, 'cert.pem') }, body, env);

async function eventsWith(id: string) {
  return (await s.events.caughtUp()).filter((m) => m.value.includes(id));
}

/** Every alert kind of the agent and the event type it becomes. */
const KINDS = [
  ['login_success', 'ssh.login.success'],
  ['login_root', 'ssh.login.root'],
  ['login_failed', 'ssh.login.failed'],
  ['ip_banned', 'ssh.ip.banned'],
  ['ban_disabled', 'ssh.bruteforce.limit'],
  ['bruteforce_mass', 'ssh.bruteforce.mass'],
  ['hostkey_changed', 'ssh.hostkey.changed'],
  ['sudo', 'privilege.sudo.command'],
  ['logind_new', 'session.logind.new'],
  ['logind_removed', 'session.logind.removed'],
  ['logind_failed', 'session.logind.failed'],
  ['heartbeat', 'agent.heartbeat'],
  ['daily_report', 'report.daily.ssh'],
  ['started', 'agent.lifecycle'],
  ['stopped', 'agent.lifecycle'],
] as const satisfies readonly (readonly [SshMonitorMailKind, string])[];

describe('ssh-monitor alerts over SMTP', () => {
  it('the table covers every alert kind of the agent', () => {
    expect(KINDS.map(([k]) => k).sort()).toEqual(Object.keys(SSH_MONITOR_MAILS).sort());
  });

  it.each(KINDS)('%s becomes one %s event in Kafka, under the key that sent it', async (kind: SshMonitorMailKind, type) => {
    const r = await send(SSH_MONITOR_MAILS[kind]);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const id = mailEventId(keyId, HOST, mailText(SSH_MONITOR_MAILS[kind]));
    const msgs = await eventsWith(id);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.key).toBe(HOST);
    const d = decodeEnvelope(Buffer.from(msgs[0]!.value));
    expect(d.ok && d.envelope.event).toMatchObject({
      event_id: id,
      type,
      source: { product: 'ssh-monitor' },
      host: { hostname: HOST, os_family: 'linux' },
      details: { message_kind: kind, channel: 'email', agent_time: expect.stringMatching(/^\d\d\.\d\d\.\d{4} /) },
      raw: { format: 'text' },
    });
  });

  it("a client's retry of the same message is the same event: accepted, appended once", async () => {
    const body = SSH_MONITOR_MAILS.logind_new;
    expect((await send(body)).code).toBe(0);
    expect((await send(body)).code).toBe(0);
    expect(await eventsWith(mailEventId(keyId, HOST, mailText(body)))).toHaveLength(1);
  });

  it('a text no template knows is kept as agent.notification', async () => {
    const body = ' 🆕 НОВОЕ УВЕДОМЛЕНИЕ \nчто-то новое\n🕐 Время: 28.11.2026 10:15:31';
    expect((await send(body)).code).toBe(0);
    const msgs = await eventsWith(mailEventId(keyId, HOST, mailText(body)));
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.value).toContain('"type":"agent.notification"');
  });

  it('refuses a wrong key (535), a body over the limit (552), and AUTH without TLS; nothing is appended', async () => {
    const before = (await s.events.caughtUp()).length;
    const wrong = await send(SSH_MONITOR_MAILS.login_root, { MAIL_SMTP_PASSWORD: 'sac_not-a-key' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^SMTP-ERROR 535 SMTPAuthenticationError/m);
    const huge = await send(`${SSH_MONITOR_MAILS.sudo}\n${'x'.repeat(30_000)}`);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(/SMTP-ERROR 552 /);
    const plain = await send(SSH_MONITOR_MAILS.login_root, { MAIL_USE_STARTTLS: '0' });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/SMTP-ERROR 538 .*STARTTLS/); // AUTH only after STARTTLS
    expect((await s.events.caughtUp()).length).toBe(before);
  });
});

describe('a flood', () => {
  const body = (n: number) => SSH_MONITOR_MAILS.login_failed.replace('Попытка 2', `Попытка ${n}`);

  it('past the per-host rate, a message waits with 451 and the seconds to wait; nothing of it is appended', async () => {
    // Two messages of burst, then one per 1,000 s: the third is refused whatever the machine's speed.
    const rate = new AgentRateLimiter({ keyRate: 0, keyBurst: 1, hostRate: 0.001, hostBurst: 2 });
    const c = await client(await intakeWith({}, rate));
    const replies = [];
    for (let n = 2; n <= 4; n++) replies.push(await c.send('flood-rate', body(n)));
    c.close();
    expect(replies.map((r) => r.ok)).toEqual([true, true, false]);
    expect(replies[2]).toMatchObject({
      ok: false,
      code: 451,
      message: expect.stringMatching(/too many messages; retry after \d+ s/),
    });
    const refusedId = mailEventId(keyId, 'flood-rate', mailText(body(4)));
    expect(await eventsWith(refusedId)).toHaveLength(0);
    // Another host under the same key has its own allowance.
    const other = await client(await intakeWith({}, rate));
    expect(await other.send('flood-other', body(2))).toMatchObject({ ok: true });
    other.close();
  });

  it('past the messages one connection may send, 421: the client reconnects', async () => {
    const c = await client(await intakeWith({ maxMessagesPerConnection: 3 }));
    const replies = [];
    for (let n = 1; n <= 4; n++) replies.push(await c.send(`flood-conn-${n}`, body(2)));
    c.close();
    expect(replies.map((r) => (r.ok ? 250 : r.code))).toEqual([250, 250, 250, 421]);
    expect(await eventsWith(mailEventId(keyId, 'flood-conn-4', mailText(body(2))))).toHaveLength(0);
  });

  it('past the connections the intake holds, a new one hears 421 before anything else', async () => {
    const at = await intakeWith({ maxClients: 2 });
    const held = [await client(at), await client(at)];
    await expect(client(at)).rejects.toMatchObject({ responseCode: 421 });
    for (const c of held) c.close();
    // Once they are gone, a sender gets in again.
    const again = await waitFor(
      'a connection after the held ones closed',
      () =>
        client(at).then(
          (c) => (c.close(), true),
          () => false,
        ),
      (ok) => ok,
    );
    expect(again).toBe(true);
  });
});

describe("the operator's certificate", () => {
  /** The agent's send path trusting only `certFile`; true when the message was taken. */
  const sendTrusting = async (certFile: string, body: string) => {
    const r = await send(body, { SSL_CERT_FILE: certFile });
    return r.code === 0;
  };

  it('a renewal written over the files is served to the next connection, without a restart; a broken pair is not', async () => {
    const renewed = await localhostCertificate();
    writeFileSync(join(dir, 'renewed.pem'), renewed.cert);
    const body = SSH_MONITOR_MAILS.logind_removed.replace('c42', 'c77');
    expect(await sendTrusting(join(dir, 'renewed.pem'), body)).toBe(false); // not served yet
    writeFileSync(join(dir, 'cert.pem'), renewed.cert);
    writeFileSync(join(dir, 'key.pem'), renewed.key);
    await waitFor(
      'the renewed certificate served',
      () => sendTrusting(join(dir, 'renewed.pem'), body),
      (ok) => ok,
    );
    expect(await eventsWith(mailEventId(keyId, HOST, mailText(body)))).toHaveLength(1);
    // A key that does not match the certificate (a half-finished renewal) is refused; the pair in use stays.
    const stray = await localhostCertificate();
    writeFileSync(join(dir, 'key.pem'), stray.key);
    await waitFor(
      'the mismatched pair reported',
      async () => logs.lines().filter((l) => String(l.msg).includes('does not load')).length,
      (n) => n > 0,
    );
    expect(await sendTrusting(join(dir, 'renewed.pem'), SSH_MONITOR_MAILS.logind_removed.replace('c42', 'c78'))).toBe(true);
  });
});
