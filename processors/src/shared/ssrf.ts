// The SSRF guard of outbound webhooks (deliver/http.ts; shared by the deliver and actions roles): a URL's host is resolved, and every address that is not
// globally routable (loopback, private, link-local incl. the 169.254.169.254 metadata service,
// unique-local, CGNAT, multicast, reserved, v4-mapped or embedded private v4) is refused unless an
// allow list names it (an address, a CIDR, or the exact host name). Two lists: the environment's
// (NOTIFY_<CHANNEL>_ALLOW) opens anything it names; the one saved through the API opens only private
// addresses (core's `adminMayOpen`: never loopback, link-local, metadata), whatever is stored, so an
// admin session cannot point test-send at the service's own host. The connection is then made to the
// address that was checked (no second lookup an attacker's DNS could change). The same guard checks the
// e-mail channel's SMTP server (deliver/providers/email.ts) and the agent-update git repositories
// (actions/git.ts): hosts an admin sets, so private addresses pass there (as a name on a saved list)
// and loopback, link-local, metadata, unspecified, multicast and reserved ones only when the
// environment's list names them (NOTIFY_EMAIL_ALLOW, SERVICE_AGENT_UPDATE_ALLOW).
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { adminMayOpen, type SsrfAllow } from '@watchpost/core/notify';

export class SsrfRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefused';
  }
}

function inAllowList(addr: ipaddr.IPv4 | ipaddr.IPv6, allow: string[]): boolean {
  for (const a of allow) {
    try {
      if (a.includes('/')) {
        const [net, bits] = ipaddr.parseCIDR(a);
        if (net.kind() === addr.kind() && addr.match([net, bits] as [typeof addr, number])) return true;
      } else if (ipaddr.isValid(a) && ipaddr.parse(a).toNormalizedString() === addr.toNormalizedString()) return true;
    } catch {
      // not an address: host names are matched by the caller
    }
  }
  return false;
}

/** The guard's lists: a bare list is the environment's (it opens anything it names). */
export type Allow = string[] | SsrfAllow;
const lists = (a: Allow): SsrfAllow => (Array.isArray(a) ? { environment: a, admin: [] } : a);

/**
 * Why an address is refused, or null when it may be connected to. `adminHost`: the URL's host name is
 * on the saved list, so any private address it resolves to is let through too.
 */
export function refusal(ip: string, allow: Allow, adminHost = false): string | null {
  const { environment, admin } = lists(allow);
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (inAllowList(addr, environment)) return null;
  const range = addr.range();
  // ::a.b.c.d (deprecated IPv4-compatible) is rated unicast by ipaddr.js, though some stacks reach a.b.c.d.
  const compatible = addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0);
  const why = range !== 'unicast' ? `${ip} is a ${range} address` : compatible ? `${ip} is an IPv4-compatible address` : null;
  if (why === null) return null;
  if (adminHost || inAllowList(addr, admin)) {
    if (adminMayOpen(addr.toString())) return null;
    const { variable } = lists(allow);
    if (variable) return `${why} (a server an admin sets may be public or private, never this; only ${variable} can allow it)`;
    return `${why} (an allow list saved through the API opens private addresses only; this one only NOTIFY_<CHANNEL>_ALLOW can)`;
  }
  return why;
}

/** Throws SsrfRefused unless the URL's host (a literal address or every resolved one) may be reached. */
export async function checkUrl(url: URL, allow: Allow): Promise<void> {
  if (!['http:', 'https:'].includes(url.protocol)) throw new SsrfRefused(`scheme ${url.protocol} is not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (lists(allow).environment.includes(host)) return;
  if (isIP(host)) {
    const why = refusal(host, allow);
    if (why) throw new SsrfRefused(`refused by the SSRF guard: ${why}`);
  }
}

/** How the guard treats a URL's host name: named by the environment's list (anything), by the saved one (private), or neither. */
export function hostListing(host: string, allow: Allow): 'environment' | 'admin' | null {
  const { environment, admin } = lists(allow);
  return environment.includes(host) ? 'environment' : admin.includes(host) ? 'admin' : null;
}

/** How a host is listed: by the environment's list (anything), by the saved one or as an admin's setting (private), or neither. */
export type Listing = 'environment' | 'admin' | null | boolean;

/**
 * Resolves `hostname` (a literal address is taken as is) and returns the first address the guard lets
 * through: the caller connects to that address, never to the name again (no second lookup an attacker's
 * DNS could answer differently). Throws SsrfRefused naming why each address was refused; DNS errors as they are.
 * `listed`: 'admin' lets private addresses through (an admin's setting, as a name on the saved list), `true` or
 * 'environment' anything (named by the operator).
 */
export async function resolveAllowed(hostname: string, allow: Allow, listed: Listing): Promise<LookupAddress> {
  // `true`: named by the environment's list (the former boolean form).
  const hostAllowed = listed === true || listed === 'environment';
  const adminHost = listed === 'admin';
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = hostAllowed ? null : refusal(host, allow, adminHost);
    if (why) throw new SsrfRefused(`refused by the SSRF guard: ${why}`);
    return { address: host, family: isIP(host) };
  }
  const addrs = await dnsLookup(host, { all: true });
  const first = (hostAllowed ? addrs : addrs.filter((a) => refusal(a.address, allow, adminHost) === null))[0];
  if (!first) {
    const why = addrs.map((a) => refusal(a.address, allow, adminHost)).join('; ');
    throw new SsrfRefused(`refused by the SSRF guard: ${hostname} resolves to ${why || 'nothing'}`);
  }
  return first;
}

/** A `lookup` for http.request that refuses hosts resolving to a refused address (checked at connect time). */
export function guardedLookup(allow: Allow, listed: Listing): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, allow, listed).then(
      (first) => {
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [first]);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
