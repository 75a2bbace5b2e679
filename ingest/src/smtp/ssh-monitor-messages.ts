// What PTah/ssh-monitor (1.1.2-ipset) says in its alerts, read back into event fields (issue 32). The agent
// posts to no collector: each alert goes to every channel of its NOTIFY_CHAIN, the e-mail channel being a
// plain SMTP client (`send_email_raw`, lines 484-559 of `ssh-monitor`) whose body is the alert's text as the
// Telegram channel gets it. Every template below cites the lines of `ssh-monitor` that build it; the first
// line of the text (its emoji and capitals, between spaces) says which alert it is. Pure functions: the
// SMTP intake turns the result into a schema-v1 event. A text no template knows is an agent.notification
// with the whole text, never refused.
import type { Severity } from '@watchpost/schemas';

export interface SshMonitorMessage {
  /** Which template matched ('unknown' for none). */
  kind: string;
  type: string;
  category: 'auth' | 'privilege' | 'network' | 'session' | 'report' | 'agent';
  severity: Severity;
  title: string;
  summary: string;
  details: Record<string, string | number | boolean | string[]>;
  /** "🕐 Время" and the like: the host's local time as `dd.mm.yyyy HH:MM:SS`, no zone (notification_date). */
  agentTime: string | null;
  /** The agent's version where the text gives it (the start message). */
  version: string | null;
  /** `hostname (IPv4)` where the text gives it (server_display_name_with_ip, lines 1505-1559). */
  server: string | null;
}

/** "Label: value" lines after the header, by label (the emoji dropped); repeated labels keep the first. */
function fields(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of lines) {
    const m = /^\s*(?:\p{Extended_Pictographic}\uFE0F?\s*)?([^:]+?):\s?(.*)$/u.exec(l);
    if (m && !out.has(m[1]!.trim())) out.set(m[1]!.trim(), m[2]!.trim());
  }
  return out;
}

const int = (v: string | undefined): number | null => {
  const m = v === undefined ? null : /-?\d+/.exec(v);
  return m ? Number(m[0]) : null;
};

type Template = {
  kind: string;
  /** The header line, trimmed, as the script writes it. */
  header: RegExp;
  build(f: Map<string, string>, body: string[]): Omit<SshMonitorMessage, 'kind' | 'agentTime' | 'version' | 'server'>;
};

const TEMPLATES: Template[] = [
  {
    // monitor_ssh, lines 1142-1145: an accepted login (a second alert follows for root, below).
    kind: 'login_success',
    header: /^✅ УСПЕШНОЕ SSH ПОДКЛЮЧЕНИЕ$/u,
    build: (f) => {
      const user = f.get('Пользователь') ?? '';
      const ip = f.get('IP адрес') ?? '';
      return {
        type: 'ssh.login.success',
        category: 'auth',
        severity: 'info',
        title: `SSH login of ${user}`,
        summary: `Accepted SSH login for ${user} from ${ip}`,
        details: { user, ip },
      };
    },
  },
  {
    // monitor_ssh, lines 1149-1151: the same login again when the user is root.
    kind: 'login_root',
    header: /^🔑 SSH ВХОД ПОД ROOT$/u,
    build: (f) => {
      const ip = f.get('IP') ?? '';
      return {
        type: 'ssh.login.root',
        category: 'auth',
        severity: 'high',
        title: 'SSH login as root',
        summary: `SSH login as root from ${ip}`,
        details: { user: 'root', ip },
      };
    },
  },
  {
    // monitor_ssh, lines 1176-1180: a failed password from the 2nd attempt of an address on.
    kind: 'login_failed',
    header: /^❌ НЕУДАЧНАЯ ПОПЫТКА SSH$/u,
    build: (f, body) => {
      const user = f.get('Пользователь') ?? '';
      const ip = f.get('IP адрес') ?? '';
      const m = /Попытка\s+(\d+)\s+из\s+(\d+)/u.exec(body.join('\n'));
      const details: SshMonitorMessage['details'] = { user, ip };
      if (m) {
        details.attempt = Number(m[1]);
        details.max_attempts = Number(m[2]);
      }
      return {
        type: 'ssh.login.failed',
        category: 'auth',
        severity: 'warning',
        title: `Failed SSH login for ${user}`,
        summary: `Failed password for ${user} from ${ip}${m ? ` (attempt ${m[1]} of ${m[2]})` : ''}`,
        details,
      };
    },
  },
  {
    // block_ip, lines 875-879: the address added to the ipset at MAX_ATTEMPTS.
    kind: 'ip_banned',
    header: /^🚫 IP ЗАБЛОКИРОВАН АВТОМАТИЧЕСКИ$/u,
    build: (f) => {
      const ip = f.get('IP') ?? '';
      const attempts = int(f.get('Неудачных попыток'));
      const hours = int(f.get('Блокировка на'));
      const details: SshMonitorMessage['details'] = { ip };
      if (attempts !== null) details.attempts = attempts;
      if (hours !== null) details.ban_hours = hours;
      return {
        type: 'ssh.ip.banned',
        category: 'network',
        severity: 'high',
        title: `SSH: ${ip} banned`,
        summary: `${ip} banned for ${hours ?? '?'} h after ${attempts ?? '?'} failed attempts`,
        details,
      };
    },
  },
  {
    // block_ip, lines 851-855: the same threshold with ENABLE_IP_BAN=0: nothing banned.
    kind: 'ban_disabled',
    header: /^⚠ ЛИМИТ НЕУДАЧНЫХ SSH \(автобан отключён в конфиге\)$/u,
    build: (f) => {
      const ip = f.get('IP') ?? '';
      const line = f.get('Попыток') ?? '';
      const m = /(\d+)\s*\(порог\s+(\d+)/u.exec(line);
      const details: SshMonitorMessage['details'] = { ip, ban_enabled: false };
      if (m) {
        details.attempts = Number(m[1]);
        details.max_attempts = Number(m[2]);
      }
      return {
        type: 'ssh.bruteforce.limit',
        category: 'auth',
        severity: 'high',
        title: `SSH: ${ip} reached the failed-login limit (ban disabled)`,
        summary: `${ip}: ${m?.[1] ?? '?'} failed attempts (limit ${m?.[2] ?? '?'}), not banned: ENABLE_IP_BAN=0`,
        details,
      };
    },
  },
  {
    // monitor_security_events, lines 1354-1357: >= BRUTE_MIN_FAILS failures of one address in the window.
    kind: 'bruteforce_mass',
    header: /^🧨 ВОЗМОЖНЫЙ МАССОВЫЙ БРУТФОРС SSH$/u,
    build: (f, body) => {
      const ip = f.get('IP') ?? '';
      const m = /за\s+~(\d+)s:\s*(\d+)/u.exec(body.join('\n'));
      const details: SshMonitorMessage['details'] = { ip };
      if (m) {
        details.window_sec = Number(m[1]);
        details.count = Number(m[2]);
      }
      return {
        type: 'ssh.bruteforce.mass',
        category: 'auth',
        severity: 'high',
        title: `SSH mass brute force from ${ip}`,
        summary: `${m?.[2] ?? '?'} failed SSH logins from ${ip} in ~${m?.[1] ?? '?'} s`,
        details,
      };
    },
  },
  {
    // monitor_security_events, lines 1334-1336: up to 3 journal lines quoting the warning.
    kind: 'hostkey_changed',
    header: /^🔐 ВНИМАНИЕ: изменение SSH host key \/ MITM\?$/u,
    build: (_f, body) => {
      // The time may be glued to the last quoted line (agentTimeOf): cut it off.
      const lines = body.map((l) => l.replace(/🕐\s*Время.*$/u, '').trim()).filter((l) => l !== '');
      return {
        type: 'ssh.hostkey.changed',
        category: 'network',
        severity: 'high',
        title: 'SSH host key changed (possible MITM)',
        summary: lines[0]?.trim() ?? 'REMOTE HOST IDENTIFICATION HAS CHANGED',
        details: { lines },
      };
    },
  },
  {
    // monitor_sudo, lines 1288-1295: user, run-as (USER=, when sudo logged it), command, directory.
    kind: 'sudo',
    header: /^⚠ ИСПОЛЬЗОВАНИЕ SUDO$/u,
    build: (f) => {
      const user = f.get('Пользователь') ?? '';
      const runAs = f.get('От имени USER');
      const command = f.get('Команда') ?? '';
      const details: SshMonitorMessage['details'] = { user, command, cwd: f.get('Директория') ?? '' };
      if (runAs) details.run_as = runAs;
      return {
        type: 'privilege.sudo.command',
        category: 'privilege',
        severity: 'warning',
        title: `sudo by ${user}`,
        summary: `${user} ran ${command}${runAs ? ` as ${runAs}` : ''}`,
        details,
      };
    },
  },
  {
    // monitor_logind, lines 1465-1468: a new local session (SSH ones are skipped as duplicates).
    kind: 'logind_new',
    header: /^🖥 НОВАЯ СЕССИЯ \(systemd-logind\)$/u,
    build: (f) => {
      const user = f.get('Пользователь') ?? '';
      const sid = f.get('Сессия') ?? '';
      return {
        type: 'session.logind.new',
        category: 'session',
        severity: 'info',
        title: `New session of ${user}`,
        summary: `systemd-logind: new session ${sid} of user ${user}`,
        details: { user, session_id: sid },
      };
    },
  },
  {
    // monitor_logind, lines 1483-1485 (LOGIND_NOTIFY_REMOVED=1 only).
    kind: 'logind_removed',
    header: /^🚪 СЕССИЯ ЗАКРЫТА \(systemd-logind\)$/u,
    build: (f) => {
      const sid = f.get('Сессия') ?? '';
      return {
        type: 'session.logind.removed',
        category: 'session',
        severity: 'info',
        title: 'Session closed',
        summary: `systemd-logind: removed session ${sid}`,
        details: { session_id: sid },
      };
    },
  },
  {
    // monitor_logind, lines 1491-1493: a journal line of systemd-logind saying "failed".
    kind: 'logind_failed',
    header: /^❌ СБОЙ \(systemd-logind\)$/u,
    build: (_f, body) => {
      const line = (body.find((l) => /^\s*📝/u.test(l)) ?? '').replace(/^\s*📝\s*/u, '');
      return {
        type: 'session.logind.failed',
        category: 'session',
        severity: 'warning',
        title: 'systemd-logind failure',
        summary: line || 'systemd-logind reported a failure',
        details: { line },
      };
    },
  },
  {
    // send_daily_report, lines 1608-1630: counts of the last 24 h, top addresses, active users.
    kind: 'daily_report',
    header: /^📊 ЕЖЕДНЕВНЫЙ ОТЧЕТ SSH МОНИТОРИНГА$/u,
    build: (f, body) => {
      const text = body.join('\n');
      const n = (re: RegExp) => int(re.exec(text)?.[1]);
      const details: SshMonitorMessage['details'] = { report_body: text };
      const counts = {
        successful_logins: n(/Успешных SSH подключений:\s*(\d+)/u),
        failed_logins: n(/Неудачных попыток SSH:\s*(\d+)/u),
        sudo_commands: n(/Команд через sudo:\s*(\d+)/u),
        active_bans: n(/Активных банов \(ipset\):\s*(\d+)/u),
      };
      for (const [k, v] of Object.entries(counts)) if (v !== null) details[k] = v;
      return {
        type: 'report.daily.ssh',
        category: 'report',
        severity: 'info',
        title: 'Daily SSH report',
        summary: `SSH in 24 h: ${counts.successful_logins ?? '?'} logins, ${counts.failed_logins ?? '?'} failed, ${counts.sudo_commands ?? '?'} sudo (${f.get('Время отчета') ?? ''})`,
        details,
      };
    },
  },
  {
    // send_heartbeat, lines 1688-1690: every 12 h (check_heartbeat, the stamp survives restarts).
    kind: 'heartbeat',
    header: /^❤ Heartbeat - скрипт мониторинга работает$/u,
    build: () => ({
      type: 'agent.heartbeat',
      category: 'agent',
      severity: 'info',
      title: 'ssh-monitor heartbeat',
      summary: 'ssh-monitor is running',
      details: {},
    }),
  },
  {
    // send_startup_notification, lines 1746-1758.
    kind: 'started',
    header: /^✅ СКРИПТ МОНИТОРИНГА ЗАПУЩЕН$/u,
    build: (_f, body) => ({
      type: 'agent.lifecycle',
      category: 'agent',
      severity: 'info',
      title: 'ssh-monitor started',
      summary: 'ssh-monitor started',
      details: { lifecycle: 'started', notification_body: body.join('\n') },
    }),
  },
  {
    // send_shutdown_notification, lines 1770-1772.
    kind: 'stopped',
    header: /^⚠ СКРИПТ МОНИТОРИНГА ОСТАНОВЛЕН$/u,
    build: () => ({
      type: 'agent.lifecycle',
      category: 'agent',
      severity: 'warning',
      title: 'ssh-monitor stopped',
      summary: 'ssh-monitor stopped',
      details: { lifecycle: 'stopped' },
    }),
  },
];

/**
 * The local time an alert states (`🕐 Время…: dd.mm.yyyy HH:MM:SS`), null when none. Searched in the whole
 * text: the host-key alert glues it to the quoted journal line (its `$(printf '%s\n' "$hk")` loses the
 * newline, line 1335).
 */
function agentTimeOf(text: string): string | null {
  const all = [...text.matchAll(/🕐\s*Время[^:\n]*:\s*(\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2})/gu)];
  return all.at(-1)?.[1] ?? null;
}

/** Reads one alert text (the e-mail body, CRLF or LF) into event fields. */
export function parseSshMonitorMessage(text: string): SshMonitorMessage {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  // Emoji may come with or without their variation selector (U+FE0F): compared without.
  const header = first < 0 ? '' : lines[first]!.replace(/\uFE0F/g, '').trim();
  const body = first < 0 ? [] : lines.slice(first + 1);
  const f = fields(body);
  const t = TEMPLATES.find((x) => x.header.test(header));
  const common = {
    agentTime: agentTimeOf(text),
    version: f.get('Версия')?.replace(/^\?$/, '') || null,
    server: f.get('Сервер') ?? null,
  };
  if (t) return { kind: t.kind, ...t.build(f, body), ...common };
  const whole = text.trim();
  return {
    kind: 'unknown',
    type: 'agent.notification',
    category: 'agent',
    severity: 'info',
    title: (header || 'ssh-monitor notification').slice(0, 256),
    summary: whole.slice(0, 8192),
    details: { text: whole },
    ...common,
  };
}
