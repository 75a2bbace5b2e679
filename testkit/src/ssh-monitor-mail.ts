import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// PTah/ssh-monitor 1.1.2-ipset's alert texts, as its e-mail channel sends them (send_email_raw: the body is
// the Telegram text). Each was made by running the lines of `ssh-monitor` named beside it in bash, with
// notification_date fixed at 28.11.2026 10:15:30, the server web-01 (10.0.0.5) and the sample values of
// the text; nothing was retyped.
export const SSH_MONITOR_MAILS = {
  /** ssh-monitor lines 851-855 (block_ip, ENABLE_IP_BAN=0) */
  ban_disabled:
    ' ⚠️ ЛИМИТ НЕУДАЧНЫХ SSH (автобан отключён в конфиге) \n🌐 IP: 203.0.113.7\n👤 Попыток: 5 (порог 5; ENABLE_IP_BAN=0)\nℹ️ ipset/firewall не меняются. При ENABLE_IP_BAN=1 бан был бы ~24 ч.\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 875-879 (block_ip) */
  ip_banned:
    ' 🚫 IP ЗАБЛОКИРОВАН АВТОМАТИЧЕСКИ \n🌐 IP: 203.0.113.7\n📊 Неудачных попыток: 5\n⏱️ Блокировка на: 24 час(ов) (ipset timeout)\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1142-1145 (monitor_ssh) */
  login_success:
    ' ✅ УСПЕШНОЕ SSH ПОДКЛЮЧЕНИЕ \n👤 Пользователь: deploy\n🌐 IP адрес: 203.0.113.7\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1149-1151 (monitor_ssh, user root) */
  login_root: ' 🔑 SSH ВХОД ПОД ROOT \n🌐 IP: 203.0.113.7\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1176-1180 (monitor_ssh, 2nd attempt) */
  login_failed:
    ' ❌ НЕУДАЧНАЯ ПОПЫТКА SSH \n👤 Пользователь: deploy\n🌐 IP адрес: 203.0.113.7\n📊 Попытка 2 из 5\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1288-1295 (monitor_sudo, with USER=) */
  sudo: ' ⚠️ ИСПОЛЬЗОВАНИЕ SUDO \n👤 Пользователь: deploy\n🔑 От имени USER: root\n💻 Команда: /usr/bin/systemctl restart nginx\n📁 Директория: /home/deploy\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1334-1336 (monitor_security_events) */
  hostkey_changed:
    ' 🔐 ВНИМАНИЕ: изменение SSH host key / MITM? \nNov 28 10:15:29 web-01 ssh[4242]: @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1354-1357 (monitor_security_events) */
  bruteforce_mass:
    ' 🧨 ВОЗМОЖНЫЙ МАССОВЫЙ БРУТФОРС SSH \n🌐 IP: 203.0.113.7\n📊 Неудачных попыток за ~900s: 35\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1465-1468 (monitor_logind) */
  logind_new: ' 🖥️ НОВАЯ СЕССИЯ (systemd-logind) \n👤 Пользователь: deploy\n🆔 Сессия: c42\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1483-1485 (monitor_logind, LOGIND_NOTIFY_REMOVED=1) */
  logind_removed: ' 🚪 СЕССИЯ ЗАКРЫТА (systemd-logind) \n🆔 Сессия: c42\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1491-1493 (monitor_logind) */
  logind_failed:
    ' ❌ СБОЙ (systemd-logind) \n📝 systemd-logind[612]: Failed to start session scope session-c43.scope: Connection timed out\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1608-1630 (send_daily_report) */
  daily_report:
    ' 📊 ЕЖЕДНЕВНЫЙ ОТЧЕТ SSH МОНИТОРИНГА \n🖥️ Сервер: web-01 (10.0.0.5)\n🕐 Время отчета: 28.11.2026 09:00:00\n\n 📈 СТАТИСТИКА ЗА ПОСЛЕДНИЕ 24 ЧАСА: \n ✅ Успешных SSH подключений: 3\n ❌ Неудачных попыток SSH: 7\n ⚠️ Команд через sudo: 2\n 🚫 Активных банов (ipset): 1\n\n 🧾 ТОП-5 IP ПО НЕУДАЧНЫМ ПОПЫТКАМ:\n • 203.0.113.7 — 5\n • 198.51.100.9 — 2\n\n 👥 АКТИВНЫЕ ПОЛЬЗОВАТЕЛИ (1):\n deploy pts/0 (203.0.113.20)\n',
  /** ssh-monitor lines 1688-1690 (send_heartbeat) */
  heartbeat: ' ❤️ Heartbeat - скрипт мониторинга работает \n🖥️ Сервер: web-01 (10.0.0.5)\n🕐 Время: 28.11.2026 10:15:30',
  /** ssh-monitor lines 1746-1758 (send_startup_notification, ENABLE_IP_BAN=1) */
  started:
    ' ✅ СКРИПТ МОНИТОРИНГА ЗАПУЩЕН \n📌 Версия: 1.1.2-ipset\n🖥️ Сервер: web-01 (10.0.0.5)\n🕐 Время запуска: 28.11.2026 10:15:30\n📊 Мониторинг SSH, SUDO и systemd-logind активирован\n🚫 Автоблокировка (ipset): после 5 попыток, timeout 86400 с (ssh_monitor_ban)\n⚪ Белый список: 2 IP/подсетей\n❤️ Heartbeat будет отправляться каждые 12 часов\n📢 Каналы уведомлений (все по списку): telegram, email',
  /** ssh-monitor lines 1770-1772 (send_shutdown_notification) */
  stopped: ' ⚠️ СКРИПТ МОНИТОРИНГА ОСТАНОВЛЕН \n🖥️ Сервер: web-01 (10.0.0.5)\n🕐 Время остановки: 28.11.2026 10:15:30',
} as const;

export type SshMonitorMailKind = keyof typeof SSH_MONITOR_MAILS;

const SEND_EMAIL = fileURLToPath(new URL('../python/ssh_monitor_send_email.py', import.meta.url));

export interface SshMonitorSmtp {
  port: number;
  /** MAIL_SMTP_PASSWORD: the agent key. */
  password: string;
  /** The only CA the agent's python trusts (SSL_CERT_FILE), as a fleet would trust its own. */
  certFile: string;
}

/**
 * Sends `body` as ssh-monitor's e-mail channel does (testkit/python/ssh_monitor_send_email.py: the agent's
 * send_email_raw, STARTTLS with verification); resolves with the exit code and what it printed on failure.
 * `env` overrides the agent's MAIL_* settings.
 */
export function sshMonitorSendEmail(
  smtp: SshMonitorSmtp,
  body: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [SEND_EMAIL], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SSL_CERT_FILE: smtp.certFile,
        MAIL_BODY: body,
        MAIL_SMTP_HOST: '127.0.0.1',
        MAIL_SMTP_PORT: String(smtp.port),
        MAIL_SMTP_USER: 'ssh-monitor',
        MAIL_SMTP_PASSWORD: smtp.password,
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
