// The client address a guess is counted under (login and enrollment limits). One IPv6 subscriber gets a
// /64 (RFC 6177) and may pick any of its 2^64 interface identifiers per request (privacy addresses), so
// an IPv6 client counts by its /64; IPv4, and IPv4 carried in IPv6 as `::ffff:a.b.c.d`, by the address.
import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (zone dropped, an embedded dotted IPv4 tail as two groups). */
function ipv6Groups(ip: string): number[] {
  let s = ip.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

/** IPv4 as is (also when IPv4-mapped, `::ffff:a.b.c.d`), IPv6 as its /64 (`2001:db8:7:9::/64`), anything else as is. */
export function addressKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const g = ipv6Groups(ip);
  if (g.length !== 8 || g.some((n) => !Number.isInteger(n))) return ip;
  if (g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff)
    return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
  return `${g
    .slice(0, 4)
    .map((n) => n.toString(16))
    .join(':')}::/64`;
}
