// What the service reads from an event's `details` (spec: "structure of details: not shown"; the real
// agents are the contract, see AGENTS.md). One list per meaning, used by the store (ClickHouse columns),
// notify (messages) and the actions (gateway user), so a key the agents use is read everywhere or nowhere.

import { severityRank } from './event-v1.ts';

/**
 * The event's user, first non-empty wins. rdp-login-monitor (Login_Monitor.ps1) sends `user` on logins,
 * 4625, RD Gateway, WinRM, SMB and 4740 events; on RDS shadow events (rdp.shadow.control.*) the one who
 * acts is `shadower_user` (`target_user` is the one watched). Burst alerts carry theirs in `bucket_key`
 * (burstBucket below): read a user with eventUserOf, an address with sourceAddressOf.
 */
export const ACTOR_USER_KEYS = ['user', 'username', 'shadower_user', 'target_user', 'account'] as const;

/**
 * The remote (client) address, first non-empty wins: `source_ip` (rdp-login-monitor on WinRM and SMB,
 * ours), `ip_address` (rdp-login-monitor on 4624/4625/1149 logins), `external_ip` (its RD Gateway
 * client address; `internal_ip` there is the gateway's resource, not a source), `client_ip`, `ip`.
 */
export const SOURCE_ADDRESS_KEYS = ['source_ip', 'ip_address', 'external_ip', 'client_ip', 'ip'] as const;

/**
 * What rdp-login-monitor's burst alert (rdp.bruteforce.burst) says only in `details.bucket_key`
 * (Login_Monitor.ps1, Get-FailedLogonSourceKeyPart and the keys of its 4625 rate limit):
 * `tier1:<source>|<user>` (one user from one source) or `tier2:<source>` (one source), the source being
 * `ip:<address>`, `wks:<workstation>` or `unknown`, the user `(не указан)` when Windows gave none.
 */
export function burstBucket(details: unknown): { address: string | null; workstation: string | null; user: string | null } {
  const none = { address: null, workstation: null, user: null };
  const key = detailText(details, ['bucket_key']);
  const m = key === null ? null : /^tier[12]:(?:ip:([^|]+)|wks:([^|]+)|unknown)(?:\|(.+))?$/s.exec(key);
  if (!m) return none;
  const user = m[3]?.trim();
  return {
    address: m[1]?.trim() || null,
    workstation: m[2]?.trim() || null,
    user: user && user !== '(не указан)' ? user : null,
  };
}

/** The event's user: ACTOR_USER_KEYS, else a burst alert's bucket user; null when none. */
export function eventUserOf(details: unknown): string | null {
  return detailText(details, ACTOR_USER_KEYS) ?? burstBucket(details).user;
}

/** The event's remote address: SOURCE_ADDRESS_KEYS, else a burst alert's bucket address; null when none. */
export function sourceAddressOf(details: unknown): string | null {
  return detailText(details, SOURCE_ADDRESS_KEYS) ?? burstBucket(details).address;
}

/** An agent daily report's HTML body (rdp-login-monitor: `report_html`), else `html`. */
export const REPORT_HTML_KEYS = ['report_html', 'html'] as const;
/** An agent daily report's plain-text body (rdp-login-monitor: `report_body`), else `body`, else `summary`. */
export const REPORT_TEXT_KEYS = ['report_body', 'body', 'summary'] as const;

/**
 * Values rdp-login-monitor writes when Windows did not say (Get-LoginEventInfo: "-",
 * Get-RDGatewayEventInfo: "N/A"): no value, not a user or address named "-".
 */
const PLACEHOLDERS = new Set(['-', 'n/a']);

/**
 * The first of `keys` in `details` holding a non-empty string (trimmed; agent placeholders skipped)
 * or a finite number (as text); null when none. `details` may be anything an agent sent.
 */
export function detailText(details: unknown, keys: readonly string[]): string | null {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return null;
  const d = details as Record<string, unknown>;
  for (const k of keys) {
    const v = d[k];
    if (typeof v === 'string') {
      const t = v.trim();
      if (t !== '' && !PLACEHOLDERS.has(t.toLowerCase())) return t;
    } else if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return null;
}

/**
 * True when the agent already told its chat itself: rdp-login-monitor in `UseSAC = dual` sends to its
 * own Telegram/e-mail and to us, marking the event `details.telegram_via = "agent"` (Sac-Client.ps1
 * Send-NotifyOrSac, Merge-SacNotifyDetails; "sac" in the other modes means we are its only channel).
 */
export function agentToldChat(details: unknown): boolean {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return false;
  const v = (details as Record<string, unknown>).telegram_via;
  return typeof v === 'string' && v.trim().toLowerCase() === 'agent';
}

/**
 * What an event is, whatever the agent labelled it. rdp-login-monitor sends a failed logon (Windows 4625)
 * as `agent.notification`, severity info, title "RDP login event 4625", when its failed-logon rate limit
 * is off (Login_Monitor.ps1 main loop: `$sacType` is rdp.login.success for 4624 and agent.notification for
 * every other id in that branch); with the limit on the same logon arrives as rdp.login.failed, warning.
 * The store's type and severity columns, correlate, notify and the live counters read this; the event
 * itself is kept as sent.
 */
export function eventKindOf<S extends string>(e: {
  type: string;
  severity: S;
  details?: unknown;
}): { type: string; severity: S | 'warning' } {
  if (e.type === 'agent.notification' && detailText(e.details, ['event_id_windows']) === '4625')
    return { type: 'rdp.login.failed', severity: severityRank(e.severity) > severityRank('warning') ? e.severity : 'warning' };
  return { type: e.type, severity: e.severity };
}
