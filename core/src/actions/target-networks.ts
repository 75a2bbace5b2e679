// Where remote actions may connect (issue 21): the admin's target networks. A host's confirmed address
// is resolved once (all its addresses), every address must lie inside a target network, and the
// connection goes to the address that was checked, never to a second resolution (DNS rebinding).
// Loopback, link-local, unspecified, multicast and broadcast addresses are refused unless a listed
// network lies inside that range (127.0.0.0/8 opens loopback; 0.0.0.0/0 from the environment does not).
// Empty means no remote action connects anywhere.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

type Family = 'ipv4' | 'ipv6';

interface Network {
  text: string;
  family: Family;
  prefix: number;
  set: BlockList;
}

/** Ranges no action connects to unless a listed network lies inside them. */
const SPECIAL_RANGES: readonly { net: string; prefix: number; family: Family; what: string }[] = [
  { net: '127.0.0.0', prefix: 8, family: 'ipv4', what: 'a loopback address' },
  { net: '0.0.0.0', prefix: 8, family: 'ipv4', what: 'an unspecified ("this network") address' },
  { net: '169.254.0.0', prefix: 16, family: 'ipv4', what: 'a link-local address' },
  { net: '224.0.0.0', prefix: 4, family: 'ipv4', what: 'a multicast address' },
  { net: '255.255.255.255', prefix: 32, family: 'ipv4', what: 'the broadcast address' },
  { net: '::1', prefix: 128, family: 'ipv6', what: 'a loopback address' },
  { net: '::', prefix: 128, family: 'ipv6', what: 'the unspecified address' },
  { net: 'fe80::', prefix: 10, family: 'ipv6', what: 'a link-local address' },
  { net: 'ff00::', prefix: 8, family: 'ipv6', what: 'a multicast address' },
];
const SPECIAL = SPECIAL_RANGES.map((s) => ({ ...s, set: subnet(s.net, s.prefix, s.family) }));

function subnet(addr: string, prefix: number, family: Family): BlockList {
  const b = new BlockList();
  b.addSubnet(addr, prefix, family);
  return b;
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) as the IPv4 address it is. */
function plain(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

const familyOf = (ip: string): Family | null => (isIP(ip) === 4 ? 'ipv4' : isIP(ip) === 6 ? 'ipv6' : null);

/** One network as written (`10.20.0.0/16`, `fd00::/8`, or a bare address for one host); null when it is none. */
export function parseNetwork(text: string): Network | null {
  const t = text.trim();
  const [addr = '', p, extra] = t.split('/');
  const family = familyOf(addr);
  if (!family || extra !== undefined) return null;
  const max = family === 'ipv4' ? 32 : 128;
  if (p !== undefined && !/^\d{1,3}$/.test(p)) return null;
  const prefix = p === undefined ? max : Number(p);
  if (prefix > max) return null;
  return { text: t, family, prefix, set: subnet(addr, prefix, family) };
}

/**
 * Why this list of networks cannot be saved, or null when it can. From the API (`fromApi`), a network
 * of prefix 0 (0.0.0.0/0, ::/0: every address) is refused: only the environment may say "anywhere".
 */
export function targetNetworksError(list: readonly string[], opts: { fromApi: boolean }): string | null {
  for (const item of list) {
    const n = parseNetwork(item);
    if (!n)
      return `"${item}" is not a network: write an address with its prefix length, such as 10.20.0.0/16 or fd00::/8 (a bare address is one host)`;
    if (opts.fromApi && n.prefix === 0)
      return `"${item}" would let remote actions connect to every address; list the networks of the managed hosts instead (only SERVICE_ACTION_TARGET_NETWORKS may say every address)`;
  }
  return null;
}

/**
 * Why an address may not be connected to (a phrase after the address: "lies outside ...", "is a
 * loopback address ..."), or null when it lies inside the target networks.
 */
export function addressRefusal(ip: string, networks: readonly string[]): string | null {
  const a = plain(ip);
  const family = familyOf(a);
  if (!family) return 'is not an IP address';
  const parsed = networks.map(parseNetwork).filter((n): n is Network => n !== null);
  const inside = parsed.filter((n) => n.family === family && n.set.check(a, family));
  if (inside.length === 0) return `lies outside the target networks (${networks.join(', ') || 'none'})`;
  for (const s of SPECIAL) {
    if (s.family !== family || !s.set.check(a, family)) continue;
    // Explicitly listed: a network inside the special range (127.0.0.0/8, 127.0.0.1/32), not a wider one.
    if (!inside.some((n) => n.prefix >= s.prefix))
      return `is ${s.what}, allowed only when a target network lists it explicitly (such as ${s.net}/${s.prefix})`;
  }
  return null;
}

export type LookupAll = (name: string) => Promise<{ address: string; family: number }[]>;
const lookupAll: LookupAll = (name) => lookup(name, { all: true, verbatim: true });

export type TargetCheck = { ok: true; ip: string; addresses: string[] } | { ok: false; reason: string };

export const NO_TARGET_NETWORKS =
  'no target networks are set, so remote actions connect nowhere: an admin lists the networks of the managed hosts in Settings → Remote access (or SERVICE_ACTION_TARGET_NETWORKS)';

/**
 * Resolves a host's address (a DNS name or an IP) once and checks every address it resolves to. On
 * success `ip` is the address to connect to (the first one, as the resolver ordered them).
 */
export async function resolveActionTarget(
  address: string,
  networks: readonly string[],
  resolve: LookupAll = lookupAll,
): Promise<TargetCheck> {
  if (networks.length === 0) return { ok: false, reason: NO_TARGET_NETWORKS };
  let found: { address: string; family: number }[];
  try {
    found = await resolve(address);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { ok: false, reason: `${address} does not resolve (${code})` };
  }
  const addresses = [...new Set(found.map((f) => plain(f.address)))];
  if (addresses.length === 0) return { ok: false, reason: `${address} does not resolve (no address)` };
  for (const ip of addresses) {
    const why = addressRefusal(ip, networks);
    if (why)
      return {
        ok: false,
        reason: `${ip === address ? ip : `${address} resolves to ${ip}, which`} ${why}: nothing was sent (change the target networks in Settings → Remote access only if the host really is there)`,
      };
  }
  return { ok: true, ip: addresses[0]!, addresses };
}
