// Where the service's Redis is: one URL, or Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_MASTER) finding the
// master of a replicated group, for the main Redis (BullMQ, login limits, live channel) and for ingest's
// claims. With Sentinel the URL still gives the password, user, db (and must be redis:), not the address.
import { LOCAL_SENTINEL_MASTER, localUrls } from '../local-stack.ts';
import { ConfigError, envReader, type EnvVars } from '../env.ts';

export interface SentinelAddress {
  host: string;
  port: number;
}

/** What runtime/src/clients/redis.ts `createRedis` connects to. */
export interface RedisTarget {
  /** redis(s)://[user:password@]host:port[/db]; with sentinels only its credentials and db count. */
  url: string;
  /** Sentinels asked for the master of `masterName` (none: `url`'s host is the server). */
  sentinels: SentinelAddress[];
  masterName: string;
  /** REDIS_SENTINEL_PASSWORD: the sentinels' own `requirepass`, if any. */
  sentinelPassword: string | undefined;
}

export const DEFAULT_SENTINEL_MASTER = LOCAL_SENTINEL_MASTER;
const REDIS_PROTOCOLS = ['redis:', 'rediss:'];

function sentinelList(env: EnvVars, name: string, def = ''): SentinelAddress[] {
  const raw = envReader(env).str(name, def);
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((hp) => {
      const m = /^([\w.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(hp);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) throw new ConfigError(name, `expected host:port[,host:port], got "${hp}"`);
      return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
    });
}

function masterName(env: EnvVars, name: string, def: string): string {
  const v = envReader(env).str(name, def);
  if (!/^[\w.-]+$/.test(v)) throw new ConfigError(name, `expected a master group name (letters, digits, . _ -), got "${v}"`);
  return v;
}

function target(
  urlVar: string,
  url: string,
  sentinelsVar: string,
  sentinels: SentinelAddress[],
  master: string,
  password: string | undefined,
): RedisTarget {
  // ioredis applies a rediss: URL's TLS to the master only when told how the sentinels speak: not wired yet.
  if (sentinels.length > 0 && url.startsWith('rediss:'))
    throw new ConfigError(
      urlVar,
      `a rediss: URL together with ${sentinelsVar} is not supported; use redis: (TLS to Sentinel groups is not wired)`,
    );
  return { url, sentinels, masterName: master, sentinelPassword: password };
}

/** The main Redis and the claims' Redis, each a URL or a Sentinel group. */
export function redisTargets(env: EnvVars): { redis: RedisTarget; claimsRedis: RedisTarget } {
  const r = envReader(env);
  const url = r.url('REDIS_URL', localUrls.redis, REDIS_PROTOCOLS);
  // The local stack's sentinels (STACK_REDIS_SENTINEL=1) are the default only for its own Redis.
  const sentinels = sentinelList(env, 'REDIS_SENTINELS', env.REDIS_URL ? '' : localUrls.redisSentinels);
  if (r.optional('REDIS_SENTINEL_MASTER') && sentinels.length === 0)
    throw new ConfigError('REDIS_SENTINEL_MASTER', 'set without REDIS_SENTINELS (the sentinels to ask for that master)');
  const master = masterName(env, 'REDIS_SENTINEL_MASTER', DEFAULT_SENTINEL_MASTER);
  const password = r.optional('REDIS_SENTINEL_PASSWORD');
  const redis = target('REDIS_URL', url, 'REDIS_SENTINELS', sentinels, master, password);

  const claimsUrl = r.optional('SERVICE_CLAIMS_REDIS_URL');
  const ownSentinels = sentinelList(env, 'SERVICE_CLAIMS_REDIS_SENTINELS');
  const ownMaster = r.optional('SERVICE_CLAIMS_REDIS_SENTINEL_MASTER');
  // Without a URL of their own the claims follow the main Redis, its sentinels included; a URL of their
  // own is a plain server unless sentinels of their own are named.
  const claimsSentinels = ownSentinels.length > 0 ? ownSentinels : claimsUrl ? [] : sentinels;
  if (ownMaster && claimsSentinels.length === 0)
    throw new ConfigError(
      'SERVICE_CLAIMS_REDIS_SENTINEL_MASTER',
      'set without sentinels to ask: set SERVICE_CLAIMS_REDIS_SENTINELS (or REDIS_SENTINELS with no SERVICE_CLAIMS_REDIS_URL)',
    );
  const claimsRedis = target(
    claimsUrl ? 'SERVICE_CLAIMS_REDIS_URL' : 'REDIS_URL',
    claimsUrl ? r.url('SERVICE_CLAIMS_REDIS_URL', url, REDIS_PROTOCOLS) : url,
    ownSentinels.length > 0 ? 'SERVICE_CLAIMS_REDIS_SENTINELS' : 'REDIS_SENTINELS',
    claimsSentinels,
    ownMaster ? masterName(env, 'SERVICE_CLAIMS_REDIS_SENTINEL_MASTER', master) : master,
    password,
  );
  return { redis, claimsRedis };
}

/** host:port[,host:port] as REDIS_SENTINELS takes it (an IPv6 host in brackets). */
export function sentinelsText(list: SentinelAddress[]): string {
  return list.map((s) => `${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`).join(',');
}

/** Same server (or Sentinel group and master): one connection serves both. */
export function sameRedisTarget(a: RedisTarget, b: RedisTarget): boolean {
  const list = (t: RedisTarget) => sentinelsText(t.sentinels);
  return a.url === b.url && list(a) === list(b) && (a.sentinels.length === 0 || a.masterName === b.masterName);
}

/** The environment that gives a process this target as its main Redis (tests start processes with it). */
export function redisTargetEnv(t: RedisTarget): Record<string, string> {
  if (t.sentinels.length === 0) return { REDIS_URL: t.url };
  return {
    REDIS_URL: t.url,
    REDIS_SENTINELS: sentinelsText(t.sentinels),
    REDIS_SENTINEL_MASTER: t.masterName,
    ...(t.sentinelPassword ? { REDIS_SENTINEL_PASSWORD: t.sentinelPassword } : {}),
  };
}
