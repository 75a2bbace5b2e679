// The HTTP listener's client address: which proxies' X-Forwarded-For to believe (login limits, audit).
import { ConfigError, envReader, type EnvVars } from '../env.ts';

const IP_OR_CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2})?|[0-9a-f:]*:[0-9a-f:.]*(?:\/\d{1,3})?)$/i;

/** SERVICE_TRUST_PROXY: empty/false = none, a hop count, or a comma list of proxy addresses or CIDRs. */
export function trustProxy(env: EnvVars, name: string): false | number | string[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^\d+$/.test(raw)) return envReader(env).int(name, 0, 1, 16);
  // "true" (trust every hop) would let any client choose its own address and dodge the login limit.
  if (/^(true|yes|on)$/i.test(raw))
    throw new ConfigError(name, 'trusting every proxy lets clients forge their address; give a hop count or the proxies');
  const items = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const i of items)
    if (!IP_OR_CIDR.test(i) && !['loopback', 'linklocal', 'uniquelocal'].includes(i))
      throw new ConfigError(name, `expected a hop count or proxy addresses/CIDRs, got "${i}"`);
  return items;
}

/** The setting as fastify's `trustProxy` option (a hop count becomes the function fastify would build). */
export function trustProxyOption(t: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}
