// Remote-action settings edited in the UI (table `settings`), each field overriding its environment
// default (spec: authentication rule 6). Secrets are stored encrypted (secrets.ts) and never returned:
// views say only whether one is set.
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { readFile } from 'node:fs/promises';
import { decryptSecret, encryptSecret } from './secrets.ts';
import { displayGitUrl } from './git-url.ts';
import { loadLatestVersions } from './latest-versions.ts';
import { targetNetworksError } from './target-networks.ts';
import type { AgentKind } from './agent-kind.ts';

export const WINRM_SETTINGS_KEY = 'actions.winrm';
export const SSH_SETTINGS_KEY = 'actions.ssh';
export const AGENT_UPDATE_SETTINGS_KEY = 'actions.agent_update';
export const TARGET_NETWORKS_SETTINGS_KEY = 'actions.target_networks';

export interface WinrmSettings {
  username: string;
  password: string | undefined;
  transport: 'http' | 'https';
  port: number;
  auth: 'basic' | 'ntlm';
  verifyTls: boolean;
  allowUnencrypted: boolean;
}
export interface SshSettings {
  username: string;
  privateKey: string | undefined;
  port: number;
}
export type AgentUpdateSettings = Record<AgentKind, { gitUrl: string; branch: string }>;

interface StoredWinrm {
  username?: string;
  password_enc?: string;
  transport?: 'http' | 'https';
  port?: number;
  auth?: 'basic' | 'ntlm';
  verify_tls?: boolean;
  allow_unencrypted?: boolean;
}
interface StoredSsh {
  username?: string;
  private_key_enc?: string;
  port?: number;
}
type StoredAgentUpdate = Partial<Record<AgentKind, { git_url?: string; branch?: string }>>;

async function readSetting<T>(pg: Pool, key: string): Promise<T | undefined> {
  const r = await pg.query<{ value: T }>('SELECT value FROM settings WHERE key = $1', [key]);
  return r.rows[0]?.value;
}

async function writeSetting(pg: Pool, key: string, value: unknown, by: string): Promise<void> {
  await pg.query(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2, now(), $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [key, JSON.stringify(value), by],
  );
}

const defaultWinrmPort = (t: 'http' | 'https') => (t === 'https' ? 5986 : 5985);

export async function loadWinrmSettings(pg: Pool, env: ActionsConfig, key: Buffer): Promise<WinrmSettings> {
  const db = (await readSetting<StoredWinrm>(pg, WINRM_SETTINGS_KEY)) ?? {};
  const transport = db.transport ?? env.winrm.transport;
  return {
    username: db.username ?? env.winrm.username,
    password: db.password_enc ? decryptSecret(key, db.password_enc, WINRM_SETTINGS_KEY) : env.winrm.password,
    transport,
    port: db.port ?? env.winrm.port ?? defaultWinrmPort(transport),
    auth: db.auth ?? env.winrm.auth,
    verifyTls: db.verify_tls ?? env.winrm.verifyTls,
    allowUnencrypted: db.allow_unencrypted ?? env.winrm.allowUnencrypted,
  };
}

/**
 * Why WinRM with these settings may not carry credentials, or null when it may. Over plain HTTP no peer
 * can be verified: Basic (the password itself) is never sent there; NTLM (sealed, as `winrm quickconfig`
 * expects) only with the explicit allowance, since whatever answers at the address gets an NTLMv2 response. The automatic update fallback (nobody watching) also needs HTTPS with the
 * certificate check. Over HTTPS the worker pins each host's certificate besides (winrm-host.ts).
 */
export function winrmRefusal(
  s: Pick<WinrmSettings, 'transport' | 'verifyTls' | 'allowUnencrypted' | 'auth'>,
  automatic = false,
): string | null {
  if (automatic && (s.transport !== 'https' || !s.verifyTls))
    return 'the automatic update over WinRM needs HTTPS with the certificate check (the host address comes from its events); start it by hand';
  if (s.transport === 'http' && s.auth === 'basic')
    return 'WinRM Basic authentication over HTTP would send the administrator password readable to whatever answers at the host address: use HTTPS (port 5986) with a certificate an admin accepts (api/ACTIONS.md)';
  if (s.transport === 'http' && !s.allowUnencrypted)
    return "WinRM over HTTP cannot verify the host: whatever answers at the host address would get the administrator's NTLMv2 response (messages are sealed, but the response can be cracked offline or relayed): use HTTPS (port 5986) with a certificate an admin accepts (api/ACTIONS.md)";
  return null;
}

/** What the API shows: no password, only whether one is set and where each value comes from. */
export async function winrmSettingsView(pg: Pool, env: ActionsConfig) {
  const db = (await readSetting<StoredWinrm>(pg, WINRM_SETTINGS_KEY)) ?? {};
  const transport = db.transport ?? env.winrm.transport;
  return {
    username: db.username ?? env.winrm.username,
    password_set: Boolean(db.password_enc ?? env.winrm.password),
    password_source: db.password_enc ? ('database' as const) : env.winrm.password ? ('environment' as const) : null,
    transport,
    port: db.port ?? env.winrm.port ?? defaultWinrmPort(transport),
    auth: db.auth ?? env.winrm.auth,
    verify_tls: db.verify_tls ?? env.winrm.verifyTls,
    allow_unencrypted: db.allow_unencrypted ?? env.winrm.allowUnencrypted,
  };
}

/** Fields left out keep their stored value; `password: null` removes the stored password (env applies again). */
export async function saveWinrmSettings(
  pg: Pool,
  key: Buffer,
  input: Partial<{
    username: string;
    password: string | null;
    transport: 'http' | 'https';
    port: number;
    auth: 'basic' | 'ntlm';
    verify_tls: boolean;
    allow_unencrypted: boolean;
  }>,
  by: string,
): Promise<void> {
  const db = (await readSetting<StoredWinrm>(pg, WINRM_SETTINGS_KEY)) ?? {};
  const next: StoredWinrm = { ...db };
  if (input.username !== undefined) next.username = input.username;
  if (input.transport !== undefined) next.transport = input.transport;
  if (input.port !== undefined) next.port = input.port;
  if (input.auth !== undefined) next.auth = input.auth;
  if (input.verify_tls !== undefined) next.verify_tls = input.verify_tls;
  if (input.allow_unencrypted !== undefined) next.allow_unencrypted = input.allow_unencrypted;
  if (input.password === null) delete next.password_enc;
  else if (input.password !== undefined) next.password_enc = encryptSecret(key, input.password, WINRM_SETTINGS_KEY);
  await writeSetting(pg, WINRM_SETTINGS_KEY, next, by);
}

export async function loadSshSettings(pg: Pool, env: ActionsConfig, key: Buffer): Promise<SshSettings> {
  const db = (await readSetting<StoredSsh>(pg, SSH_SETTINGS_KEY)) ?? {};
  let privateKey = db.private_key_enc ? decryptSecret(key, db.private_key_enc, SSH_SETTINGS_KEY) : undefined;
  if (privateKey === undefined && env.ssh.privateKeyFile) privateKey = await readFile(env.ssh.privateKeyFile, 'utf8');
  return { username: db.username ?? env.ssh.username, privateKey, port: db.port ?? env.ssh.port };
}

export async function sshSettingsView(pg: Pool, env: ActionsConfig) {
  const db = (await readSetting<StoredSsh>(pg, SSH_SETTINGS_KEY)) ?? {};
  return {
    username: db.username ?? env.ssh.username,
    private_key_set: Boolean(db.private_key_enc ?? env.ssh.privateKeyFile),
    private_key_source: db.private_key_enc ? ('database' as const) : env.ssh.privateKeyFile ? ('environment' as const) : null,
    port: db.port ?? env.ssh.port,
  };
}

export async function saveSshSettings(
  pg: Pool,
  key: Buffer,
  input: Partial<{ username: string; private_key: string | null; port: number }>,
  by: string,
): Promise<void> {
  const db = (await readSetting<StoredSsh>(pg, SSH_SETTINGS_KEY)) ?? {};
  const next: StoredSsh = { ...db };
  if (input.username !== undefined) next.username = input.username;
  if (input.port !== undefined) next.port = input.port;
  if (input.private_key === null) delete next.private_key_enc;
  else if (input.private_key !== undefined) next.private_key_enc = encryptSecret(key, input.private_key, SSH_SETTINGS_KEY);
  await writeSetting(pg, SSH_SETTINGS_KEY, next, by);
}

export async function loadAgentUpdateSettings(pg: Pool, env: ActionsConfig): Promise<AgentUpdateSettings> {
  const db = (await readSetting<StoredAgentUpdate>(pg, AGENT_UPDATE_SETTINGS_KEY)) ?? {};
  const one = (k: AgentKind) => ({
    gitUrl: db[k]?.git_url ?? env.agentUpdate[k].gitUrl,
    branch: db[k]?.branch ?? env.agentUpdate[k].branch,
  });
  return { linux: one('linux'), windows: one('windows') };
}

export async function saveAgentUpdateSettings(
  pg: Pool,
  input: Partial<Record<AgentKind, { git_url?: string; branch?: string }>>,
  by: string,
): Promise<void> {
  const db = (await readSetting<StoredAgentUpdate>(pg, AGENT_UPDATE_SETTINGS_KEY)) ?? {};
  const next: StoredAgentUpdate = { ...db };
  for (const k of ['linux', 'windows'] as const) if (input[k]) next[k] = { ...db[k], ...input[k] };
  await writeSetting(pg, AGENT_UPDATE_SETTINGS_KEY, next, by);
}

/**
 * The agent-update repositories with the newest release last read from each (when it is still the configured
 * URL and ref): the commit it was read at and whether the ref follows a branch or pins a tag or commit.
 * A URL is shown without credentials (one saved before they were refused keeps them stored, never shown).
 */
export async function agentUpdateSettingsView(pg: Pool, env: ActionsConfig) {
  const s = await loadAgentUpdateSettings(pg, env);
  const latest = await loadLatestVersions(pg);
  const one = (k: AgentKind) => {
    const l = latest[k]?.git_url === s[k].gitUrl ? latest[k] : undefined;
    const read = l?.branch === s[k].branch ? l : undefined;
    return {
      git_url: displayGitUrl(s[k].gitUrl),
      branch: s[k].branch,
      latest_version: l?.version ?? null,
      commit: read?.commit ?? null,
      ref_kind: read?.ref_kind ?? null,
      checked_at: l?.checked_at ?? null,
      error: l?.error ?? null,
    };
  };
  return { linux: one('linux'), windows: one('windows') };
}

/** Which agent kind a host runs, from its product (spec: ssh-monitor on Linux, rdp-login-monitor on Windows). */
export function agentKindOf(host: { product: string; os_family?: string | null }): AgentKind {
  if (host.product === 'rdp-login-monitor') return 'windows';
  if (host.product === 'ssh-monitor') return 'linux';
  return host.os_family?.toLowerCase().startsWith('win') ? 'windows' : 'linux';
}

// --- target networks (issue 21): where remote actions may connect --------------------------------

interface StoredTargetNetworks {
  networks?: string[];
}

/** The target networks in force: the saved list, else SERVICE_ACTION_TARGET_NETWORKS. */
export async function loadTargetNetworks(pg: Pool, env: ActionsConfig): Promise<string[]> {
  const db = await readSetting<StoredTargetNetworks>(pg, TARGET_NETWORKS_SETTINGS_KEY);
  return db?.networks ?? env.targetNetworks;
}

export async function targetNetworksView(pg: Pool, env: ActionsConfig) {
  const db = await readSetting<StoredTargetNetworks>(pg, TARGET_NETWORKS_SETTINGS_KEY);
  return {
    networks: db?.networks ?? env.targetNetworks,
    source: db?.networks ? ('database' as const) : env.targetNetworks.length > 0 ? ('environment' as const) : null,
    environment: env.targetNetworks,
  };
}

/**
 * Saves the list (`null` removes it: the environment's applies again). Returns why it was refused, or
 * null: every item a network, none of them "every address" (the API may not widen to everything).
 */
export async function saveTargetNetworks(pg: Pool, networks: readonly string[] | null, by: string): Promise<string | null> {
  if (networks === null) {
    await writeSetting(pg, TARGET_NETWORKS_SETTINGS_KEY, {}, by);
    return null;
  }
  const list = [...new Set(networks.map((n) => n.trim()).filter(Boolean))];
  const error = targetNetworksError(list, { fromApi: true });
  if (error) return error;
  await writeSetting(pg, TARGET_NETWORKS_SETTINGS_KEY, { networks: list } satisfies StoredTargetNetworks, by);
  return null;
}
