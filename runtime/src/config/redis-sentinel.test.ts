import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { loadConfig, ConfigError } from './config.ts';
import { redisTargetEnv, sameRedisTarget } from './sections/redis.ts';
import { createRedis } from '../clients/redis.ts';

const err = (env: Record<string, string>): ConfigError | undefined => {
  try {
    loadConfig(env);
  } catch (e) {
    return e as ConfigError;
  }
  return undefined;
};

describe('Redis behind Sentinel (config)', () => {
  it('without REDIS_SENTINELS: one server, the claims on it too', () => {
    const c = loadConfig({ REDIS_URL: 'redis://r:6379' });
    expect(c.redis).toEqual({ url: 'redis://r:6379', sentinels: [], masterName: 'watchpost', sentinelPassword: undefined });
    expect(sameRedisTarget(c.claimsRedis, c.redis)).toBe(true);
    expect(redisTargetEnv(c.redis)).toEqual({ REDIS_URL: 'redis://r:6379' });
  });

  it('REDIS_SENTINELS and the master name; the URL keeps password and db; the claims follow', () => {
    const c = loadConfig({
      REDIS_URL: 'redis://:s3cret@ignored:6379/2',
      REDIS_SENTINELS: 's1:26379, s2:26379,[::1]:26380',
      REDIS_SENTINEL_MASTER: 'prod-main',
      REDIS_SENTINEL_PASSWORD: 'sp',
    });
    expect(c.redis).toEqual({
      url: 'redis://:s3cret@ignored:6379/2',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      masterName: 'prod-main',
      sentinelPassword: 'sp',
    });
    expect(c.claimsRedis).toEqual(c.redis);
    expect(sameRedisTarget(c.claimsRedis, c.redis)).toBe(true);
    expect(loadConfig(redisTargetEnv(c.redis)).redis).toEqual(c.redis);
    expect(loadConfig({ REDIS_SENTINELS: 's1:26379' }).redis.masterName).toBe('watchpost');
  });

  it('the claims Redis: a URL of its own is a plain server unless sentinels of its own are named', () => {
    const base = { REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: 's1:26379' };
    const own = loadConfig({ ...base, SERVICE_CLAIMS_REDIS_URL: 'redis://c:6379' });
    expect(own.claimsRedis.sentinels).toEqual([]);
    expect(sameRedisTarget(own.claimsRedis, own.redis)).toBe(false);
    const group = loadConfig({
      ...base,
      SERVICE_CLAIMS_REDIS_URL: 'redis://:pw@c:6379',
      SERVICE_CLAIMS_REDIS_SENTINELS: 'cs1:26379,cs2:26379',
      SERVICE_CLAIMS_REDIS_SENTINEL_MASTER: 'claims',
    });
    expect(group.claimsRedis).toMatchObject({ url: 'redis://:pw@c:6379', masterName: 'claims' });
    expect(group.claimsRedis.sentinels.map((s) => s.host)).toEqual(['cs1', 'cs2']);
    // The same sentinels watching a second master: the claims' own group.
    const second = loadConfig({ ...base, SERVICE_CLAIMS_REDIS_SENTINEL_MASTER: 'claims' });
    expect(second.claimsRedis).toMatchObject({
      url: 'redis://r:6379',
      masterName: 'claims',
      sentinels: [{ host: 's1', port: 26379 }],
    });
    expect(sameRedisTarget(second.claimsRedis, second.redis)).toBe(false);
  });

  it('refuses what cannot work, naming the variable', () => {
    expect(err({ REDIS_SENTINELS: 's1' })?.variable).toBe('REDIS_SENTINELS');
    expect(err({ REDIS_SENTINELS: 's1:0' })?.variable).toBe('REDIS_SENTINELS');
    expect(err({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'a b' })?.variable).toBe('REDIS_SENTINEL_MASTER');
    expect(err({ REDIS_URL: 'redis://r:6379', REDIS_SENTINEL_MASTER: 'm' })?.variable).toBe('REDIS_SENTINEL_MASTER');
    expect(err({ SERVICE_CLAIMS_REDIS_URL: 'redis://c:1', SERVICE_CLAIMS_REDIS_SENTINEL_MASTER: 'm' })?.variable).toBe(
      'SERVICE_CLAIMS_REDIS_SENTINEL_MASTER',
    );
    expect(err({ SERVICE_CLAIMS_REDIS_SENTINELS: 'x' })?.variable).toBe('SERVICE_CLAIMS_REDIS_SENTINELS');
    expect(err({ REDIS_URL: 'rediss://r:6379', REDIS_SENTINELS: 's1:26379' })?.variable).toBe('REDIS_URL');
    expect(err({ REDIS_URL: 'http://r' })?.variable).toBe('REDIS_URL');
  });
});

describe('createRedis', () => {
  it('builds a Sentinel client (master role, failover detector, READONLY reconnect) from a target, a plain one from a URL', () => {
    const c = loadConfig({ REDIS_URL: 'redis://:pw@ignored:1/3', REDIS_SENTINELS: '127.0.0.1:1', REDIS_SENTINEL_MASTER: 'm' });
    const viaSentinel = createRedis(c.redis, { forBullmq: true });
    const plain = createRedis('redis://127.0.0.1:1/4');
    try {
      expect(viaSentinel.options).toMatchObject({
        sentinels: [{ host: '127.0.0.1', port: 1 }],
        name: 'm',
        role: 'master',
        failoverDetector: true,
        password: 'pw',
        db: 3,
        maxRetriesPerRequest: null,
      });
      expect(viaSentinel.options.reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(2);
      expect(viaSentinel.options.reconnectOnError?.(new Error('ERR other'))).toBe(false);
      // BullMQ's duplicates keep the Sentinel settings.
      const dup = viaSentinel.duplicate();
      expect(dup.options.sentinels).toEqual(viaSentinel.options.sentinels);
      // ...and the connector that retires a lost connection's failover detector (redis-sentinel.int.test.ts).
      expect(dup.options.Connector).toBe(viaSentinel.options.Connector);
      expect(viaSentinel.options.Connector?.name).toBe('FollowingSentinelConnector');
      dup.disconnect();
      expect(plain.options.sentinels).toBeFalsy();
      expect(plain).toBeInstanceOf(Redis);
      expect(plain.options).toMatchObject({ port: 1, db: 4, maxRetriesPerRequest: 3 });
    } finally {
      viaSentinel.disconnect();
      plain.disconnect();
    }
  });
});
