// What rdp-login-monitor's own deploy does to a host's login_monitor.settings.ps1, and whether the monitor
// then starts: a model of PTah/RDP-login-monitor 2.1.7-SAC, rule by rule, to run against the bundle the
// service builds (processors/src/actions/bundle.ts). The regular expressions are the agent's, translated
// from .NET to JavaScript ((?m) -> the m flag; [''"] -> ['"]).
//
// Deploy-LoginMonitor.ps1 (main body, lines 1590 and 1611-1613):
//   Sync-RdpMonitorSettingsFromShare -ExampleOnShare <share>\login_monitor.settings.example.ps1 ...
//   if ($isScriptVersionUpgrade) { Sync-RdpMonitorUseSacFallbackMode ... }
// Login_Monitor.ps1 (lines 5069-5076): with $UseSAC not 'off' and no $SacUrl or $SacApiKey
// (Sac-Client.ps1 Test-SacConfigured), it logs "UseSAC=…, но SacUrl/SacApiKey не заданы" and exits 1,
// at every start of its scheduled task.

/** The public example's text (login_monitor.settings.example.ps1, lines 1-22 and 33-36 of 2.1.7-SAC). */
export const PUBLIC_SETTINGS_EXAMPLE = [
  '# Telegram bot token (use BotFather; never commit real values)',
  "$TelegramBotToken = 'YOUR_TELEGRAM_BOT_TOKEN'",
  "$TelegramChatID = 'YOUR_TELEGRAM_CHAT_ID'",
  '',
  '# --- Security Alert Center (optional) ---',
  '# UseSAC: off | exclusive | dual | fallback',
  "$UseSAC = 'off'",
  "$SacUrl = 'https://sac.example.com'",
  "# $SacApiKey = 'your-ingest-api-key'",
  '',
  '# --- Log rotation and backup retention (Logs\\Backup\\LoginLog_*.bak) ---',
  '$MaxBackupDays = 31',
  '',
].join('\r\n');

const USE_SAC = /^\s*\$UseSAC\s*=/m;
const USE_SAC_OFF = /^\s*\$UseSAC\s*=\s*['"]off['"]/m;
const USE_SAC_FALLBACK = /^\s*\$UseSAC\s*=\s*['"]fallback['"]/m;
const KEY_LITERAL = /^\s*\$SacApiKey\s*=\s*['"]sac_[^'"]+['"]/m;
const KEY_EMPTY = /^\s*\$SacApiKey\s*=\s*['"]\s*['"]/m;
const URL_LITERAL = /^\s*\$SacUrl\s*=\s*['"]https?:\/\/[^'"]+['"]/m;

/** Deploy-LoginMonitor.ps1 Test-RdpMonitorSettingsNeedsSacBootstrap (lines 263-277). */
export function needsSacBootstrap(c: string | undefined): boolean {
  if (c === undefined || c.trim() === '') return true;
  if (!USE_SAC.test(c)) return true;
  if (USE_SAC_OFF.test(c) && !KEY_LITERAL.test(c)) return true;
  if (KEY_EMPTY.test(c)) return true;
  if (!KEY_LITERAL.test(c)) return true;
  if (!URL_LITERAL.test(c)) return true;
  return false;
}

/** Get-RdpMonitorSacBlockFromExample (lines 975-989): the example's "# --- Security Alert Center" section. */
function sacBlockOf(example: string): string {
  const m = /(#\s*---\s*Security Alert Center[\s\S]*?)(?=\r?\n#\s*---|$)/.exec(example);
  if (m) return m[1]!.trimEnd();
  return [
    '# --- Security Alert Center (SAC) ---',
    "$UseSAC = 'fallback'",
    "$SacUrl = 'https://sac.example.com'",
    "$SacApiKey = 'sac_CHANGE_ME'",
  ].join('\r\n');
}

/** Update-RdpMonitorSettingsSacBlockIfMissing (lines 1020-1055): the new text, or null when it leaves the file. */
function sacBlockReplaced(c: string, example: string): string | null {
  if (USE_SAC.test(c) && KEY_LITERAL.test(c) && !USE_SAC_OFF.test(c)) return null;
  let t = c;
  if (USE_SAC.test(t))
    for (const name of [
      'UseSAC',
      'SacUrl',
      'SacApiKey',
      'SacSpoolDir',
      'SacTimeoutSec',
      'SacTlsSkipVerify',
      'SacFallbackFailures',
    ])
      t = t.replace(new RegExp(`^\\s*\\$${name}\\s*=.*$`, 'gm'), '');
  return `${`${t.trimEnd()}\r\n\r\n${sacBlockOf(example)}\r\n`.trimEnd()}\r\n`;
}

/** Sync-RdpMonitorUseSacFallbackMode (lines 991-1012): every $UseSAC literal becomes 'fallback'. */
function forceFallback(c: string): string {
  if (USE_SAC_FALLBACK.test(c) || !USE_SAC.test(c)) return c;
  return `${c.replace(/^(\s*\$UseSAC\s*=\s*)['"][^'"]+['"]/gm, "$1'fallback'").trimEnd()}\r\n`;
}

/**
 * The host's settings after the deploy ran from a folder holding `example` (undefined: the folder has no
 * login_monitor.settings.example.ps1), `upgrade` when the deployed version is newer than the installed one.
 * Sync-RdpMonitorSettingsFromShare (lines 1057-1096), then the fallback rule. The post-patches
 * (heartbeat interval, inventory and others) add lines the SAC decision does not read: left out.
 */
export function settingsAfterDeploy(
  settings: string | undefined,
  example: string | undefined,
  upgrade: boolean,
): string | undefined {
  let c = settings;
  if (example !== undefined && needsSacBootstrap(c)) {
    if (c === undefined) c = example;
    else c = sacBlockReplaced(c, example) ?? example; // no SAC block to patch: the example replaces the file
  }
  if (upgrade && c !== undefined) c = forceFallback(c);
  return c;
}

/**
 * Whether Login_Monitor.ps1 gets past its start with these settings: $UseSAC 'off', or a URL and a key.
 * A key assigned from an expression (an environment variable, a file) counts as present: the deploy cannot
 * read it, the monitor can.
 */
export function monitorStarts(settings: string | undefined): { starts: boolean; why: string } {
  if (settings === undefined) return { starts: false, why: 'no login_monitor.settings.ps1' };
  const mode = /^\s*\$UseSAC\s*=\s*['"]([^'"]*)['"]/m.exec(settings)?.[1]?.trim().toLowerCase() ?? 'off';
  if (mode === 'off') return { starts: true, why: 'UseSAC off: local channels only' };
  const key = /^\s*\$SacApiKey\s*=\s*(.+)$/m.exec(settings)?.[1]?.trim();
  const url = /^\s*\$SacUrl\s*=\s*(.+)$/m.exec(settings)?.[1]?.trim();
  const empty = (v: string | undefined) => v === undefined || /^(['"])\s*\1$/.test(v);
  if (empty(key) || empty(url)) return { starts: false, why: `UseSAC=${mode}, но SacUrl/SacApiKey не заданы: exit 1` };
  return { starts: true, why: `UseSAC=${mode}` };
}
