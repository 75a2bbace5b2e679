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
});
