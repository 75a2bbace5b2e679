// The latest agent version per kind, read by the actions worker from the configured repository's ref
// (a branch's head, or the tag or commit it is pinned to): version.txt or the agent script's version
// variable, the highest tag when it states none (processors/src/actions/git.ts). Kept in `settings`
// (key agents.latest_versions): the cache the hosts API and the agent poll read.
import type { Pool } from '@watchpost/runtime';
import type { AgentKind } from './agent-kind.ts';

export const LATEST_VERSIONS_KEY = 'agents.latest_versions';

export interface LatestVersion {
  version: string | null;
  /** where the version was read: 'version.txt', 'Login_Monitor.ps1', 'ssh-monitor' or 'tag' (absent in older rows) */
  source?: string | null;
  /** the commit it was read at (the branch head, or the tag's or pinned commit) */
  commit?: string | null;
  /** what the ref setting named: a branch (follows its head), a tag or a commit (pinned); absent in older rows */
  ref_kind?: 'branch' | 'tag' | 'commit' | null;
  git_url: string;
  branch: string;
  checked_at: string;
  /** why the last read failed (the version stays what the previous read found) */
  error: string | null;
}
export type LatestVersions = Partial<Record<AgentKind, LatestVersion>>;

export async function loadLatestVersions(pg: Pool): Promise<LatestVersions> {
  const r = await pg.query<{ value: LatestVersions }>('SELECT value FROM settings WHERE key = $1', [LATEST_VERSIONS_KEY]);
  return r.rows[0]?.value ?? {};
}

export async function saveLatestVersion(pg: Pool, kind: AgentKind, v: LatestVersion): Promise<void> {
  await pg.query(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, jsonb_build_object($2::text, $3::jsonb), now(), 'actions')
     ON CONFLICT (key) DO UPDATE SET value = settings.value || EXCLUDED.value, updated_at = now()`,
    [LATEST_VERSIONS_KEY, kind, JSON.stringify(v)],
  );
}
