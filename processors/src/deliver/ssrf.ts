// The SSRF guard of outbound webhooks: a URL's host is resolved, and every address that is not
// globally routable (loopback, private, link-local incl. the 169.254.169.254 metadata service,
// unique-local, CGNAT, multicast, reserved, v4-mapped or embedded private v4) is refused unless the
// configured allow list names it (an address, a CIDR, or the exact host name). The connection is
// then made to the address that was checked (no second lookup an attacker's DNS could change).
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/** Why an address is refused, or null when it may be connected to. */
export function refusal(ip: string, allow: string[]): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (inAllowList(addr, allow)) return null;
  const range = addr.range();
  if (range !== 'unicast') return `${ip} is a ${range} address`;
  // ::a.b.c.d (deprecated IPv4-compatible) is rated unicast by ipaddr.js, though some stacks reach a.b.c.d.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0))
    return `${ip} is an IPv4-compatible address`;
  return null;
}

/** Throws SsrfRefused unless the URL's host (a literal address or every resolved one) may be reached. */
export async function checkUrl(url: URL, allow: string[]): Promise<void> {
  if (!['http:', 'https:'].includes(url.protocol)) throw new SsrfRefused(`scheme ${url.protocol} is not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allow.includes(host)) return;
  if (isIP(host)) {
    const why = refusal(host, allow);
    if (why) throw new SsrfRefused(`refused by the SSRF guard: ${why}`);
  }
}

/** A `lookup` for http.request that refuses hosts resolving to a refused address (checked at connect time). */
export function guardedLookup(allow: string[], hostAllowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true }).then(
      (addrs) => {
        const ok = hostAllowed ? addrs : addrs.filter((a) => refusal(a.address, allow) === null);
        const first = ok[0];
        if (!first) {
          const why = addrs.map((a) => refusal(a.address, allow)).join('; ');
          callback(new SsrfRefused(`refused by the SSRF guard: ${hostname} resolves to ${why || 'nothing'}`), '', 4);
          return;
        }
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof ok) => void)(null, [first]);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
