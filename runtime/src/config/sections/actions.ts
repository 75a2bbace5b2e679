// Remote actions' settings (api/ACTIONS.md): the environment defaults of the `actions` worker, WinRM,
// SSH and agent updates; the settings saved in the UI (database) override winrm, ssh and agentUpdate.
import { isIP } from 'node:net';
import { ConfigError, envReader, type EnvVars } from '../env.ts';

/** Environment defaults of remote actions; the settings saved in the UI (database) override winrm, ssh and agentUpdate. */
export interface ActionsConfig {
  /** Bound of one remote operation (connect, command, read back), SSH and WinRM. */
  timeoutMs: number;
  /** Bound of an agent update (clone, install, read back). */
  updateTimeoutMs: number;
  /** How long the API waits for a synchronous action before answering 504. */
  waitMs: number;
  concurrency: number;
  /**
   * SERVICE_ACTION_TARGET_NETWORKS: the networks (CIDRs) remote actions may connect to, the default of the
   * setting in Settings → Remote access; empty = none (no remote action connects anywhere).
   */
  targetNetworks: string[];
  /** AES-256-GCM key for credentials at rest (base64 of 32 bytes); generated into the state dir when unset. */
  secretsKey: string | undefined;
  winrm: {
    username: string;
    password: string | undefined;
    transport: 'http' | 'https';
    port: number | undefined;
    /** HTTP authentication: Basic or NTLM (NTLMv2 session security is not used: HTTPS protects the body). */
    auth: 'basic' | 'ntlm';
    verifyTls: boolean;
    /**
     * WinRM over plain HTTP sends the credentials (Basic: the password; NTLM: a relayable response) to
     * whatever answers at an address agents report. Refused unless allowed, like Windows' AllowUnencrypted.
     */
    allowUnencrypted: boolean;
    /**
     * SERVICE_WINRM_CA_FILE: the operator's CA (PEM) for the hosts' WinRM certificates. A certificate it
     * issued for the host's name is trusted without a pin; without it every host's certificate waits for
     * an admin's acceptance. Public roots never make a certificate trusted (issue 33).
     */
    caFile: string;
  };
  ssh: { username: string; privateKeyFile: string | undefined; port: number };
  agentUpdate: {
    linux: { gitUrl: string; branch: string };
    windows: { gitUrl: string; branch: string };
    /** How long the latest version read from a repository's tags is cached. */
    refreshSeconds: number;
    /** file:// git URLs (tests and air-gapped mirrors). */
    allowFileUrls: boolean;
    /**
     * SERVICE_AGENT_UPDATE_ALLOW: addresses, CIDRs or host names the git SSRF guard lets through whatever
     * they are (loopback, link-local); public and private repositories need no entry.
     */
    allow: string[];
    /** Where the Linux updater script lives on managed hosts (installed there when missing). */
    linuxUpdaterPath: string;
    /** Minutes to wait for an agent.update event after the poll delivered an update, before the SSH/WinRM fallback. */
    fallbackMinutes: number;
    /** Base URL managed hosts use to download the Windows bundle (signed link); empty = http://HOST:PORT. */
    publicUrl: string;
  };
}

/** SERVICE_ACTION_TARGET_NETWORKS: comma-separated CIDRs (a bare address is one host); checked, not widened. */
function targetNetworks(env: EnvVars, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const i of items) {
    const [addr = '', prefix, extra] = i.split('/');
    const family = isIP(addr);
    const max = family === 6 ? 128 : 32;
    const ok =
      family !== 0 && extra === undefined && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max));
    if (!ok) throw new ConfigError(name, `expected comma-separated networks such as 10.20.0.0/16 or fd00::/8, got "${i}"`);
  }
  return [...new Set(items)];
}

/**
 * An agent-update git URL of the environment. The full check is core's checkGitUrl, where it is used; a
 * user name or token in an https:// URL stops the start here: it would be shown in the settings, stored
 * with actions and passed to the Linux hosts' command lines (ssh:// keeps its login name, not a secret).
 */
function gitUrlEnv(env: EnvVars, name: string): string {
  const v = envReader(env).str(name, '');
  let u: URL | undefined;
  try {
    u = new URL(v.trim());
  } catch {
    u = undefined;
  }
  if (u && (u.password || (u.username && u.protocol !== 'ssh:')))
    throw new ConfigError(
      name,
      'may not carry a user name, token or password: git credentials go to git itself (api/ACTIONS.md, "Agent updates")',
    );
  return v;
}

export function actionsConfig(env: EnvVars): ActionsConfig {
  const r = envReader(env);
  const timeoutMs = r.int('SERVICE_ACTION_TIMEOUT_MS', 30_000, 1000, 600_000);
  const waitMs = r.int('SERVICE_ACTION_WAIT_MS', timeoutMs + 15_000, 1000, 900_000);
  if (waitMs <= timeoutMs)
    throw new ConfigError(
      'SERVICE_ACTION_WAIT_MS',
      `must be greater than SERVICE_ACTION_TIMEOUT_MS (${timeoutMs}), got ${waitMs}`,
    );
  const winrmPort = r.int('SERVICE_WINRM_PORT', 0, 0, 65535);
  const updaterPath = r.str('SERVICE_AGENT_UPDATER_PATH', '/usr/local/sbin/watchpost-agent-update');
  if (!/^\/[A-Za-z0-9._/-]+$/.test(updaterPath) || updaterPath.includes('..'))
    throw new ConfigError(
      'SERVICE_AGENT_UPDATER_PATH',
      `expected an absolute path of letters, digits, . _ - /, got "${updaterPath}"`,
    );
  const publicUrl = r.str('SERVICE_PUBLIC_URL', '');
  if (publicUrl !== '') r.url('SERVICE_PUBLIC_URL', '', ['http:', 'https:']);
  return {
    timeoutMs,
    updateTimeoutMs: r.int('SERVICE_AGENT_UPDATE_TIMEOUT_MS', 600_000, 5000, 3_600_000),
    waitMs,
    concurrency: r.int('SERVICE_ACTIONS_CONCURRENCY', 4, 1, 64),
    targetNetworks: targetNetworks(env, 'SERVICE_ACTION_TARGET_NETWORKS'),
    secretsKey: env.SERVICE_SECRETS_KEY || undefined,
    winrm: {
      username: r.str('SERVICE_WINRM_USERNAME', ''),
      password: env.SERVICE_WINRM_PASSWORD || undefined,
      transport: r.oneOf('SERVICE_WINRM_TRANSPORT', ['http', 'https'] as const, 'https'),
      port: winrmPort === 0 ? undefined : winrmPort,
      auth: r.oneOf('SERVICE_WINRM_AUTH', ['basic', 'ntlm'] as const, 'basic'),
      verifyTls: r.bool('SERVICE_WINRM_VERIFY_TLS', true),
      allowUnencrypted: r.bool('SERVICE_WINRM_ALLOW_UNENCRYPTED', false),
      caFile: r.str('SERVICE_WINRM_CA_FILE', ''),
    },
    ssh: {
      username: r.str('SERVICE_SSH_USERNAME', ''),
      privateKeyFile: env.SERVICE_SSH_PRIVATE_KEY_FILE || undefined,
      port: r.int('SERVICE_SSH_PORT', 22, 1, 65535),
    },
    agentUpdate: {
      linux: {
        gitUrl: gitUrlEnv(env, 'SERVICE_AGENT_UPDATE_LINUX_GIT_URL'),
        branch: r.str('SERVICE_AGENT_UPDATE_LINUX_BRANCH', 'main'),
      },
      windows: {
        gitUrl: gitUrlEnv(env, 'SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL'),
        branch: r.str('SERVICE_AGENT_UPDATE_WINDOWS_BRANCH', 'main'),
      },
      refreshSeconds: r.int('SERVICE_VERSION_REFRESH_SECONDS', 900, 10, 86_400),
      allowFileUrls: r.bool('SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS', false),
      allow: (env.SERVICE_AGENT_UPDATE_ALLOW ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
      linuxUpdaterPath: updaterPath,
      fallbackMinutes: r.int('SERVICE_AGENT_UPDATE_FALLBACK_MINUTES', 30, 1, 10_080),
      publicUrl,
    },
  };
}
