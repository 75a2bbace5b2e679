// Genuine agent payloads, written by us from the agents' public code (issue 22: the agents are the
// contract where the spec says "not shown"). Each builder cites the file and function whose output it
// reproduces. Windows: PTah/RDP-login-monitor 2.1.7-SAC (Sac-Client.ps1 builds the envelope,
// Login_Monitor.ps1 the details). Linux: PTah/ssh-monitor posts to no collector (its alerts reach us by
// e-mail, ingest/src/smtp), so its builders below are this project's proposal for a future ssh-monitor
// client, not a reproduction: the Windows client's envelope around the type, severity, category and
// detail names the SMTP intake gives the same alert (ingest/src/smtp/ssh-monitor-messages.ts), so an
// alert means the same to the service whichever way it came.
import { randomUUID } from 'node:crypto';
import type { EventV1 } from '@watchpost/schemas';

/** Login_Monitor.ps1 93 ($ScriptVersion, equal to version.txt 1 at HEAD); Sac-Client.ps1 365 sends it as product_version. */
export const RDP_MONITOR_VERSION = '2.1.7-SAC';
/** SSH_MONITOR_VERSION at the top of the ssh-monitor script. */
export const SSH_MONITOR_VERSION = '1.1.2-ipset';

export interface AgentIdentity {
  /** Windows: $env:COMPUTERNAME (NetBIOS, upper case; Sac-Client.ps1 290-313 Get-SacHostBlock, line 291); Linux: `hostname`. */
  hostname: string;
  /** The host's first IPv4 (Sac-Client.ps1 315-344 Get-SacHostIPv4; ssh-monitor server_display_name_with_ip). */
  ipv4?: string;
  /** Sac-Client.ps1 139-157 Get-SacAgentInstanceId: a GUID kept in the install folder. */
  agentInstanceId: string;
  /**
   * Sac-Client.ps1 858-914 Send-NotifyOrSac: `agent` in UseSAC=dual (895-900, the agent also told its Telegram),
   * else `sac` (exclusive 890-894, fallback 901-908).
   */
  telegramVia?: 'agent' | 'sac';
  /** UTC offset of the host's clock, minutes (occurred_at carries it: Sac-Client.ps1 166-178). */
  utcOffsetMinutes?: number;
  productVersion?: string;
}

export const windowsAgent = (hostname: string, over: Partial<AgentIdentity> = {}): AgentIdentity => ({
  hostname: hostname.toUpperCase(),
  ipv4: '10.0.0.21',
  agentInstanceId: randomUUID(),
  telegramVia: 'sac',
  utcOffsetMinutes: 180,
  ...over,
});

export const linuxAgent = (hostname: string, over: Partial<AgentIdentity> = {}): AgentIdentity => ({
  hostname,
  ipv4: '10.0.1.5',
  agentInstanceId: randomUUID(),
  telegramVia: 'sac',
  utcOffsetMinutes: 180,
  ...over,
});

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Local time of `at` on a clock `offset` minutes from UTC, as .NET's 'yyyy-MM-ddTHH:mm:ss.fffK' writes it:
 * Sac-Client.ps1 166-178 (Get-SacOccurredAtIso, Get-SacOccurredAtIsoFromDateTime).
 */
export function sacOccurredAt(at: Date, offsetMinutes = 180, millis = true): string {
  const l = new Date(at.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const o = Math.abs(offsetMinutes);
  const zone = `${sign}${pad(Math.floor(o / 60))}:${pad(o % 60)}`;
  return (
    `${l.getUTCFullYear()}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())}T${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:` +
    `${pad(l.getUTCSeconds())}${millis ? `.${pad(l.getUTCMilliseconds(), 3)}` : ''}${zone}`
  );
}

/** Sac-Client.ps1 248-257 (Get-SacCategoryForType). */
export function sacCategory(type: string): EventV1['category'] {
  if (/^agent\./.test(type)) return 'agent';
  if (/^(ssh\.|auth\.|rdp\.)/.test(type)) return 'auth';
  if (/^privilege\./.test(type)) return 'privilege';
  if (/^session\./.test(type)) return 'session';
  if (/^report\./.test(type)) return 'report';
  if (/^rdg\./.test(type)) return 'network';
  return 'agent';
}

/**
 * "HOST (ipv4)": Login_Monitor.ps1 2098-2119 (Get-MonitorServerLabel, Get-MonitorServerLabelWithIp; $ServerDisplayName
 * unset), ssh-monitor server_display_name_with_ip.
 */
const labelWithIp = (a: AgentIdentity) => (a.ipv4 ? `${a.hostname} (${a.ipv4})` : a.hostname);

interface Send {
  type: string;
  /** Default Get-SacCategoryForType; the Linux proposal sets the SMTP parser's where the two differ. */
  category?: EventV1['category'];
  severity: EventV1['severity'];
  title: string;
  summary: string;
  details?: Record<string, unknown>;
  /** -OccurredAt (the Windows event's TimeCreated; Sac-Client.ps1 362); default now (Get-SacOccurredAtIso). */
  at?: Date;
  /**
   * How the event left the agent: through Send-NotifyOrSac (Sac-Client.ps1 858-914, telegram_via from the mode), or
   * Send-SacEvent directly (Sac-Client.ps1 743-784, merged with TelegramVia '' at 758: inventory, deploy notice: no
   * telegram_via).
   */
  via: 'notify' | 'direct' | 'heartbeat';
}

/**
 * Sac-Client.ps1 346-379 (New-SacEventPayload; Limit-SacString 259-269 at 356-357) + 290-313 (Get-SacHostBlock),
 * with details merged by Merge-SacNotifyDetails 814-833 (generated_by = agent; telegram_via per Send-NotifyOrSac
 * 858-914; heartbeats always `sac`, 877-884).
 */
function sacEvent(a: AgentIdentity, product: 'rdp-login-monitor' | 'ssh-monitor', s: Send): EventV1 {
  const windows = product === 'rdp-login-monitor';
  const details: Record<string, unknown> = { ...s.details, generated_by: 'agent' };
  if (s.via === 'heartbeat') details.telegram_via = 'sac';
  else if (s.via === 'notify' && a.telegramVia) details.telegram_via = a.telegramVia;
  const host: EventV1['host'] = { hostname: a.hostname, os_family: windows ? 'windows' : 'linux' };
  host.display_name = labelWithIp(a);
  if (a.ipv4) host.ipv4 = a.ipv4;
  return {
    schema_version: '1.0',
    event_id: randomUUID(),
    // ssh-monitor has no client: `date -Iseconds` (seconds, offset) is what its shell would write.
    occurred_at: sacOccurredAt(s.at ?? new Date(), a.utcOffsetMinutes ?? 180, windows),
    source: {
      product,
      product_version: a.productVersion ?? (windows ? RDP_MONITOR_VERSION : SSH_MONITOR_VERSION),
      agent_instance_id: a.agentInstanceId,
    },
    host,
    category: s.category ?? sacCategory(s.type),
    type: s.type,
    severity: s.severity,
    title: s.title.slice(0, 256), // Limit-SacString
    summary: s.summary.slice(0, 8192),
    details,
  };
}

/** .NET 'dd.MM.yyyy HH:mm:ss' (Login_Monitor.ps1 2570 heartbeat stamp, 2250 daily report time). */
const dmy = (d: Date) =>
  `${pad(d.getDate())}.${pad(d.getMonth() + 1)}.${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

// --- rdp-login-monitor (Windows) -----------------------------------------------------------------

/**
 * Login_Monitor.ps1 4663-4689: the main loop's branch for a logon event outside the 4625 rate limit; `$sacType`
 * is rdp.login.success for 4624 and agent.notification for every other id (4675), severity info.
 */
function loginBranchEvent(
  a: AgentIdentity,
  id: number,
  user: string,
  ip: string,
  at: Date,
  logonType: number,
  wks: string,
): EventV1 {
  return sacEvent(a, 'rdp-login-monitor', {
    via: 'notify',
    at,
    type: id === 4624 ? 'rdp.login.success' : 'agent.notification',
    severity: 'info',
    title: `RDP login event ${id}`,
    summary: `Event ${id} ${user} from ${ip}`,
    details: { user, ip_address: ip, logon_type: logonType, event_id_windows: id, workstation_name: wks },
  });
}

export const rdpMonitor = {
  /**
   * Login_Monitor.ps1 2447-2461 (Send-RdpMonitorSacHeartbeat), called from Send-Heartbeat 2567-2717 (its
   * "dd.MM.yyyy HH:mm:ss" timestamp at 2570; calls at 2713/2715; main loop 5026-5029).
   */
  heartbeat: (a: AgentIdentity, at = new Date()) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'heartbeat',
      at, // occurred_at: Get-SacOccurredAtIso, the same "now" as the summary's stamp
      type: 'agent.heartbeat',
      severity: 'info',
      title: 'RDP monitor heartbeat',
      summary: `Heartbeat ${a.hostname} ${dmy(at)}`,
      details: { host: a.hostname },
    }),

  /** Login_Monitor.ps1 2406-2429 (Send-HostInventoryToSac) + 2285-2404 (Get-HostInventorySnapshot), sent by Send-SacEvent. */
  inventory: (a: AgentIdentity, over: { memory_gb?: number; processor?: string } = {}) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'direct',
      type: 'agent.inventory',
      severity: 'info',
      title: `Host inventory: ${labelWithIp(a)}`,
      summary: `Inventory snapshot for ${labelWithIp(a)}`,
      details: {
        inventory: {
          schema_version: 1,
          collected_at: new Date().toISOString(),
          computer_name: a.hostname,
          processor: [
            { name: over.processor ?? 'Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz', cores: 10, logical_processors: 20 },
          ],
          motherboard: { product: 'X11SPi-TF', manufacturer: 'Supermicro' },
          memory_gb: over.memory_gb ?? 64,
          disks: [{ friendly_name: 'SAMSUNG MZ7LH960HAJR', media_type: 'SSD', size_gb: 894.25 }],
          video: [{ name: 'Microsoft Basic Display Adapter' }],
          windows: {
            product_name: 'Windows Server 2019 Standard',
            version: '1809',
            os_hardware_abstraction_layer: '10.0.17763.5830',
          },
          ipv4: a.ipv4 ? [a.ipv4] : [],
        },
      },
    }),

  /**
   * Login_Monitor.ps1 1099-1126 (Send-RdpMonitorLifecycleNotification, 'started') from Send-Heartbeat -IsStartup
   * 2611-2713 (trigger 2623-2632, details extra 2690-2701, call 2703-2711; startup cause 2475-2540).
   */
  lifecycleStarted: (a: AgentIdentity, trigger: 'boot' | 'os_reboot' | 'process_start' | 'deploy_recycle' = 'process_start') =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      type: 'agent.lifecycle',
      severity: 'info',
      title: 'RDP login monitor started',
      summary: `Мониторинг запущен на ${labelWithIp(a)}, версия ${a.productVersion ?? RDP_MONITOR_VERSION}`,
      details: {
        lifecycle: 'started',
        trigger,
        startup_cause: trigger === 'os_reboot' ? 'os_reboot' : 'process_start',
        uptime_minutes: 42,
        notification_body: `✅ RDP LOGIN MONITOR ЗАПУЩЕН\n🖥️ Сервер: ${labelWithIp(a)}`,
      },
    }),

  /**
   * Login_Monitor.ps1 4663-4689 (main loop, the branch without the 4625 rate limit, 4624 -> rdp.login.success at 4675;
   * Get-LoginEventInfo 3266-3304): rdp.login.success.
   */
  loginSuccess: (a: AgentIdentity, user: string, ip: string, at = new Date(), logonType = 10) =>
    loginBranchEvent(a, 4624, user, ip, at, logonType, 'CLIENT-PC'),

  /** Login_Monitor.ps1 4618-4651 (main loop, 4625 with the rate limit's SendIndividual, send at 4636-4648): rdp.login.failed. */
  loginFailed: (a: AgentIdentity, user: string, ip: string, at = new Date()) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      at,
      type: 'rdp.login.failed',
      severity: 'warning',
      title: 'RDP login failed',
      summary: `4625 ${user} from ${ip}`,
      details: { user, ip_address: ip, logon_type: 3, event_id_windows: 4625, workstation_name: '-' },
    }),

  /**
   * Login_Monitor.ps1 4663-4689 (main loop, a 4625 with `$FailedLogonRateLimitEnabled` off): the branch that sends
   * 4624 as rdp.login.success sends every other id as agent.notification (4675), severity info.
   */
  loginFailedUnlimited: (a: AgentIdentity, user: string, ip: string, at = new Date(), logonType = 3) =>
    loginBranchEvent(a, 4625, user, ip, at, logonType, '-'),

  /**
   * Login_Monitor.ps1 4653-4662 (main loop, 4625 burst alerts) with Get-FailedLogonRateLimitDecision4625 3621-3683
   * (bucket keys 3642-3643), Get-FailedLogonBurstAlertIfNeeded 3575-3619, key from Get-FailedLogonSourceKeyPart 3443-3460.
   */
  bruteforceBurst: (a: AgentIdentity, ip: string, count: number) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      type: 'rdp.bruteforce.burst',
      severity: 'high',
      title: 'RDP bruteforce burst (IP)',
      summary: `4625 burst tier=IP count=${count}`,
      details: { tier: 'IP', count, bucket_key: `tier2:ip:${ip}` },
    }),

  /**
   * Login_Monitor.ps1 4698-4765 (main loop, RD Gateway branch, send 4737-4756) with Get-RDGatewayEventInfo 3968-4066,
   * Get-RdgGatewaySacEventType 3837-3845, Test-RdgGatewayBenignErrorCode 3813-3821:
   * 302 -> rdg.connection.success; 303 with a benign code (empty, 0, N/A, 1226) -> rdg.connection.disconnected;
   * 303 with another code -> rdg.connection.failed (warning). No session id: the agent has none.
   */
  gateway: (
    a: AgentIdentity,
    o: { code: 302 | 303; user: string; clientIp: string; resource: string; errorCode?: string; durationSec?: number; at?: Date },
  ) => {
    const err = o.errorCode ?? (o.code === 302 ? '0' : '1226');
    const benign = ['', '0', 'N/A', '1226'].includes(err.trim());
    const type = o.code === 302 ? 'rdg.connection.success' : benign ? 'rdg.connection.disconnected' : 'rdg.connection.failed';
    return sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      ...(o.at ? { at: o.at } : {}),
      type,
      severity: type === 'rdg.connection.failed' ? 'warning' : 'info',
      title: `RD Gateway event ${o.code}`,
      summary: `RDG ${o.code} ${o.user} -> ${o.resource}`,
      details: {
        user: o.user,
        external_ip: o.clientIp,
        internal_ip: o.resource,
        protocol: 'HTTP',
        gateway_error_code: err,
        // The agent never sends a 303 whose duration is 0 or less (Test-Rdg303ShouldSkipNotify 3957-3966):
        // a 303 given no duration lasted half an hour.
        session_duration_sec: o.durationSec ?? (o.code === 303 ? 1800 : 0),
        bytes_received: o.code === 303 ? 18_342 : 0,
        bytes_transferred: o.code === 303 ? 245_118 : 0,
        event_id_windows: o.code,
      },
    });
  },

  /**
   * Login_Monitor.ps1 4869-4933 (main loop, WinRM branch, send 4915-4929) with Get-WinRm91EventInfo 1705-1753
   * (logon_type from Find-CorrelatedNetworkLogon4624 1828-1874, at 4891): winrm.session.started.
   */
  winrmSession: (a: AgentIdentity, user: string, ip: string, at = new Date()) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      at,
      type: 'winrm.session.started',
      severity: 'warning',
      title: 'WinRM remote shell (Enter-PSSession)',
      summary: `WinRM 91 ${user} from ${ip}`,
      details: {
        event_id_windows: 91,
        user,
        source_ip: ip,
        ip_address: ip,
        resource_uri: 'http://schemas.microsoft.com/powershell/Microsoft.PowerShell',
        logon_type: 3,
        transport: 'winrm',
      },
    }),

  /**
   * Login_Monitor.ps1 4935-4981 (main loop, admin share branch, send 4962-4977) with Get-AdminShare5140EventInfo
   * 2015-2049: smb.admin_share.access.
   */
  adminShare: (a: AgentIdentity, user: string, ip: string, share = '\\\\*\\C$', at = new Date()) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      at,
      type: 'smb.admin_share.access',
      severity: 'warning',
      title: `Admin share access (${share})`,
      summary: `5140 ${user} from ${ip} share=${share}`,
      details: {
        event_id_windows: 5140,
        user,
        source_ip: ip,
        ip_address: ip,
        share_name: share,
        share_path: '\\??\\C:\\',
        relative_target: '',
        access_mask: '0x1',
      },
    }),

  /**
   * Login_Monitor.ps1 4983-5023 (main loop, 4740 branch, send 5008-5019) with Get-Lockout4740EventInfo 4245-4277:
   * auth.account.locked.
   */
  accountLocked: (a: AgentIdentity, user: string, domain: string, iisClientIps: string[] = [], at = new Date()) =>
    sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      at,
      type: 'auth.account.locked',
      severity: 'high',
      title: `Account locked ${user}`,
      summary: `4740 ${user}`,
      details: { user, domain, event_id_windows: 4740, iis_client_ips: iisClientIps },
    }),

  /**
   * Login_Monitor.ps1 4113-4159 (Send-DailyReport) with Build-DailyReportPlainBodyWindows 2243-2283 and
   * Get-DailyReportAuthStats24h 2126-2177: the plain body, its HTML (HtmlEncode, line breaks as <br>, 4139-4140)
   * and the stats (4126-4138).
   */
  dailyReport: (a: AgentIdentity, s: { success: number; failed: number; top: [string, number][]; users: string[] }) => {
    const version = a.productVersion ?? RDP_MONITOR_VERSION;
    const body = [
      '📊 ЕЖЕДНЕВНЫЙ ОТЧЕТ МОНИТОРИНГА WINDOWS',
      `Agent version ${version}`,
      `🖥️ Сервер: ${labelWithIp(a)}`,
      `🕐 Время отчета: ${dmy(new Date())}`,
      '',
      '📈 СТАТИСТИКА ЗА ПОСЛЕДНИЕ 24 ЧАСА:',
      ` ✅ Успешных RDP подключений: ${s.success}`,
      ` ❌ Неудачных попыток RDP: ${s.failed}`,
      ' 🚫 Активных банов: 0',
      '',
      '🧾 ТОП-5 IP ПО НЕУДАЧНЫМ ПОПЫТКАМ:',
      ...(s.top.length ? s.top.map(([ip, n]) => ` ${ip} — ${n}`) : [' (нет данных)']),
      '',
      `👥 АКТИВНЫЕ ПОЛЬЗОВАТЕЛИ (${s.users.length}):`,
      ...(s.users.length ? s.users.map((u) => ` 👤 ${u}`) : [' (нет активных пользователей / RDP-сессий)']),
      '',
      `📡 Оповещение: агент (rdp-login-monitor ${version})`,
    ].join('\r\n');
    const html = `<div class="agent-report">${htmlEncode(body).replace(/\r?\n/g, '<br>')}</div>`;
    return sacEvent(a, 'rdp-login-monitor', {
      via: 'notify',
      type: 'report.daily.rdp',
      severity: 'info',
      title: 'Ежедневный отчёт Windows',
      summary: `RDP 24ч: успех ${s.success}, неудач ${s.failed}, банов 0`,
      details: {
        stats: {
          platform: 'windows',
          successful_logins: s.success,
          failed_logins: s.failed,
          rdp_success: s.success,
          rdp_failed: s.failed,
          active_bans: 0,
          top_failed_ips: s.top.map(([ip, n]) => `${ip} — ${n}`),
          active_users: s.users.map((u) => `👤 ${u}`),
          unique_users: [...new Set(s.users)].sort(),
          active_sessions_rdp: s.users.length,
          generated_by: 'agent',
        },
        report_body: body,
        report_html: html,
        report_format: 'plain',
      },
    });
  },
};

/** [System.Net.WebUtility]::HtmlEncode (Login_Monitor.ps1 4139) for the ASCII specials a report holds. */
function htmlEncode(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

// --- ssh-monitor (Linux): this project's proposal for a future client ---------------------------
// The published script only sends e-mail (AGENTS.md, "ssh-monitor over SMTP"). Each builder carries the
// type, severity, category and detail names parseSshMonitorMessage gives the same alert (checked by
// ingest/src/smtp/ssh-monitor-messages.test.ts); a detail the alert text does not state, so the parser
// cannot give, is marked proposal-only where it is set.

export const sshMonitor = {
  /** ssh-monitor send_heartbeat (every 12 h, check_heartbeat's 43200 s). */
  heartbeat: (a: AgentIdentity, at = new Date()) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'heartbeat',
      type: 'agent.heartbeat',
      severity: 'info',
      title: 'SSH monitor heartbeat',
      summary: `Heartbeat - скрипт мониторинга работает, ${labelWithIp(a)}, ${dmy(at)}`,
      // No details.host (the Windows heartbeat's): the e-mail's server line lands in the host block, as here.
      details: {},
    }),

  /** ssh-monitor monitor_ssh, "Accepted" lines (extract_ssh_client_ip; user, ip; the port it dedups by). */
  loginSuccess: (a: AgentIdentity, user: string, ip: string, port = 52144, at = new Date()) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      at,
      type: 'ssh.login.success',
      severity: 'info',
      title: 'SSH login success',
      summary: `SSH успешный вход: ${user} с IP ${ip}`,
      // port: proposal-only, the journal line's (the detector's dedupe_port), which the alert text leaves out.
      details: { user, ip, port },
    }),

  /** ssh-monitor monitor_ssh, "Failed password" lines (user, ip, attempt n of MAX_ATTEMPTS). */
  loginFailed: (a: AgentIdentity, user: string, ip: string, attempt = 2, maxAttempts = 5, at = new Date()) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      at,
      type: 'ssh.login.failed',
      severity: 'warning',
      title: 'SSH login failed',
      summary: `SSH неудачная попытка: ${user} с IP ${ip} (попытка ${attempt} из ${maxAttempts})`,
      details: { user, ip, attempt, max_attempts: maxAttempts },
    }),

  /** ssh-monitor monitor_sudo (parse_sudo_audit_line: user, command, PWD= as cwd, USER= as run_as). */
  sudo: (a: AgentIdentity, user: string, command: string, runAs = 'root', at = new Date()) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      at,
      type: 'privilege.sudo.command',
      severity: 'warning',
      title: 'sudo command',
      summary: `SUDO: ${user} выполнил ${command} (USER=${runAs})`,
      details: { user, command, cwd: `/home/${user}`, run_as: runAs },
    }),

  /** ssh-monitor block_ip (ip, attempts; BAN_TIME, the ipset timeout in seconds, stated in whole hours). */
  ban: (a: AgentIdentity, ip: string, attempts = 5, banTimeSec = 86_400) => {
    const banHours = Math.floor(banTimeSec / 3600); // block_ip's ban_time_hours=$((BAN_TIME / 3600))
    return sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      type: 'ssh.ip.banned',
      category: 'network', // the SMTP parser's; Get-SacCategoryForType would say auth for ssh.*
      severity: 'high',
      title: 'IP banned',
      summary: `AUTO-BAN: IP ${ip} в ipset на ${banHours} ч. (${attempts} попыток)`,
      // ban_until: proposal-only, block_ip's end of ban (unix seconds) kept in its ban list, not in the alert.
      details: { ip, attempts, ban_hours: banHours, ban_until: Math.floor(Date.now() / 1000) + banTimeSec },
    });
  },

  /** ssh-monitor monitor_security_events, mass brute force (ip, count in BRUTE_WINDOW_SEC). */
  bruteforce: (a: AgentIdentity, ip: string, count = 40, windowSec = 300) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      type: 'ssh.bruteforce.mass',
      severity: 'high',
      title: 'Possible mass SSH brute force',
      summary: `SECURITY: массовый брутфорс? IP=${ip} fails=${count} за окно ${windowSec}s`,
      details: { ip, count, window_sec: windowSec },
    }),

  /** ssh-monitor monitor_logind, "New session" lines (parse_logind_new_session: session id, user). */
  logindSession: (a: AgentIdentity, user: string, sessionId = '42', at = new Date()) =>
    sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      at,
      type: 'session.logind.new',
      severity: 'info',
      title: 'New login session (systemd-logind)',
      summary: `LOGIND: новая сессия ${sessionId} пользователя ${user}`,
      details: { user, session_id: sessionId },
    }),

  /**
   * ssh-monitor send_daily_report: its message as report_body, the counters beside it under the SMTP parser's
   * names (not under `stats` as the Windows client nests its own).
   */
  dailyReport: (a: AgentIdentity, s: { success: number; failed: number; sudo: number; top: [string, number][] }) => {
    const body = [
      ' 📊 ЕЖЕДНЕВНЫЙ ОТЧЕТ SSH МОНИТОРИНГА ',
      `🖥️ Сервер: ${labelWithIp(a)}`,
      `🕐 Время отчета: ${dmy(new Date())}`,
      '',
      ' 📈 СТАТИСТИКА ЗА ПОСЛЕДНИЕ 24 ЧАСА: ',
      ` ✅ Успешных SSH подключений: ${s.success}`,
      ` ❌ Неудачных попыток SSH: ${s.failed}`,
      ` ⚠️ Команд через sudo: ${s.sudo}`,
      ' 🚫 Активных банов (ipset): 0',
      '',
      ' 🧾 ТОП-5 IP ПО НЕУДАЧНЫМ ПОПЫТКАМ:',
      ...(s.top.length ? s.top.map(([ip, n]) => ` • ${ip} — ${n}`) : [' (нет данных)']),
    ].join('\n');
    return sacEvent(a, 'ssh-monitor', {
      via: 'notify',
      type: 'report.daily.ssh',
      severity: 'info',
      title: 'Daily SSH report',
      summary: `SSH 24h: success ${s.success}, failed ${s.failed}, sudo ${s.sudo}`,
      details: {
        successful_logins: s.success,
        failed_logins: s.failed,
        sudo_commands: s.sudo,
        active_bans: 0,
        // Proposal-only: the top addresses as data (the e-mail has them only inside report_body).
        top_failed_ips: s.top.map(([ip, n]) => `${ip}:${n}`),
        report_body: body,
      },
    });
  },
};

/** One of every fixture, for schema and replay tests. */
export function everyAgentFixture(win = windowsAgent('WS-01'), lin = linuxAgent('web-01')): { name: string; event: EventV1 }[] {
  const r = rdpMonitor;
  const s = sshMonitor;
  return [
    ['rdp heartbeat', r.heartbeat(win)],
    ['rdp inventory', r.inventory(win)],
    ['rdp lifecycle', r.lifecycleStarted(win)],
    ['rdp login success', r.loginSuccess(win, 'CORP\\alice', '198.51.100.20')],
    ['rdp login failed', r.loginFailed(win, 'administrator', '203.0.113.50')],
    ['rdp bruteforce burst', r.bruteforceBurst(win, '203.0.113.50', 20)],
    ['rdg 302', r.gateway(win, { code: 302, user: 'CORP\\bob', clientIp: '198.51.100.30', resource: 'ws-01.corp.example' })],
    ['rdg 303', r.gateway(win, { code: 303, user: 'CORP\\bob', clientIp: '198.51.100.30', resource: 'ws-01.corp.example' })],
    [
      'rdg 303 failed',
      r.gateway(win, { code: 303, user: 'CORP\\bob', clientIp: '198.51.100.30', resource: '10.0.0.21', errorCode: '23' }),
    ],
    ['winrm session', r.winrmSession(win, 'CORP\\admin', '10.0.0.7')],
    ['smb admin share', r.adminShare(win, 'CORP\\admin', '10.0.0.8')],
    ['account locked', r.accountLocked(win, 'carol', 'CORP', ['198.51.100.40'])],
    ['rdp daily report', r.dailyReport(win, { success: 3, failed: 7, top: [['203.0.113.50', 5]], users: ['alice'] })],
    ['ssh heartbeat', s.heartbeat(lin)],
    ['ssh login success', s.loginSuccess(lin, 'deploy', '198.51.100.60')],
    ['ssh login failed', s.loginFailed(lin, 'root', '203.0.113.70')],
    ['sudo', s.sudo(lin, 'deploy', '/usr/bin/systemctl restart nginx')],
    ['ssh ban', s.ban(lin, '203.0.113.70')],
    ['ssh bruteforce', s.bruteforce(lin, '203.0.113.71')],
    ['logind session', s.logindSession(lin, 'deploy')],
    ['ssh daily report', s.dailyReport(lin, { success: 2, failed: 9, sudo: 4, top: [['203.0.113.70', 9]] })],
  ].map(([name, event]) => ({ name: name as string, event: event as EventV1 }));
}
