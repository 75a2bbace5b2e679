// The real agents' payloads (testkit agent-fixtures: rdp-login-monitor 2.1.7-SAC and ssh-monitor, built
// from their code) replayed as the agents send them, one per request with a Bearer key, through the
// real ingest, store, correlate, notify, deliver and API roles on the real servers; what an operator
// sees is read back through the API, what was sent through a Telegram Bot API double and an SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventV1 } from '@watchpost/schemas';
import {
  createTestStores,
  everyAgentFixture,
  freePort,
  linuxAgent,
  localhostCertificate,
  SSH_MONITOR_MAILS,
  sshMonitorSendEmail,
  rdpMonitor,
  startRolesApp,
  testConfig,
  waitFor,
  windowsAgent,
  type RolesApp,
  type TestStores,
} from '@watchpost/testkit';
import { startSmtpDouble, startTelegramDouble, type SmtpDouble } from '@watchpost/testkit/notify';
import { runLivenessScan } from '@watchpost/processors';
import { roleStarters } from './role-registry.ts';

const KEY = `sac_${randomBytes(24).toString('hex')}`; // a key Deploy-LoginMonitor.ps1 keeps
const TOKEN = '4242:replay-token';
const ADMIN_PASSWORD = 'replay-admin-password-0123456789';
let stores: TestStores;
let roles: RolesApp;
let telegram: Awaited<ReturnType<typeof startTelegramDouble>>;
let smtp: SmtpDouble;
let certDir: string;
let intakePort: number;

beforeAll(async () => {
  [telegram, smtp] = await Promise.all([startTelegramDouble(TOKEN), startSmtpDouble()]);
  // The SMTP intake's certificate, which the ssh-monitor hosts trust (AGENTS.md, "ssh-monitor over SMTP").
  certDir = mkdtempSync(join(tmpdir(), 'watchpost-replay-'));
  const pems = await localhostCertificate();
  writeFileSync(join(certDir, 'cert.pem'), pems.cert);
  writeFileSync(join(certDir, 'key.pem'), pems.key);
  intakePort = await freePort();
  stores = await createTestStores(
    testConfig('agents_replay', {
      SERVICE_BOOTSTRAP_API_KEY: KEY,
      SERVICE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      NOTIFY_MIN_SEVERITY: 'high',
      NOTIFY_CHANNELS: 'chat,email',
      NOTIFY_FROM_BEGINNING: 'true',
      NOTIFY_TELEGRAM_API_BASE: telegram.url,
      NOTIFY_TELEGRAM_TOKEN: TOKEN,
      NOTIFY_TELEGRAM_CHAT_IDS: '-1007',
      NOTIFY_CHAT_ALLOW: '127.0.0.1',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_SECURITY: 'none',
      SMTP_FROM: 'watchpost@example.org',
      NOTIFY_EMAIL_RECIPIENTS: 'oncall@example.org',
      NOTIFY_BACKOFF_MS: '100',
      SERVICE_SMTP_PORT: String(intakePort),
      SERVICE_SMTP_HOST: '127.0.0.1',
      SERVICE_SMTP_TLS_CERT_FILE: join(certDir, 'cert.pem'),
      SERVICE_SMTP_TLS_KEY_FILE: join(certDir, 'key.pem'),
    }),
  );
  roles = await startRolesApp(stores.config, ['ingest', 'smtp', 'store', 'correlate', 'notify', 'deliver', 'api'], roleStarters);
}, 120_000);

afterAll(async () => {
  await roles?.close();
  await Promise.all([telegram?.close(), smtp?.close()]);
  await stores?.drop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

/** As Sac-Client.ps1 posts an event (Bearer key, Idempotency-Key = event_id). */
const post = (e: EventV1) => roles.postSacEvent(KEY, e);
const api = <T>(url: string) => roles.adminGet<T>(ADMIN_PASSWORD, url);

interface EventRow {
  event_id: string;
  type: string;
  hostname: string;
  actor_user: string;
  source_ip: string;
}

describe('the real agents, replayed', () => {
  const ws01 = windowsAgent('WS-01'); // UseSAC=exclusive: we are its only channel (telegram_via = sac)
  const ws02 = windowsAgent('WS-02', { ipv4: '10.0.0.22', telegramVia: 'agent' }); // UseSAC=dual
  const web01 = linuxAgent('web-01');
  const fixtures = everyAgentFixture(ws01, web01);
  const byName = Object.fromEntries(fixtures.map((f) => [f.name, f.event]));
  // The agent already told its Telegram about this one; WS-01's own login success is ours to send.
  const toldByAgent = rdpMonitor.loginSuccess(ws02, 'CORP\\dave', '198.51.100.90');
  // A 302/303 pair 3 s apart with no session id (what the agent sends): a flap.
  const t = new Date(Date.now() - 60_000);
  const flap = [
    rdpMonitor.gateway(ws01, { code: 302, user: 'CORP\\flappy', clientIp: '198.51.100.77', resource: 'WS-01', at: t }),
    rdpMonitor.gateway(ws01, {
      code: 303,
      user: 'CORP\\flappy',
      clientIp: '198.51.100.77',
      resource: 'WS-01',
      durationSec: 3,
      at: new Date(t.getTime() + 3000),
    }),
  ];
  const all = [...fixtures.map((f) => f.event), toldByAgent, ...flap];

  it('accepts every event (201) and a spool re-send as a duplicate (409)', async () => {
    for (const e of all) {
      const r = await post(e);
      expect([e.type, e.host.hostname, r.statusCode]).toEqual([e.type, e.host.hostname, 201]);
    }
    // Invoke-SacFlushSpool re-sends newest first; the service answers 409, which the agent counts as delivered.
    for (const e of [byName['rdp daily report']!, byName['rdp login failed']!]) expect((await post(e)).statusCode).toBe(409);
  }, 60_000);

  it('lists the hosts with the hostname, product and version the agents report', async () => {
    const hosts = await waitFor(
      'three hosts',
      () => api<{ items: { hostname: string; product: string; agent_version: string; os_family: string }[] }>('/hosts'),
      (h) => h.items.length === 3,
    );
    const seen = hosts.items.map((h) => [h.hostname, h.os_family, h.product, h.agent_version]);
    expect(seen.sort((a, b) => a[0]!.localeCompare(b[0]!))).toEqual([
      ['web-01', 'linux', 'ssh-monitor', '1.1.2-ipset'],
      ['WS-01', 'windows', 'rdp-login-monitor', '2.1.7-SAC'],
      ['WS-02', 'windows', 'rdp-login-monitor', '2.1.7-SAC'],
    ]);
  }, 60_000);

  it("shows each event's source address and user from the agents' own keys", async () => {
    const list = await waitFor(
      'every event stored',
      () => api<{ total: number; items: EventRow[] }>('/events?page_size=100'),
      (l) => l.total === all.length,
      60_000,
    );
    const row = (e: EventV1) => {
      const r = list.items.find((x) => x.event_id === e.event_id)!;
      return [r.type, r.actor_user, r.source_ip];
    };
    expect(row(byName['rdp login success']!)).toEqual(['rdp.login.success', 'CORP\\alice', '198.51.100.20']); // ip_address
    expect(row(byName['rdp login failed']!)).toEqual(['rdp.login.failed', 'administrator', '203.0.113.50']);
    expect(row(byName['rdg 302']!)).toEqual(['rdg.connection.success', 'CORP\\bob', '198.51.100.30']); // external_ip
    expect(row(byName['rdg 303 failed']!)).toEqual(['rdg.connection.failed', 'CORP\\bob', '198.51.100.30']);
    expect(row(byName['winrm session']!)).toEqual(['winrm.session.started', 'CORP\\admin', '10.0.0.7']); // source_ip
    expect(row(byName['smb admin share']!)).toEqual(['smb.admin_share.access', 'CORP\\admin', '10.0.0.8']);
    expect(row(byName['account locked']!)).toEqual(['auth.account.locked', 'carol', '']);
    // The burst alert names its source only in bucket_key (tier2:ip:<address>): searchable by it.
    expect(row(byName['rdp bruteforce burst']!)).toEqual(['rdp.bruteforce.burst', '', '203.0.113.50']);
    expect(row(byName['ssh login failed']!)).toEqual(['ssh.login.failed', 'root', '203.0.113.70']); // ip
    expect(row(byName['ssh ban']!)).toEqual(['ssh.ip.banned', '', '203.0.113.70']);
    expect(row(byName['sudo']!)).toEqual(['privilege.sudo.command', 'deploy', '']);
  }, 90_000);

  it('does not send to chat what the agent already sent there; sends its always-to-chat events otherwise', async () => {
    const sent = (id: string) => telegram.messages().filter((m) => m.text.includes(id));
    const mine = byName['rdp login success']!;
    await waitFor(
      'WS-01 login success in chat',
      async () => sent(mine.event_id),
      (m) => m.length === 1,
      60_000,
    );
    expect(sent(mine.event_id)[0]!.text).toContain('198.51.100.20'); // From: the agent's ip_address
    // The agent's own one was decided (rule login_success) with chat skipped, and nothing was queued.
    const explained = await waitFor(
      'decision recorded',
      () =>
        api<{ decisions: { rule: string; reason: string; routes: { channel: string; chosen: boolean; reason: string }[] }[] }>(
          `/notifications/explain?event_id=${toldByAgent.event_id}`,
        ),
      (x) => x.decisions.length === 1 && x.decisions[0]!.rule === 'login_success',
    );
    expect(explained.decisions[0]!.reason).toMatch(/chat skipped: the agent already sent this to its own chat/);
    expect(explained.decisions[0]!.routes.filter((r) => r.channel === 'chat')).toEqual([
      { channel: 'chat', destination: '', chosen: false, reason: expect.stringMatching(/telegram_via = "agent"/) },
    ]);
    const queued = await stores.pg.query('SELECT 1 FROM notification_deliveries WHERE subject_key = $1', [
      `event:${toldByAgent.event_id}`,
    ]);
    expect(queued.rowCount).toBe(0);
    expect(sent(toldByAgent.event_id)).toEqual([]);
  }, 90_000);

  it("sends the agent's daily report body: its HTML and text by e-mail, its text to chat", async () => {
    const report = byName['rdp daily report']!;
    const body = report.details!.report_body as string;
    const mail = await waitFor(
      'report e-mail',
      async () => smtp.mails.find((m) => m.subject?.includes('Ежедневный отчёт Windows')),
      Boolean,
      60_000,
    );
    expect(mail!.text).toContain(body.split('\r\n').slice(5, 8).join('\n').replace(/\r/g, ''));
    expect(mail!.html).toMatch(/Успешных RDP подключений: 3<br ?\/?>/);
    expect(mail!.html).not.toContain('<table'); // the agent's report, not our event template
    const chat = await waitFor(
      'report in chat',
      async () => telegram.messages().find((m) => m.text.includes('ЕЖЕДНЕВНЫЙ ОТЧЕТ МОНИТОРИНГА WINDOWS')),
      Boolean,
      60_000,
    );
    expect(chat!.text).toContain('❌ Неудачных попыток RDP: 7');
    expect(chat!.text).toContain('203.0.113.50 — 5');
  }, 90_000);

  // Issue items 3 and 4 (pairing without a session id, details.inventory) are in correlate (another change).
  it('opens a flap problem from the 302/303 pair 3 s apart and keeps the inventory snapshot on the host', async () => {
    const problems = await waitFor(
      'flap problem',
      () => api<{ items: { host: string; type: string; rdg_flap: boolean }[] }>('/problems?host=WS-01'),
      (p) => p.items.some((x) => x.rdg_flap),
      30_000,
    );
    expect(problems.items.find((x) => x.rdg_flap)).toMatchObject({ host: 'WS-01', type: 'rdg.connection.flap' });
    const hosts = await api<{ items: { id: number; hostname: string }[] }>('/hosts?search=WS-01');
    const ws = hosts.items.find((h) => h.hostname === 'WS-01')!;
    const detail = await waitFor(
      'inventory',
      () => api<{ inventory: { hardware: unknown; at: string | null } }>(`/hosts/${ws.id}`),
      (h) => h.inventory.hardware !== null,
      30_000,
    );
    expect(JSON.stringify(detail.inventory.hardware)).toContain('64');
  }, 90_000);
});

// Issue 31 item 2. A post that fails before any HTTP answer (refused connection, DNS, TLS) throws out of
// Invoke-SacHttpPost (Sac-Client.ps1, GetRequestStream outside its try): nothing is spooled, the pass
// ends with Login_Monitor.ps1's log cursors unmoved, and the next pass posts the same Windows events
// again, each under a new event_id (New-SacEventPayload) with the same TimeCreated.
describe('a pass re-posted after a connection failure, under new event_ids', () => {
  const ws03 = windowsAgent('WS-03');
  const t = new Date(Date.now() - 45_000);
  const at = (s: number) => new Date(t.getTime() + s * 1000);
  const pass = () => [
    rdpMonitor.loginFailed(ws03, 'CORP\\erin', '203.0.113.61', at(0)),
    rdpMonitor.loginSuccess(ws03, 'CORP\\erin', '198.51.100.61', at(2)),
    rdpMonitor.winrmSession(ws03, 'CORP\\admin', '10.0.0.61', at(4)),
  ];
  const first = pass();
  const again = pass();
  const later = rdpMonitor.adminShare(ws03, 'CORP\\admin', '10.0.0.61', undefined, at(6));

  it('stores each Windows event once: the re-posts answer 409 naming the stored event', async () => {
    // The first pass: two posts got through, then the connection failed (the third never left).
    for (const e of first.slice(0, 2)) expect((await post(e)).statusCode).toBe(201);
    // The next pass re-reads all three and the one after them.
    const answers = [];
    for (const e of [...again, later]) answers.push(await post(e));
    expect(answers.map((r) => r.statusCode)).toEqual([409, 409, 201, 201]);
    expect(answers[0]!.json()).toEqual({
      error: {
        code: 'DUPLICATE_EVENT',
        message: expect.stringContaining(`already stored as ${first[0]!.event_id}`),
        details: { event_id: again[0]!.event_id, resent_of: first[0]!.event_id },
      },
    });
    // A retry of a re-post (its answer lost) hears the same.
    expect((await post(again[1]!)).json().error.details).toEqual({ event_id: again[1]!.event_id, resent_of: first[1]!.event_id });
    const stored = [first[0]!, first[1]!, again[2]!, later].map((e) => e.event_id).sort();
    const list = await waitFor(
      'WS-03 events stored',
      () => api<{ total: number; items: EventRow[] }>('/events?hostname=WS-03&page_size=100'),
      (l) => l.total >= stored.length,
      60_000,
    );
    expect(list.items.map((e) => e.event_id).sort()).toEqual(stored);
  }, 90_000);

  it('notifies once and the explain view says why the re-post was not', async () => {
    const success = first[1]!;
    const sent = (id: string) => telegram.messages().filter((m) => m.text.includes(id));
    await waitFor(
      'WS-03 login success in chat',
      async () => sent(success.event_id),
      (m) => m.length === 1,
      60_000,
    );
    const explained = await api<{ subject: { resent_of: string; reason: string }; decisions: unknown[] }>(
      `/notifications/explain?event_id=${again[1]!.event_id}`,
    );
    expect(explained.subject.resent_of).toBe(success.event_id);
    expect(explained.subject.reason).toMatch(/re-send of event \S+ \(same host, type, time on the host and content/);
    expect(explained.decisions).toEqual([]);
    // Every delivery of the login went out before this point (the one message above); none for the re-post.
    const queued = await stores.pg.query('SELECT 1 FROM notification_deliveries WHERE subject_key = $1', [
      `event:${again[1]!.event_id}`,
    ]);
    expect(queued.rowCount).toBe(0);
    expect(sent(again[1]!.event_id)).toEqual([]);
  }, 90_000);
});

// Issue 31 item 5: with its failed-logon rate limit off the agent sends a 4625 as agent.notification, info.
describe('a failed logon the agent labels agent.notification', () => {
  const ws04 = windowsAgent('WS-04');
  const e = rdpMonitor.loginFailedUnlimited(ws04, 'CORP\\gina', '203.0.113.64', new Date(Date.now() - 20_000));

  it('is listed and counted as a failed RDP login, its event kept as sent', async () => {
    expect((await post(e)).statusCode).toBe(201);
    const list = await waitFor(
      'the 4625 under rdp.login.failed',
      () => api<{ items: (EventRow & { severity: string })[] }>('/events?hostname=WS-04&type=rdp.login.failed'),
      (l) => l.items.length === 1,
      60_000,
    );
    expect(list.items[0]).toMatchObject({
      event_id: e.event_id,
      type: 'rdp.login.failed',
      severity: 'warning',
      actor_user: 'CORP\\gina',
      source_ip: '203.0.113.64',
    });
    const stored = await api<{ event: { type: string; severity: string; title: string } }>(`/events/${e.event_id}`);
    expect(stored.event).toMatchObject({ type: 'agent.notification', severity: 'info', title: 'RDP login event 4625' });
  }, 90_000);
});

// Issue 31 item 1: the agent sends agent.heartbeat at every start and, on the first start after 09:00,
// its daily report right after it (Login_Monitor.ps1 Send-Heartbeat -IsStartup, Send-DailyReport); a
// restart burst repeats that. Neither gap is the agent's interval (14400 s, forced by the deploy).
describe('a fresh install and a restart burst', () => {
  const ws06 = windowsAgent('WS-06');

  it('page nobody: no host_silence problem 8 minutes or 3 hours later', async () => {
    const t = new Date(Date.now() - 20_000);
    const at = (s: number) => new Date(t.getTime() + s * 1000);
    // Each built when the agent sends it, after the previous post was answered (two starts of one trigger
    // in one millisecond would be one event posted twice: ingest/src/resend.ts).
    const sequence = [
      () => rdpMonitor.lifecycleStarted(ws06, 'process_start'),
      () => rdpMonitor.heartbeat(ws06, at(0)),
      () => rdpMonitor.dailyReport(ws06, { success: 0, failed: 0, top: [], users: [] }),
      // The restart burst: the task restarts the monitor twice within a minute.
      () => rdpMonitor.lifecycleStarted(ws06, 'process_start'),
      () => rdpMonitor.heartbeat(ws06, at(6)),
      () => rdpMonitor.heartbeat(ws06, at(12)),
    ];
    let lastPostAt = new Date();
    for (const make of sequence) {
      const e = make();
      lastPostAt = new Date();
      expect([e.type, (await post(e)).statusCode]).toEqual([e.type, 201]);
    }
    // Correlate has applied the last heartbeat (its receive time is at or after lastPostAt).
    const host = await waitFor(
      'WS-06 correlated up to its last heartbeat',
      async () =>
        (await stores.pg.query(`SELECT last_heartbeat, heartbeat_interval_seconds FROM hosts WHERE hostname = 'WS-06'`))
          .rows[0] as { last_heartbeat: Date | null; heartbeat_interval_seconds: number | null } | undefined,
      (r) => !!r?.last_heartbeat && r.last_heartbeat >= lastPostAt,
      60_000,
    );
    // Nothing learned from start-up gaps: the product's default interval holds.
    expect(host!.heartbeat_interval_seconds).toBeNull();
    for (const minutes of [8, 180]) {
      await runLivenessScan(stores.pg, { now: new Date(Date.now() + minutes * 60_000), staleMinutes: stores.config.heartbeat });
      const silent = await stores.pg.query(`SELECT id FROM problems WHERE host = 'WS-06' AND type = 'host_silence'`);
      expect([minutes, silent.rowCount]).toEqual([minutes, 0]);
    }
  }, 90_000);
});

// Issue 31 item 4: the agent sends no 302 that repeats user + resource + client within 90 s, so a client
// flapping every few seconds yields one 302 and then a 303 per flap, each with the gateway's own duration.
describe('a client flapping behind the gateway', () => {
  const ws07 = windowsAgent('WS-07');

  it('counts every flap: a badge on each short 303', async () => {
    const t = new Date(Date.now() - 50_000);
    const at = (s: number) => new Date(t.getTime() + s * 1000);
    const g = { user: 'CORP\\hal', clientIp: '198.51.100.77', resource: 'WS-07' };
    const sequence = [
      rdpMonitor.gateway(ws07, { code: 302, ...g, at: at(0) }),
      rdpMonitor.gateway(ws07, { code: 303, ...g, durationSec: 3, at: at(3) }),
      rdpMonitor.gateway(ws07, { code: 303, ...g, durationSec: 4, at: at(11) }),
      rdpMonitor.gateway(ws07, { code: 303, ...g, durationSec: 2, at: at(17) }),
    ];
    for (const e of sequence) expect((await post(e)).statusCode).toBe(201);
    const list = await waitFor(
      'three flap badges',
      () => api<{ items: { event_id: string; flap: boolean }[] }>('/events?hostname=WS-07&page_size=100'),
      (l) => l.items.filter((x) => x.flap).length === 3,
      60_000,
    );
    expect(
      list.items
        .filter((x) => x.flap)
        .map((x) => x.event_id)
        .sort(),
    ).toEqual(
      sequence
        .slice(1)
        .map((e) => e.event_id)
        .sort(),
    );
    const problems = await api<{ items: { type: string; rdg_flap: boolean; count: number }[] }>('/problems?host=WS-07');
    expect(problems.items.filter((p) => p.rdg_flap)).toEqual([expect.objectContaining({ type: 'rdg.connection.flap' })]);
  }, 90_000);
});

// Issue 32: the published ssh-monitor, unchanged, with one e-mail channel pointed at the intake (its own
// send_email_raw over STARTTLS, the agent key as MAIL_SMTP_PASSWORD); its subject carries this machine's
// hostname, as socket.gethostname() gives it.
describe('ssh-monitor over SMTP, the agent unchanged', () => {
  const HOST = hostname();
  const mail = (body: string) =>
    sshMonitorSendEmail({ port: intakePort, password: KEY, certFile: join(certDir, 'cert.pem') }, body);
  const kinds = [
    'started',
    'heartbeat',
    'login_success',
    'login_failed',
    'ip_banned',
    'bruteforce_mass',
    'sudo',
    'daily_report',
  ] as const;

  it('lists each alert once as its event, a retry of one included, on a Linux host that is online', async () => {
    for (const kind of kinds) {
      const r = await mail(SSH_MONITOR_MAILS[kind]);
      expect([kind, r.code, r.stderr]).toEqual([kind, 0, '']);
    }
    expect((await mail(SSH_MONITOR_MAILS.login_failed)).code).toBe(0); // smtplib's retry: taken, not doubled
    const list = await waitFor(
      `${kinds.length} events of ${HOST}`,
      () =>
        api<{ total: number; items: (EventRow & { severity: string })[] }>(
          `/events?hostname=${encodeURIComponent(HOST)}&page_size=100`,
        ),
      (l) => l.total >= kinds.length,
      60_000,
    );
    expect(list.total).toBe(kinds.length);
    const rows = Object.fromEntries(list.items.map((r) => [r.type, [r.severity, r.actor_user, r.source_ip]]));
    expect(rows).toMatchObject({
      'ssh.login.success': ['info', 'deploy', '203.0.113.7'],
      'ssh.login.failed': ['warning', 'deploy', '203.0.113.7'],
      'ssh.ip.banned': ['high', '', '203.0.113.7'],
      'ssh.bruteforce.mass': ['high', '', '203.0.113.7'],
      'privilege.sudo.command': ['warning', 'deploy', ''],
      'report.daily.ssh': ['info', '', ''],
      'agent.heartbeat': ['info', '', ''],
      'agent.lifecycle': ['info', '', ''],
    });
    const hosts = await waitFor(
      `${HOST} online`,
      () =>
        api<{
          items: {
            hostname: string;
            os_family: string;
            product: string;
            agent_version: string;
            status: string;
            last_heartbeat: string | null;
          }[];
        }>(`/hosts?search=${encodeURIComponent(HOST)}`),
      (h) => h.items.some((x) => x.hostname === HOST && x.last_heartbeat !== null),
      60_000,
    );
    // The version from its start message; liveness from its heartbeat and daily report.
    expect(hosts.items.find((x) => x.hostname === HOST)).toMatchObject({
      os_family: 'linux',
      product: 'ssh-monitor',
      agent_version: '1.1.2-ipset',
      status: 'online',
    });
  }, 120_000);

  it('opens the brute-force problems and tells on-call in chat', async () => {
    const problems = await waitFor(
      'problems of the ban and the mass brute force',
      () => api<{ items: { host: string; type: string; severity: string }[] }>(`/problems?host=${encodeURIComponent(HOST)}`),
      (p) => ['ssh.ip.banned', 'ssh.bruteforce.mass'].every((t) => p.items.some((x) => x.type === t)),
      60_000,
    );
    expect(problems.items.find((x) => x.type === 'ssh.bruteforce.mass')).toMatchObject({ host: HOST, severity: 'high' });
    const chat = await waitFor(
      'the brute force in chat',
      async () => telegram.messages().filter((m) => m.text.includes(HOST) && m.text.includes('203.0.113.7')),
      (m) => m.length >= 2,
      60_000,
    );
    expect(chat.length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
