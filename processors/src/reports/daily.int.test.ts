// The daily report on the real ClickHouse and Postgres: known events give the expected figures in
// the HTML and the text; two scheduler processes at once build and send it once; the report window
// follows the configured time zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, type Config } from '@watchpost/runtime';
import { closeDeliveryQueues, createDeliveryQueues } from '@watchpost/core';
import { createTestStores, makeEnvelope, testConfig, type TestStores } from '@watchpost/testkit';
import {
  startHttpReceiver,
  startSmtpDouble,
  startDeliverRole,
  type HttpReceiver,
  type SmtpDouble,
} from '@watchpost/testkit/notify';
import { runDailyReport, type ReportDeps } from './index.ts';
// Storing fixture events and the scheduler role come through the package entry (role folders import
// none of each other).
import { envelopeToRow, insertEventRows, schedulerRole } from '../index.ts';
import { memoryLogger } from '@watchpost/testkit';

let stores: TestStores;
let smtp: SmtpDouble;
let slack: HttpReceiver;
// 08:00 Europe/Berlin on 2026-03-29 (the spring-forward day) is 06:00Z; the window is the 24 h before.
const RUN_AT = new Date('2026-03-29T06:00:00Z');
const HOUR = 3_600_000;

function deps(config: Config, clients: Clients): ReportDeps {
  return {
    config,
    pg: clients.pg,
    ch: clients.clickhouse,
    openQueues: () => {
      const conn = clients.bullmqConnection();
      const queues = createDeliveryQueues(config, conn);
      return { queues, close: async () => (await closeDeliveryQueues(queues), await conn.quit()) && undefined };
    },
  };
}

beforeAll(async () => {
  [smtp, slack] = await Promise.all([startSmtpDouble(), startHttpReceiver()]);
  stores = await createTestStores(
    testConfig('daily_report', {
      SERVICE_DAILY_REPORT_TIME: '08:00',
      SERVICE_DAILY_REPORT_TIMEZONE: 'Europe/Berlin',
      SERVICE_DAILY_REPORT_RECIPIENTS: 'boss@example.org',
      NOTIFY_CHANNELS: 'email',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_SECURITY: 'none',
      // The chat summary goes out whatever the policy's channels.
      NOTIFY_SLACK_WEBHOOK_URLS: `${slack.url}/hooks/daily`,
      NOTIFY_CHAT_ALLOW: '127.0.0.1',
    }),
    { kafka: false },
  );
  const at = (msBefore: number) => new Date(RUN_AT.getTime() - msBefore).toISOString();
  const ev = (type: string, host: string, msBefore: number, details: Record<string, unknown> = {}) =>
    makeEnvelope(
      { type, host: { hostname: host, os_family: 'linux' }, occurred_at: at(msBefore), details },
      0,
      new Date(at(msBefore)),
    );
  const inWindow = [
    ...Array.from({ length: 5 }, () => ev('ssh.login.failed', 'web-01', 2 * HOUR, { user: 'root', source_ip: '203.0.113.7' })),
    ...Array.from({ length: 2 }, () => ev('ssh.login.failed', 'web-02', 3 * HOUR, { user: 'admin', source_ip: '198.51.100.4' })),
    ev('ssh.login.success', 'web-01', 4 * HOUR, { user: 'deploy' }),
    ev('ssh.ip.banned', 'web-01', 2 * HOUR, { source_ip: '203.0.113.7' }),
    ev('rdp.login.success', 'win-01', 5 * HOUR, { user: 'alice' }),
    ev('rdp.login.failed', 'win-01', 5 * HOUR, { user: 'alice', source_ip: '192.0.2.9' }),
    ev('rdg.connection.success', 'gw-01', 6 * HOUR),
    ev('rdg.connection.success', 'gw-01', 7 * HOUR),
    ev('report.daily.ssh', 'web-01', 1 * HOUR),
  ];
  const outside = [
    ev('ssh.login.failed', 'web-01', 25 * HOUR, { user: 'root', source_ip: '203.0.113.7' }),
    ev('ssh.login.failed', 'web-01', -HOUR),
  ];
  const rows = [...inWindow, ...outside].map((e) => envelopeToRow(e));
  // The first failed login stored twice (a redelivery before ClickHouse merged): counted once.
  await insertEventRows(stores.ch, [...rows, rows[0]!]);
  await stores.pg.query(
    `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, created_at, last_seen, rdg_flap)
     VALUES (gen_random_uuid(), 'open', 'a', 'web-01', 'ssh.bruteforce.mass', 'severity', 'Brute force on web-01', 'high', $1, $1, false),
            (gen_random_uuid(), 'open', 'b', 'gw-01', 'rdg.connection.success', 'rdg_flap', 'Gateway flapping', 'warning', $1, $1, true),
            (gen_random_uuid(), 'open', 'c', 'old', 'x', 'severity', 'Too old', 'high', $2, $2, false)`,
    [at(HOUR), at(30 * HOUR)],
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([smtp?.close(), slack?.close()]);
  await stores?.drop();
});

describe('daily report', () => {
  it('is not built before its local time', async () => {
    const clients = new Clients(stores.config);
    try {
      const r = await runDailyReport(deps(stores.config, clients), new Date(RUN_AT.getTime() - 60_000));
      expect(r).toEqual({ status: 'not_yet', runs_at: RUN_AT.toISOString() });
    } finally {
      await clients.close();
    }
  });

  it('aggregates the 24 h before 08:00 local into figures, HTML and text, once across two processes', async () => {
    const a = new Clients(stores.config);
    const b = new Clients(stores.config);
    try {
      const now = new Date(RUN_AT.getTime() + 30_000);
      const [ra, rb] = await Promise.all([
        runDailyReport(deps(stores.config, a), now),
        runDailyReport(deps(stores.config, b), now),
      ]);
      expect([ra.status, rb.status].sort()).toEqual(['built', 'done_already']);
      const rows = await stores.pg.query<{
        day: string;
        figures: Record<string, unknown>;
        html: string;
        text: string;
        period_start: Date;
      }>(`SELECT to_char(day, 'YYYY-MM-DD') AS day, figures, html, text, period_start FROM daily_reports`);
      expect(rows.rows).toHaveLength(1);
      const r = rows.rows[0]!;
      expect(r.day).toBe('2026-03-29');
      expect(r.period_start.toISOString()).toBe('2026-03-28T06:00:00.000Z');
      expect(r.figures).toMatchObject({
        ssh: { success: 1, failed: 7, banned: 1 },
        rdp: { success: 1, failed: 1 },
        gateway: { sessions: 2, flaps: 1 },
        top_sources: [
          { source_ip: '203.0.113.7', failed: 5 },
          { source_ip: '198.51.100.4', failed: 2 },
          { source_ip: '192.0.2.9', failed: 1 },
        ],
        top_users: [
          { user: 'root', failed: 5 },
          { user: 'admin', failed: 2 },
          { user: 'alice', failed: 1 },
        ],
        problems: { total: 2, by_severity: { high: 1, warning: 1 } },
        agent_reports: 1,
      });
      expect(r.html).toContain(
        '<td style="padding:2px 10px 2px 0">SSH</td><td style="padding:2px 10px 2px 0">1</td><td style="padding:2px 10px 2px 0">7</td>',
      );
      expect(r.html).toContain('203.0.113.7');
      expect(r.html).toContain('Gateway flapping');
      expect(r.html).not.toContain('Too old');
      expect(r.text).toContain('SSH logins: 1 succeeded, 7 failed; 1 bans');
      expect(r.text).toContain('web-01: 1 ok, 5 failed, 1 bans');

      // sent once, by e-mail to the report recipients, with both parts
      const deliver = await startDeliverRole(stores.config);
      try {
        const deadline = Date.now() + 20_000;
        while (smtp.mails.length === 0 && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
        await new Promise((x) => setTimeout(x, 500));
        expect(smtp.mails).toHaveLength(1);
        const mail = smtp.mails[0]!;
        expect((mail.to as { text: string }).text).toBe('boss@example.org');
        expect(mail.subject).toBe('Daily security report 2026-03-29 (Europe/Berlin)');
        expect(mail.html).toContain('Top targeted users');
        expect(mail.text).toContain('RDP logins: 1 succeeded, 1 failed');
        // and summarised to chat, once
        while (slack.requests.length === 0 && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
        expect(slack.requests).toHaveLength(1);
        const chat = (JSON.parse(slack.requests[0]!.body) as { text: string }).text;
        expect(chat).toContain('Daily security report 2026-03-29 (Europe/Berlin)');
        expect(chat).toContain(
          'SSH 1 ok / 7 failed, 1 bans · RDP 1 ok / 1 failed · gateway 2 sessions, 1 flaps · 2 new problems',
        );
      } finally {
        await deliver.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a report stored but never handed to the queues (process killed in between) is sent at a later check, once', async () => {
    const clients = new Clients(stores.config);
    const deliver = await startDeliverRole(stores.config);
    try {
      const report = await stores.pg.query<{ id: string }>('SELECT id FROM daily_reports');
      const key = `report:${report.rows[0]!.id}`;
      // What a kill -9 right after the INSERT leaves: the report, no decision, no delivery, no job.
      const jobs = await stores.pg.query<{ id: string; channel: 'email' | 'chat' }>(
        'SELECT id, channel FROM notification_deliveries WHERE subject_key = $1',
        [key],
      );
      expect(jobs.rows.map((j) => j.channel).sort()).toEqual(['chat', 'email']);
      const { queues, close } = deps(stores.config, clients).openQueues();
      for (const j of jobs.rows) await queues[j.channel].remove(j.id);
      await close();
      await stores.pg.query('DELETE FROM notification_decisions WHERE subject_key = $1', [key]);
      const mailsBefore = smtp.mails.length;
      const now = new Date(RUN_AT.getTime() + 120_000);
      // within the grace minute the building process may still be sending it
      expect((await runDailyReport(deps(stores.config, clients), now)).status).toBe('done_already');
      await stores.pg.query("UPDATE daily_reports SET created_at = now() - interval '2 minutes'");
      expect(await runDailyReport(deps(stores.config, clients), now)).toMatchObject({ status: 'resent', queued: 2 });
      const deadline = Date.now() + 20_000;
      while (smtp.mails.length === mailsBefore && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
      expect(smtp.mails.length).toBe(mailsBefore + 1);
      expect(smtp.mails.at(-1)!.subject).toBe('Daily security report 2026-03-29 (Europe/Berlin)');
      const sent = async () =>
        (await stores.pg.query<{ state: string }>('SELECT state FROM notification_deliveries WHERE subject_key = $1', [key]))
          .rows;
      while ((await sent()).some((d) => d.state !== 'sent') && Date.now() < deadline)
        await new Promise((x) => setTimeout(x, 100));
      expect(await sent()).toEqual([{ state: 'sent' }, { state: 'sent' }]);
      // handed over and sent: later checks leave it alone
      expect((await runDailyReport(deps(stores.config, clients), now)).status).toBe('done_already');
      await new Promise((x) => setTimeout(x, 500));
      expect(smtp.mails.length).toBe(mailsBefore + 1);
    } finally {
      await deliver.close();
      await clients.close();
    }
  });

  it('a day whose report time passed while no scheduler ran is built late, before the next report time', async () => {
    const clients = new Clients(stores.config);
    try {
      // 07:00 Berlin on 03-31: the 03-30 report (08:00 on 03-30) was never built; 03-29's exists.
      const now = new Date('2026-03-31T05:00:00Z');
      const r = await runDailyReport(deps(stores.config, clients), now);
      expect(r).toMatchObject({ status: 'built', day: '2026-03-30' });
      const row = await stores.pg.query<{ period_start: Date; period_end: Date }>(
        `SELECT period_start, period_end FROM daily_reports WHERE day = '2026-03-30'`,
      );
      expect(row.rows[0]!.period_end.toISOString()).toBe('2026-03-30T06:00:00.000Z');
      expect(row.rows[0]!.period_start.toISOString()).toBe('2026-03-29T06:00:00.000Z');
      expect(await runDailyReport(deps(stores.config, clients), now)).toEqual({
        status: 'not_yet',
        runs_at: '2026-03-31T06:00:00.000Z',
      });
    } finally {
      await clients.close();
    }
  });

  it('the scheduler role runs the check as a BullMQ job scheduler: two processes, one report per day', async () => {
    // Today's report time has passed in this zone (an hour picked so that it has, whatever the clock).
    const hour = new Date().getUTCHours();
    const config = testConfig('daily_sched', {
      SERVICE_DAILY_REPORT_TIME: `${String(hour).padStart(2, '0')}:00`,
      SERVICE_DAILY_REPORT_TIMEZONE: 'UTC',
      SERVICE_DAILY_REPORT_CHECK_SECONDS: '1',
      NOTIFY_CHANNELS: '',
    });
    const s = await createTestStores(config, { kafka: false });
    const started: { close(): Promise<void> }[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const clients = new Clients(config);
        const handle = await schedulerRole({ config, log: memoryLogger().log, clients });
        started.push({ close: async () => (await handle.close?.(), await clients.close()) });
      }
      const deadline = Date.now() + 20_000;
      let n = 0;
      while (Date.now() < deadline && n === 0) {
        n = Number((await s.pg.query<{ n: string }>('SELECT count(*) AS n FROM daily_reports')).rows[0]!.n);
        await new Promise((x) => setTimeout(x, 200));
      }
      await new Promise((x) => setTimeout(x, 3000)); // several more ticks of both processes
      expect(Number((await s.pg.query<{ n: string }>('SELECT count(*) AS n FROM daily_reports')).rows[0]!.n)).toBe(1);
    } finally {
      for (const r of started) await r.close();
      await s.drop();
    }
  });
});
