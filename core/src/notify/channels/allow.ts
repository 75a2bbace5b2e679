// What an SSRF allow list saved through the API may open (issue 21): private networks only. An admin
// session must not be able to point test-send at the service's own host, the cloud metadata service or
// anything else on loopback or link-local, nor widen the guard to every address: those entries come only
// from the environment (NOTIFY_<CHANNEL>_ALLOW), which the deliver role's guard applies as is. The API
// refuses such an entry when it is saved, and the deliver role's guard (processors/src/shared/ssrf.ts)
// lets a saved entry open only addresses that pass `adminMayOpen`, whatever is stored.
import { BlockList, isIP } from 'node:net';

/** The SSRF guard's allow lists of a channel. */
export interface SsrfAllow {
  /** NOTIFY_<CHANNEL>_ALLOW: addresses, CIDRs or host names, any address (the operator's). */
  environment: string[];
  /** Saved through the API: opens private addresses only (`adminMayOpen`). */
  admin: string[];
  /** The environment variable of `environment`, named in refusals (unset: NOTIFY_<CHANNEL>_ALLOW). */
  variable?: string;
}

type Family = 'ipv4' | 'ipv6';
const PRIVATE: { net: string; bits: number; family: Family }[] = [
  { net: '10.0.0.0', bits: 8, family: 'ipv4' },
  { net: '172.16.0.0', bits: 12, family: 'ipv4' },
  { net: '192.168.0.0', bits: 16, family: 'ipv4' },
  { net: '100.64.0.0', bits: 10, family: 'ipv4' }, // carrier-grade NAT
  { net: 'fc00::', bits: 7, family: 'ipv6' }, // unique local
];
/** Cloud metadata services inside those ranges (169.254.169.254 is link-local, never private). */
const METADATA = [
  { address: '100.100.100.200', family: 'ipv4' as Family }, // Alibaba Cloud
  { address: 'fd00:ec2::254', family: 'ipv6' as Family }, // AWS over IPv6
];
const PRIVATE_TEXT = PRIVATE.map((r) => `${r.net}/${r.bits}`).join(', ');

const privateSets = PRIVATE.map((r) => {
  const set = new BlockList();
  set.addSubnet(r.net, r.bits, r.family);
  return { ...r, set };
});
const metadataSet = new BlockList();
for (const m of METADATA) metadataSet.addAddress(m.address, m.family);
const familyOf = (address: string): Family | null => (isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 ? 'ipv6' : null);

/** True when an address lies in a private range (RFC 1918, CGNAT, unique local) and is no metadata service. */
export function adminMayOpen(address: string): boolean {
  const family = familyOf(address);
  if (!family) return false;
  if (metadataSet.check(address, family)) return false;
  return privateSets.some((r) => r.family === family && r.set.check(address, family));
}

/** Why an allow-list entry saved through the API is refused, or null when it may be saved. */
export function adminAllowRefusal(entry: string): string | null {
  const [net = '', bitsText, extra] = entry.split('/');
  const family = familyOf(net);
  if (!family) {
    if (bitsText !== undefined) return `"${entry}" is not a network (address/prefix)`;
    // A host name: its addresses are checked when it is connected to (private ones only).
    if (/^localhost\.?$/i.test(entry) || /\.localhost\.?$/i.test(entry)) return `"${entry}" is a loopback name`;
    return null;
  }
  const max = family === 'ipv4' ? 32 : 128;
  if (extra !== undefined || (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText))) return `"${entry}" is not a network`;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (bits > max) return `"${entry}": the prefix is longer than ${max} bits`;
  const inside = privateSets.find((r) => r.family === family && r.set.check(net, family) && bits >= r.bits);
  if (!inside) return `"${entry}" is not inside a private network (${PRIVATE_TEXT})`;
  const span = new BlockList();
  span.addSubnet(net, bits, family);
  const metadata = METADATA.find((m) => m.family === family && span.check(m.address, family));
  if (metadata) return `"${entry}" contains the cloud metadata address ${metadata.address}`;
  return null;
}

/**
 * Refuses (Error with a readable message) an allow list saved through the API that names anything but
 * private networks: loopback, link-local, metadata, public or any-address entries come only from `variable`.
 */
export function checkAdminAllowList(entries: readonly string[] | null | undefined, variable: string): void {
  for (const e of entries ?? []) {
    const why = adminAllowRefusal(e);
    if (why)
      throw new Error(
        `allow list entry refused: ${why}. An allow list saved here may name only private networks (${PRIVATE_TEXT}) ` +
          `or host names that resolve to them; loopback, link-local, metadata and any-address ranges can be allowed only ` +
          `in the environment (${variable})`,
      );
  }
}
