// Agent versions against the latest version of a version-reference repository (its git tags).
import semver from 'semver';

/** The semver of a tag or reported version ('v1.4.2', '1.4.2'); null when it is none. */
export function parseVersion(v: string): string | null {
  return semver.clean(v.trim(), { loose: true });
}

/** The highest release (no pre-release) among tag names; null when none is a version. */
export function latestVersion(tags: Iterable<string>): string | null {
  let best: string | null = null;
  for (const t of tags) {
    const v = parseVersion(t);
    if (v === null || semver.prerelease(v) !== null) continue;
    if (best === null || semver.gt(v, best)) best = v;
  }
  return best;
}

/** True when the agent's version is older than latest; false when either is unknown or not a version. */
export function isOutdated(agentVersion: string | null | undefined, latest: string | null | undefined): boolean {
  if (!agentVersion || !latest) return false;
  const a = parseVersion(agentVersion) ?? semver.coerce(agentVersion)?.version ?? null;
  return a !== null && semver.lt(a, latest);
}

/** Tag names from `git ls-remote --tags` output (peeled `^{}` lines folded into their tag). */
export function tagsFromLsRemote(out: string): string[] {
  const tags = new Set<string>();
  for (const line of out.split('\n')) {
    const ref = line.split('\t')[1]?.trim();
    if (!ref?.startsWith('refs/tags/')) continue;
    tags.add(ref.slice('refs/tags/'.length).replace(/\^\{\}$/, ''));
  }
  return [...tags];
}
