// Each of ssh-monitor's alert kinds, as its own lines build it (testkit ssh-monitor-mail.ts), read into
// the event fields an operator expects.
import { describe, expect, it } from 'vitest';
import { linuxAgent, SSH_MONITOR_MAILS, sshMonitor, type SshMonitorMailKind } from '@watchpost/testkit';
import type { EventV1 } from '@watchpost/schemas';
import { parseSshMonitorMessage } from './ssh-monitor-messages.ts';

const at = '28.11.2026 10:15:30';

describe('parseSshMonitorMessage on the agent’s own texts', () => {
  it.each([
    ['login_success', 'ssh.login.success', 'info', { user: 'deploy', ip: '203.0.113.7' }],
    ['login_root', 'ssh.login.root', 'high', { user: 'root', ip: '203.0.113.7' }],
    ['login_failed', 'ssh.login.failed', 'warning', { user: 'deploy', ip: '203.0.113.7', attempt: 2, max_attempts: 5 }],
    ['ip_banned', 'ssh.ip.banned', 'high', { ip: '203.0.113.7', attempts: 5, ban_hours: 24 }],
    ['ban_disabled', 'ssh.bruteforce.limit', 'high', { ip: '203.0.113.7', attempts: 5, max_attempts: 5, ban_enabled: false }],
    ['bruteforce_mass', 'ssh.bruteforce.mass', 'high', { ip: '203.0.113.7', window_sec: 900, count: 35 }],
    [
      'sudo',
      'privilege.sudo.command',
      'warning',
      { user: 'deploy', run_as: 'root', command: '/usr/bin/systemctl restart nginx', cwd: '/home/deploy' },
    ],
    ['logind_new', 'session.logind.new', 'info', { user: 'deploy', session_id: 'c42' }],
    ['logind_removed', 'session.logind.removed', 'info', { session_id: 'c42' }],
    ['heartbeat', 'agent.heartbeat', 'info', {}],
    ['stopped', 'agent.lifecycle', 'warning', { lifecycle: 'stopped' }],
  ] as const)('%s: %s, %s, its details', (kind, type, severity, details) => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS[kind]);
    expect(m).toMatchObject({ kind, type, severity, details, agentTime: at });
  });

  it('the host key warning keeps the journal lines it quotes', () => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS.hostkey_changed);
    expect(m).toMatchObject({ kind: 'hostkey_changed', type: 'ssh.hostkey.changed', severity: 'high', agentTime: at });
    expect(m.details.lines).toEqual([expect.stringContaining('REMOTE HOST IDENTIFICATION HAS CHANGED')]);
  });

  it('a logind failure keeps its journal line', () => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS.logind_failed);
    expect(m).toMatchObject({ type: 'session.logind.failed', severity: 'warning' });
    expect(m.summary).toMatch(/^systemd-logind\[612\]: Failed to start session scope/);
  });

  it('the daily report: its counts, its whole text, its report time', () => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS.daily_report);
    expect(m).toMatchObject({
      type: 'report.daily.ssh',
      category: 'report',
      details: { successful_logins: 3, failed_logins: 7, sudo_commands: 2, active_bans: 1 },
      agentTime: '28.11.2026 09:00:00',
      server: 'web-01 (10.0.0.5)',
    });
    expect(m.details.report_body).toContain('203.0.113.7 — 5');
  });

  it('the start message gives the version and the server', () => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS.started);
    expect(m).toMatchObject({
      type: 'agent.lifecycle',
      details: { lifecycle: 'started' },
      version: '1.1.2-ipset',
      server: 'web-01 (10.0.0.5)',
      agentTime: at,
    });
  });

  it('with CRLF line ends and without emoji variation selectors, the same', () => {
    const text = SSH_MONITOR_MAILS.ip_banned.replace(/\n/g, '\r\n').replace(/\uFE0F/g, '');
    expect(parseSshMonitorMessage(text)).toMatchObject({ type: 'ssh.ip.banned', details: { attempts: 5, ban_hours: 24 } });
  });

  it('a text no template knows is an agent.notification with the whole text, never dropped', () => {
    const text = ' 🆕 НОВЫЙ ТИП УВЕДОМЛЕНИЯ \nчто-то ещё\n🕐 Время: 28.11.2026 10:15:30';
    expect(parseSshMonitorMessage(text)).toMatchObject({
      kind: 'unknown',
      type: 'agent.notification',
      severity: 'info',
      title: '🆕 НОВЫЙ ТИП УВЕДОМЛЕНИЯ',
      details: { text: text.trim() },
      agentTime: at,
    });
    expect(parseSshMonitorMessage('')).toMatchObject({ kind: 'unknown', title: 'ssh-monitor notification' });
  });
});

// testkit's sshMonitor builders are this project's proposal for an ssh-monitor that posts over HTTP; the
// same alert must mean the same to the service either way, so they take this parser's names.
describe('the HTTP proposal (testkit sshMonitor) and the e-mail of the same alert', () => {
  const a = linuxAgent('web-01');
  const s = sshMonitor;
  /** Set by the envelope (Merge-SacNotifyDetails), not by the alert. */
  const ENVELOPE = ['generated_by', 'telegram_via'];
  const cases: [SshMonitorMailKind, EventV1, string[]][] = [
    ['heartbeat', s.heartbeat(a), []],
    ['login_success', s.loginSuccess(a, 'deploy', '203.0.113.7'), ['port']],
    ['login_failed', s.loginFailed(a, 'deploy', '203.0.113.7'), []],
    ['sudo', s.sudo(a, 'deploy', '/usr/bin/systemctl restart nginx'), []],
    ['ip_banned', s.ban(a, '203.0.113.7'), ['ban_until']],
    ['bruteforce_mass', s.bruteforce(a, '203.0.113.7'), []],
    ['logind_new', s.logindSession(a, 'deploy'), []],
    ['daily_report', s.dailyReport(a, { success: 3, failed: 7, sudo: 2, top: [['203.0.113.7', 5]] }), ['top_failed_ips']],
  ];

  it.each(cases)('%s: the same type, severity, category and detail names', (kind, event, proposalOnly) => {
    const m = parseSshMonitorMessage(SSH_MONITOR_MAILS[kind]);
    expect([event.type, event.severity, event.category]).toEqual([m.type, m.severity, m.category]);
    const keys = Object.keys(event.details ?? {}).filter((k) => !ENVELOPE.includes(k));
    expect(keys.filter((k) => !proposalOnly.includes(k)).sort()).toEqual(Object.keys(m.details).sort());
    // A proposal-only field is one the e-mail cannot give; the builder must still send it.
    for (const k of proposalOnly) expect([k, k in m.details, keys.includes(k)]).toEqual([k, false, true]);
  });
});
