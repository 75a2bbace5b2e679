// Outdated flags of hosts: the agent version against the latest version of its kind's repository, as
// the actions worker last read it (core's latest-versions cache; api/ACTIONS.md, version references).
import type { ActionsConfig, Pool } from '@watchpost/runtime';
import { agentKindOf, isOutdated, loadAgentUpdateSettings, loadLatestVersions } from '@watchpost/core/actions';

export interface VersionFlags {
  /** newest release of the host's agent kind, null when no repository is configured or read yet */
  latest_version: string | null;
  outdated: boolean;
}

/** Adds latest_version and outdated to each host row (one settings read per call). */
export async function withVersionFlags<T extends { product: string; os_family?: string | null; agent_version: string }>(
  pg: Pool,
  actions: ActionsConfig,
  rows: T[],
): Promise<(T & VersionFlags)[]> {
  const [latest, settings] = await Promise.all([loadLatestVersions(pg), loadAgentUpdateSettings(pg, actions)]);
  return rows.map((r) => {
    const kind = agentKindOf(r);
    // A version read from a repository that is no longer the configured one does not count.
    const l = latest[kind]?.git_url === settings[kind].gitUrl ? (latest[kind]?.version ?? null) : null;
    return { ...r, latest_version: l, outdated: isOutdated(r.agent_version, l) };
  });
}
