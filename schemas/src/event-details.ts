// What the service reads from an event's `details` (spec: "structure of details: not shown"; the real
// agents are the contract, see AGENTS.md). One list per meaning, used by the store (ClickHouse columns),
// notify (messages) and the actions (gateway user), so a key the agents use is read everywhere or nowhere.

/**
 * The event's user, first non-empty wins. rdp-login-monitor (Login_Monitor.ps1) sends `user` on logins,
 * 4625, RD Gateway, WinRM, SMB and 4740 events and `target_user` on RDS shadow events.
 */
export const ACTOR_USER_KEYS = ['user', 'username', 'target_user', 'account'] as const;

/**
 * The remote (client) address, first non-empty wins: `source_ip` (rdp-login-monitor on WinRM and SMB,
 * ours), `ip_address` (rdp-login-monitor on 4624/4625/1149 logins), `external_ip` (its RD Gateway
 * client address; `internal_ip` there is the gateway's resource, not a source), `client_ip`, `ip`.
 */
export const SOURCE_ADDRESS_KEYS = ['source_ip', 'ip_address', 'external_ip', 'client_ip', 'ip'] as const;

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
