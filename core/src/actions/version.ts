// Agent versions, numbered the way the agents number them (not semver). rdp-login-monitor's deploy script
// (Deploy-LoginMonitor.ps1, Compare-VersionStrings / Normalize-VersionOrNull) compares two labels like
// this: equal text (case-insensitive, a leading `v` dropped) is the same version; otherwise the numeric
// dotted prefix decides (`2.1.8-SAC` > `2.1.7-SAC`), and the rest (`-SAC`, ssh-monitor's `-ipset`) is an
// edition label, never a pre-release. So `2.1.7-SAC` and `2.1.7` are the same version of two editions:
// neither is outdated against the other. One deliberate difference: a missing part counts as 0
// (`2.1.7` == `2.1.7.0`), where .NET's [version] would call `2.1.7.0` newer.

/** The longest version text kept (version.txt, tags, what an agent reports). */
export const MAX_VERSION_LENGTH = 64;

const NUMERIC_PREFIX = /^(\d{1,9}(?:\.\d{1,9})*)/;

/**
 * The version label as the agent writes it ('v1.4.2' -> '1.4.2', ' 2.1.7-SAC ' -> '2.1.7-SAC'); null when
 * it does not start with a number (`unknown`, `latest`) or is not a plausible one-line label.
 */
export function parseVersion(v: string): string | null {
  const t = v
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/^v/i, '');
  if (t.length === 0 || t.length > MAX_VERSION_LENGTH || /[\s\p{Cc}]/u.test(t)) return null;
  return NUMERIC_PREFIX.test(t) ? t : null;
}

/** The numeric dotted parts of a version label ('2.1.7-SAC' -> [2, 1, 7]); null when it is none. */
export function versionNumbers(v: string): number[] | null {
  const t = parseVersion(v);
  const m = t === null ? null : NUMERIC_PREFIX.exec(t);
  return m ? m[1]!.split('.').map(Number) : null;
}

/** The edition label after the numbers ('2.1.7-SAC' -> 'SAC', '1.1.2-ipset' -> 'ipset', '1.0' -> ''). */
export function versionEdition(v: string): string {
  const t = parseVersion(v);
  return t === null ? '' : t.replace(NUMERIC_PREFIX, '').replace(/^[-+._]/, '');
}

/**
 * Like the agent's Compare-VersionStrings: negative when a is older, 0 when the same version, positive
 * when newer; null when either is not a version.
 */
export function compareVersions(a: string, b: string): number | null {
  const ta = parseVersion(a);
  const tb = parseVersion(b);
  if (ta === null || tb === null) return null;
  if (ta.toLowerCase() === tb.toLowerCase()) return 0;
  const na = versionNumbers(ta)!;
  const nb = versionNumbers(tb)!;
  for (let i = 0; i < Math.max(na.length, nb.length); i++) {
    const d = (na[i] ?? 0) - (nb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

// Tags only (version.txt is taken as written): `v2.0.0-rc.1` is a release candidate, not an edition.
const PRE_RELEASE_TAG = /^(?:alpha|beta|rc|pre|preview|dev|snapshot)(?:$|[-.\d])/i;

/** The highest version among tag names (pre-release tags and non-version tags ignored); null when none. */
export function latestVersion(tags: Iterable<string>): string | null {
  let best: string | null = null;
  for (const t of tags) {
    const v = parseVersion(t);
    if (v === null || PRE_RELEASE_TAG.test(versionEdition(v))) continue;
    if (best === null || compareVersions(v, best)! > 0) best = v;
  }
  return best;
}

/** True when the agent's version is older than latest; false when either is unknown or not a version. */
export function isOutdated(agentVersion: string | null | undefined, latest: string | null | undefined): boolean {
  if (!agentVersion || !latest) return false;
  const c = compareVersions(agentVersion, latest);
  return c !== null && c < 0;
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

/**
 * Where an agent repository states its version at a commit, first found wins (the agents' own files):
 * - `Login_Monitor.ps1`: `$ScriptVersion = "…"` (Deploy-LoginMonitor.ps1 Get-LocalDeployedVersion's
 *   pattern): first, because it is what the Windows agent reports in every event (issue 31: version.txt
 *   may run ahead, `2.1.7.1` beside `2.1.7-SAC`, and an update aimed at it never saw the agent report it);
 * - `version.txt`: its first non-empty line (rdp-login-monitor's deploy installs by it, Read-VersionLineFromFile;
 *   the bundle's deploy check reads it, DEPLOY_VERSION_SOURCE);
 * - `ssh-monitor`: `SSH_MONITOR_VERSION="…"` (ssh-monitor's Makefile reads it with the same pattern).
 * The newest tag is the fallback, read by the caller.
 */
export interface VersionFile {
  path: string;
  read: (text: string) => string | null;
}

/** version.txt, what rdp-login-monitor's deploy installs by (and writes to deployed_version.txt). */
export const DEPLOY_VERSION_SOURCE: VersionFile = {
  path: 'version.txt',
  read: (text) => {
    const line = text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .slice(0, 3)
      .find((l) => /\S/.test(l));
    return line === undefined ? null : line.trim();
  },
};

export const VERSION_SOURCES: readonly VersionFile[] = [
  {
    path: 'Login_Monitor.ps1',
    read: (text) => /^\s*\$ScriptVersion\s*=\s*["']([^"']+)["']/m.exec(text.split(/\r?\n/).slice(0, 120).join('\n'))?.[1] ?? null,
  },
  DEPLOY_VERSION_SOURCE,
  { path: 'ssh-monitor', read: (text) => /^SSH_MONITOR_VERSION="([^"\n]*)"/m.exec(text)?.[1] ?? null },
];
