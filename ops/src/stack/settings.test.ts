import { describe, expect, it } from 'vitest';
import { stackSettings } from './settings.ts';

describe('stack settings', () => {
  it('manages all four servers by default, on its own ports under .stack', () => {
    const s = stackSettings({});
    expect(s.external).toEqual({ postgres: false, redis: false, clickhouse: false, kafka: false });
    expect(s.dir.endsWith('/.stack')).toBe(true);
    expect(s.urls.kafka).toMatch(/^127\.0\.0\.1:\d+$/);
    for (const port of [s.pgPort, s.redisPort, s.chHttpPort, s.kafkaPort]) expect([5432, 6379, 8123, 9092]).not.toContain(port);
  });

  it('leaves a server given by URL alone and probes that URL instead', () => {
    const s = stackSettings({ DATABASE_URL: 'postgres://u@db.internal:5432/x', KAFKA_BROKERS: 'k:9092' });
    expect(s.external).toEqual({ postgres: true, redis: false, clickhouse: false, kafka: true });
    expect(s.urls.postgres).toBe('postgres://u@db.internal:5432/x');
    expect(s.urls.kafka).toBe('k:9092');
  });

  it('moves the state folder with STACK_DIR', () => {
    expect(stackSettings({ STACK_DIR: '/tmp/elsewhere' }).dir).toBe('/tmp/elsewhere');
  });

  it('STACK_KAFKA_BROKERS=3 asks for a KRaft cluster: three brokers two ports apart, listed for the service', () => {
    const s = stackSettings({ STACK_KAFKA_BROKERS: '3' });
    expect(s.kafkaBrokers).toBe(3);
    expect(s.urls.kafka).toBe(`127.0.0.1:${s.kafkaPort},127.0.0.1:${s.kafkaPort + 2},127.0.0.1:${s.kafkaPort + 4}`);
    expect(stackSettings({}).kafkaBrokers).toBe(1);
    expect(() => stackSettings({ STACK_KAFKA_BROKERS: '2' })).toThrow(/STACK_KAFKA_BROKERS/);
  });

  it('STACK_REDIS_SENTINEL=1 asks for a master, a replica and three sentinels on ports of their own', () => {
    const s = stackSettings({ STACK_REDIS_SENTINEL: '1' });
    expect(s.redisSentinel).toBe(true);
    expect(s.redisSentinelMaster).toBe('watchpost');
    expect(s.redisSentinels).toBe([0, 1, 2].map((i) => `127.0.0.1:${s.redisSentinelPort + i}`).join(','));
    expect(s.urls.redis).toBe(`redis://127.0.0.1:${s.redisSentinelNodePort}`);
    // The one Redis keeps its port, apart from the group's.
    expect([s.redisSentinelNodePort, s.redisSentinelNodePort + 1, s.redisSentinelPort]).not.toContain(s.redisPort);
    expect(stackSettings({}).redisSentinel).toBe(false);
    expect(stackSettings({}).urls.redis).toBe(`redis://127.0.0.1:${s.redisPort}`);
    expect(() => stackSettings({ STACK_REDIS_SENTINEL: 'maybe' })).toThrow(/STACK_REDIS_SENTINEL/);
  });
});
