// Git repository URLs an admin may configure for agent updates. Allow-listed schemes only: https and
// ssh (ssh://user@host/path), and file:// only when SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS is on (tests,
// local mirrors). Refused: other schemes (git's ext::, fd::), scp-like forms, option-looking values,
// credentials in the URL: a password anywhere, and any user name in https:// and file:// URLs
// (https://TOKEN@github.com/… is a token): they would show in settings, action records, logs and the
// Linux hosts' command lines. ssh:// keeps its user: the login name (git@), not a secret.

/** Where git credentials go instead of the URL (the refusal says so). */
export const GIT_CREDENTIALS_HINT =
  'git credentials go to git itself, not the URL: an ssh:// URL with a deploy key in ~/.ssh, or a git credential ' +
  'helper, of the user the actions worker runs as (and of root on Linux hosts, which clone the repository themselves); ' +
  'or a public mirror (api/ACTIONS.md, "Agent updates")';
export function checkGitUrl(
  raw: unknown,
  opts: { allowFile: boolean },
): { ok: true; url: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'git URL is empty' };
  const s = raw.trim();
  if (s.length > 2048) return { ok: false, reason: 'git URL is too long' };
  if (/[\s\0]/.test(s)) return { ok: false, reason: 'git URL may not contain spaces or control characters' };
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return { ok: false, reason: 'not a URL (use https://host/path or ssh://user@host/path)' };
  }
  const allowed = ['https:', 'ssh:', ...(opts.allowFile ? ['file:'] : [])];
  if (!allowed.includes(u.protocol))
    return {
      ok: false,
      reason: `URL scheme ${u.protocol} is not allowed (allowed: ${allowed.map((p) => p.slice(0, -1)).join(', ')})`,
    };
  if (u.password) return { ok: false, reason: `passwords in the git URL are not allowed: ${GIT_CREDENTIALS_HINT}` };
  if (u.username && u.protocol !== 'ssh:')
    return {
      ok: false,
      reason: `a user name or token in a ${u.protocol.slice(0, -1)} git URL is not allowed (it would be shown and logged): ${GIT_CREDENTIALS_HINT}`,
    };
  if (u.protocol !== 'file:' && !u.hostname) return { ok: false, reason: 'git URL has no host' };
  // git percent-decodes host and user before handing them to ssh: an encoded "-" or a quote would
  // pass a check of the raw text. A host name has no use for escapes; the user is checked decoded.
  if (u.hostname.includes('%')) return { ok: false, reason: 'a git URL host may not contain %-escapes' };
  let user: string;
  try {
    user = decodeURIComponent(u.username);
  } catch {
    return { ok: false, reason: 'the git URL user has a malformed %-escape' };
  }
  // An older git on a managed host would pass "-oProxyCommand=..." to ssh as an option.
  if (u.hostname.startsWith('-') || user.startsWith('-'))
    return { ok: false, reason: 'a git URL host or user may not start with "-"' };
  if ([...user].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f'))
    return { ok: false, reason: 'the git URL user may not contain control characters' };
  return { ok: true, url: s };
}

/**
 * A git URL as it may be shown or recorded: the user part of an https:// or file:// URL (a token) and any
 * password removed, for URLs stored before checkGitUrl refused them; ssh:// keeps its login name.
 * Anything that does not parse loses what stands before an "@" in its first part (`TOKEN@host:path`).
 */
export function displayGitUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return raw.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/@]*@/, '$1');
  }
  if (!u.password && (!u.username || u.protocol === 'ssh:')) return raw;
  if (u.protocol !== 'ssh:') u.username = '';
  u.password = '';
  return u.toString();
}
