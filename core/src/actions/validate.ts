// Input checks for values that name things on remote hosts. They refuse rather than repair: a value that
// does not match is answered 400 and never reaches a command line (which quotes it anyway).

/** Windows session ids are small integers (qwinsta's ID column). */
export function parseSessionId(v: unknown): number | null {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
  if (!/^\d{1,5}$/.test(s)) return null;
  const n = Number(s);
  return n <= 65535 ? n : null;
}

// sAMAccountName rules (no " / \ [ ] : ; | = , + * ? < >, at most 20 characters) widened to 64 for
// local and UPN-less names; an optional DOMAIN\ prefix (NetBIOS name, 15 characters).
const USER_RE = /^(?:[A-Za-z0-9][A-Za-z0-9.-]{0,14}\\)?[A-Za-z0-9_][A-Za-z0-9._ -]{0,63}$/;

/** A Windows or Linux account name, optionally DOMAIN\name; null when it is not one. */
export function validUserName(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v;
  return USER_RE.test(s) && !s.endsWith(' ') && !s.endsWith('.') ? s : null;
}

/** The account part of DOMAIN\name or name@domain (qwinsta shows the bare account name). */
export function accountPart(user: string): string {
  const afterSlash = user.includes('\\') ? user.slice(user.lastIndexOf('\\') + 1) : user;
  return afterSlash.includes('@') ? afterSlash.slice(0, afterSlash.indexOf('@')) : afterSlash;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME_RE = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
const IPV4_RE = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_RE = /^[0-9A-Fa-f:.]{2,45}$/;

/** A DNS name, IPv4 or IPv6 address a connection may go to; null otherwise (no URLs, ports or spaces). */
export function validHostAddress(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v;
  if (s.length === 0 || s.length > 253) return null;
  if (IPV4_RE.test(s)) return s;
  if (s.includes(':')) return IPV6_RE.test(s) && s.split('::').length <= 2 ? s : null;
  // all-numeric dotted names that are not valid IPv4 (e.g. 999.1.1.1) are refused
  if (/^[\d.]+$/.test(s)) return null;
  return HOSTNAME_RE.test(s) ? s : null;
}

/**
 * The host part of a gateway event's internal address: "host", "host:port", "[v6]" or "[v6]:port", or a
 * bare IPv6 address (whose last group is not a port); a name's trailing root dot is dropped. Not validated
 * here: validHostAddress does that.
 */
export function gatewayAddress(v: string): string {
  const s = v.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) return bracketed[1]!;
  const hostPort = /^([^:]+):\d+$/.exec(s);
  const host = hostPort ? hostPort[1]! : s;
  // A fully qualified name may end in the root's dot (`ws-01.corp.example.`): the same name without it.
  return host.includes(':') ? host : host.replace(/\.$/, '');
}

/** A git branch name (git check-ref-format rules, a conservative subset); null otherwise. */
export function validBranch(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/.test(s)) return null;
  if (s.includes('..') || s.includes('//') || s.endsWith('/') || s.endsWith('.') || s.endsWith('.lock') || s.includes('/.'))
    return null;
  return s;
}
