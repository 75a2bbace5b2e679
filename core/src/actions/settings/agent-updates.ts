// Agent-update settings (Settings → Remote access, Agent updates): the git repository and ref per agent
// kind, each over its environment default (SERVICE_AGENT_UPDATE_*), shown with the newest release the
// actions worker last read from it. Not a generic settings section: its view joins what the worker read
// (latest_versions), its save checks and normalises the URL and asks the worker to read it at once, and
// its git test hangs under the same path (api/src/routes/actions/agent-updates.ts).
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { displayGitUrl } from '../git-url.ts';
import { loadLatestVersions } from '../latest-versions.ts';
import type { AgentKind } from '../agent-kind.ts';
import { readSetting, writeSetting } from '../../settings/store.ts';

export const AGENT_UPDATE_SETTINGS_KEY = 'actions.agent_update';

export type AgentUpdateSettings = Record<AgentKind, { gitUrl: string; branch: string }>;
type StoredAgentUpdate = Partial<Record<AgentKind, { git_url?: string; branch?: string }>>;

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
