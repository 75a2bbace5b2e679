// The SMTP intake against the real Redis, Kafka and Postgres, fed by ssh-monitor's own e-mail code path
// (testkit/python/ssh_monitor_send_email.py: python3 smtplib with STARTTLS and certificate verification,
// as the agent runs it) with the agent's own alert texts (testkit ssh-monitor-mail.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { createKafka, createRedis, type Redis } from '@watchpost/runtime';
import { createApiKey } from '@watchpost/core';
import { decodeEnvelope } from '@watchpost/schemas';
import {
  SSH_MONITOR_MAILS,
  createTestStores,
  localhostCertificate,
  memoryLogger,
  testConfig,
  topicReader,
  type SshMonitorMailKind,
  type TestStores,
} from '@watchpost/testkit';
import { createIngest, type IngestService } from '../app.ts';
import { createSmtpIntake, type SmtpIntake } from './intake.ts';
import { mailEventId, mailText } from './event.ts';

const SEND = fileURLToPath(new URL('../../../testkit/python/ssh_monitor_send_email.py', import.meta.url));
const HOST = hostname(); // the agent's subject: socket.gethostname()
let stores: TestStores;
let redis: Redis;
let kafka: Kafka;
let ingest: IngestService;
let intake: SmtpIntake;
let port: number;
let key: string;
let keyId: number;
let dir: string;
let reader: Awaited<ReturnType<typeof topicReader>>;
const logs = memoryLogger();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'watchpost-smtp-'));
  // The operator's certificate: the agent's ssl.create_default_context() verifies it (SSL_CERT_FILE below
  // makes the test's python trust it, as a fleet would trust its own CA).
  const pems = await localhostCertificate();
  writeFileSync(join(dir, 'cert.pem'), pems.cert);
  writeFileSync(join(dir, 'key.pem'), pems.key);
  const config = testConfig('smtp_intake', {
    SERVICE_SMTP_PORT: '0',
    SERVICE_SMTP_HOST: '127.0.0.1',
    SERVICE_SMTP_TLS_CERT_FILE: join(dir, 'cert.pem'),
    SERVICE_SMTP_TLS_KEY_FILE: join(dir, 'key.pem'),
    SERVICE_SMTP_MAX_MESSAGE_BYTES: '20000',
  });
  stores = await createTestStores(config);
  redis = createRedis(config.redisUrl);
  kafka = createKafka(config.kafkaBrokers, 'smtp-test');
  ({ key, id: keyId } = await createApiKey(stores.pg, 'ssh fleet'));
  ingest = createIngest({ config, log: logs.log, redis, pg: stores.pg, kafka });
  intake = createSmtpIntake({
    config: config.smtp,
    log: logs.log,
    pipeline: ingest.pipeline,
    keys: ingest.keys,
    rate: ingest.rate,
  });
  port = await intake.listen();
  reader = await topicReader(kafka, config.topics.events);
}, 60_000);

afterAll(async () => {
  await intake?.close();
  await ingest?.close();
  await reader?.close();
  await redis?.quit();
  await stores?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the agent's send path; resolves with its exit code and stderr. */
function send(body: string, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [SEND], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SSL_CERT_FILE: join(dir, 'cert.pem'),
        MAIL_BODY: body,
        MAIL_SMTP_HOST: '127.0.0.1',
        MAIL_SMTP_PORT: String(port),
        MAIL_SMTP_USER: 'ssh-monitor',
        MAIL_SMTP_PASSWORD: key,
        MAIL_FROM: 'ssh-monitor@web-01.example',
        MAIL_TO: 'watchpost@example.org',
        MAIL_USE_SSL: '0',
        MAIL_USE_STARTTLS: '1',
        ...env,
      },
    });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

async function eventsWith(id: string) {
  return (await reader.caughtUp()).filter((m) => m.value.includes(id));
}

describe('ssh-monitor alerts over SMTP', () => {
  it.each([
    ['login_success', 'ssh.login.success'],
    ['login_failed', 'ssh.login.failed'],
    ['ip_banned', 'ssh.ip.banned'],
    ['bruteforce_mass', 'ssh.bruteforce.mass'],
    ['sudo', 'privilege.sudo.command'],
    ['heartbeat', 'agent.heartbeat'],
    ['daily_report', 'report.daily.ssh'],
    ['started', 'agent.lifecycle'],
  ] as const)('%s becomes one %s event in Kafka, under the key that sent it', async (kind: SshMonitorMailKind, type) => {
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
    const before = (await reader.caughtUp()).length;
    const wrong = await send(SSH_MONITOR_MAILS.login_root, { MAIL_SMTP_PASSWORD: 'sac_not-a-key' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^SMTP-ERROR 535 SMTPAuthenticationError/m);
    const huge = await send(`${SSH_MONITOR_MAILS.sudo}\n${'x'.repeat(30_000)}`);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(/SMTP-ERROR 552 /);
    const plain = await send(SSH_MONITOR_MAILS.login_root, { MAIL_USE_STARTTLS: '0' });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/SMTP-ERROR 538 .*STARTTLS/); // AUTH only after STARTTLS
    expect((await reader.caughtUp()).length).toBe(before);
  });
});
