// The agent_bundles table: Windows agent bundles (the update repository at one commit as a zip, every
// PowerShell file with a UTF-8 BOM, version.txt at the root: what Deploy-LoginMonitor.ps1 -SourceShareRoot
// takes), built by the actions worker once per commit and served to hosts by the API over a signed link
// (bundle-url.ts).
import type { Pool } from '@watchpost/runtime';

export interface BundleKey {
  kind: 'windows';
  gitUrl: string;
  branch: string;
  commit: string;
}

/** The stored bundle of this commit, if any. */
export async function findBundle(
  pg: Pool,
  k: BundleKey,
): Promise<{ id: number; version: string; sha256: string; source: string | null } | null> {
  const r = await pg.query<{ id: number; version: string; sha256: string; source: string | null }>(
    'SELECT id, version, sha256, source FROM agent_bundles WHERE kind = $1 AND git_url = $2 AND branch = $3 AND commit = $4',
    [k.kind, k.gitUrl, k.branch, k.commit],
  );
  const b = r.rows[0];
  return b ? { id: Number(b.id), version: b.version, sha256: b.sha256, source: b.source } : null;
}

/** Stores a bundle; a concurrent build of the same commit may have won: its id and SHA-256 are returned. */
export async function storeBundle(
  pg: Pool,
  k: BundleKey,
  b: { version: string; source: string | null; sha256: string; zip: Buffer },
): Promise<{ id: number; sha256: string }> {
  const r = await pg.query<{ id: number; sha256: string }>(
    `INSERT INTO agent_bundles (kind, git_url, branch, commit, version, source, sha256, size, zip) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (kind, git_url, branch, commit) DO UPDATE SET version = EXCLUDED.version RETURNING id, sha256`,
    [k.kind, k.gitUrl, k.branch, k.commit, b.version, b.source, b.sha256, b.zip.length, b.zip],
  );
  return { id: Number(r.rows[0]!.id), sha256: r.rows[0]!.sha256 };
}

/** One bundle's zip for download, null when unknown. */
export async function readBundle(pg: Pool, id: number): Promise<{ zip: Buffer; sha256: string; version: string } | null> {
  const r = await pg.query<{ zip: Buffer; sha256: string; version: string }>(
    'SELECT zip, sha256, version FROM agent_bundles WHERE id = $1',
    [id],
  );
  return r.rows[0] ?? null;
}
