import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from './config.ts';
import { localUrls } from './local-stack.ts';

describe('config', () => {
  it('has documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.role).toBe('all');
    expect(c.heartbeatStaleMinutes).toBe(10);
    expect(c.problemCorrelationWindowMinutes).toBe(60);
    expect(c.notify).toEqual({ minSeverity: 'high', channels: ['chat'] });
    expect(c.dailyReport).toMatchObject({ enabled: true, time: '08:00', timezone: 'UTC' });
    expect(c.databaseUrl).toBe(localUrls.postgres);
    expect(c.kafkaBrokers).toEqual([localUrls.kafka]);
    expect(c.topics).toEqual({ events: 'events.v1', deadLetter: 'events.v1.dlq', problems: 'problems.v1' });
    expect(c.kafkaCompression).toBe('none');
    expect(loadConfig({ KAFKA_COMPRESSION: 'zstd' }).kafkaCompression).toBe('zstd');
  });

  it('reads the spec variables', () => {
    const c = loadConfig({
      SERVICE_HEARTBEAT_STALE_MINUTES: '3',
      SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES: '15',
      NOTIFY_MIN_SEVERITY: 'warning',
      NOTIFY_CHANNELS: 'chat, webhook,email',
      SERVICE_DAILY_REPORT_TIME: '23:30',
      SERVICE_DAILY_REPORT_TIMEZONE: 'Europe/Berlin',
      KAFKA_BROKERS: 'k1:9092,k2:9092',
    });
    expect(c.heartbeatStaleMinutes).toBe(3);
    expect(c.problemCorrelationWindowMinutes).toBe(15);
    expect(c.notify).toEqual({ minSeverity: 'warning', channels: ['chat', 'webhook', 'email'] });
    expect(c.dailyReport).toMatchObject({ time: '23:30', timezone: 'Europe/Berlin' });
    expect(c.kafkaBrokers).toEqual(['k1:9092', 'k2:9092']);
  });

  it.each([
    ['SERVICE_HEARTBEAT_STALE_MINUTES', 'ten'],
    ['SERVICE_HEARTBEAT_STALE_MINUTES', '0'],
    ['SERVICE_PROBLEM_CORRELATION_WINDOW_MINUTES', '1.5'],
    ['NOTIFY_MIN_SEVERITY', 'urgent'],
    ['NOTIFY_CHANNELS', 'chat,pager'],
    ['SERVICE_DAILY_REPORT_TIME', '25:00'],
    ['SERVICE_DAILY_REPORT_TIMEZONE', 'Mars/Olympus'],
    ['SERVICE_DAILY_REPORT_ENABLED', 'maybe'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['KAFKA_BROKERS', 'no-port'],
    ['KAFKA_COMPRESSION', 'snappy'],
    ['SERVICE_ROLE', 'janitor'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(name);
    expect((err as Error).message).toContain(name);
  });

  it('SERVICE_TRUST_PROXY: none by default, a hop count or proxy addresses; never every hop', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SERVICE_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ SERVICE_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ SERVICE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'loopback',
    ]);
    expect(() => loadConfig({ SERVICE_TRUST_PROXY: 'true' })).toThrow(/SERVICE_TRUST_PROXY.*forge/);
    expect(() => loadConfig({ SERVICE_TRUST_PROXY: 'proxy.example.org' })).toThrow(/SERVICE_TRUST_PROXY.*proxy\.example\.org/);
    expect(() => loadConfig({ SERVICE_TRUST_PROXY: '99' })).toThrow(/SERVICE_TRUST_PROXY/);
  });
});
