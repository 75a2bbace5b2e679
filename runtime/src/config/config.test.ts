import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError, startupWarnings } from './config.ts';
import { localUrls } from './local-stack.ts';

describe('config', () => {
  it('has documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.role).toBe('all');
    expect(c.heartbeatStaleMinutes).toBe(10);
    expect(c.heartbeat).toEqual({
      missed: 2,
      slack_minutes: 5,
      fallback_minutes: 10,
      defaults: { 'rdp-login-monitor': 240, 'ssh-monitor': 720 },
    });
    expect(c.problemCorrelationWindowMinutes).toBe(60);
    expect(c.notify).toMatchObject({ minSeverity: 'high', channels: ['chat'] });
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
    expect(c.heartbeat.fallback_minutes).toBe(3);
    expect(
      loadConfig({ SERVICE_HEARTBEAT_INTERVAL_WINDOWS_MINUTES: '60', SERVICE_HEARTBEAT_MISSED: '3' }).heartbeat,
    ).toMatchObject({ missed: 3, defaults: { 'rdp-login-monitor': 60, 'ssh-monitor': 720 } });
    expect(c.problemCorrelationWindowMinutes).toBe(15);
    expect(c.notify).toMatchObject({ minSeverity: 'warning', channels: ['chat', 'webhook', 'email'] });
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
    ['KAFKA_REPLICATION_FACTOR', '0'],
    ['METRICS_PORT', '0'],
    ['SERVICE_INGEST_RATE_PER_KEY', '-1'],
    ['SERVICE_INGEST_RATE_PER_HOST', '-1'],
    ['SERVICE_INGEST_RATE_HOST_BURST', '0'],
    ['SERVICE_INGEST_MAX_IN_FLIGHT_EVENTS', '0'],
    ['SERVICE_AGENT_UPDATE_LINUX_GIT_URL', 'https://ghp_token@github.com/PTah/ssh-monitor.git'],
    ['SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL', 'https://user:pw@git.example/x.git'],
    ['SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL', 'ssh://git:pw@git.example/x.git'],
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

  it('agent-update git URLs: an ssh:// login name is kept, a token never; the git SSRF allow list', () => {
    const c = loadConfig({
      SERVICE_AGENT_UPDATE_LINUX_GIT_URL: 'ssh://git@github.com/PTah/ssh-monitor.git',
      SERVICE_AGENT_UPDATE_ALLOW: ' 127.0.0.1 ,git.lan ',
    }).actions.agentUpdate;
    expect(c.linux.gitUrl).toBe('ssh://git@github.com/PTah/ssh-monitor.git');
    expect(c.allow).toEqual(['127.0.0.1', 'git.lan']);
    expect(loadConfig({}).actions.agentUpdate.allow).toEqual([]);
    expect(() => loadConfig({ SERVICE_AGENT_UPDATE_LINUX_GIT_URL: 'https://tok@github.com/x.git' })).toThrow(
      /may not carry a user name, token or password: git credentials go to git itself/,
    );
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

  it('Kafka replication: 1 by default; min.insync.replicas 2 from 3 replicas on, never above the factor', () => {
    expect(loadConfig({})).toMatchObject({ kafkaReplicationFactor: 1, kafkaMinInsyncReplicas: 1 });
    expect(loadConfig({ KAFKA_REPLICATION_FACTOR: '3' })).toMatchObject({ kafkaReplicationFactor: 3, kafkaMinInsyncReplicas: 2 });
    expect(loadConfig({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '3' }).kafkaMinInsyncReplicas).toBe(3);
    expect(() => loadConfig({ KAFKA_REPLICATION_FACTOR: '2', KAFKA_MIN_INSYNC_REPLICAS: '3' })).toThrow(
      /KAFKA_MIN_INSYNC_REPLICAS: must not exceed KAFKA_REPLICATION_FACTOR \(2\)/,
    );
  });

  it('warns at start about a replication factor of 1 outside the local stack only', () => {
    expect(startupWarnings(loadConfig({}))).toEqual([]);
    expect(startupWarnings(loadConfig({ KAFKA_BROKERS: 'localhost:9092,127.0.0.2:9092' }))).toEqual([]);
    expect(startupWarnings(loadConfig({ KAFKA_BROKERS: 'kafka-1.example:9092' }))).toEqual([
      expect.stringMatching(/^KAFKA_REPLICATION_FACTOR is 1 /),
    ]);
    expect(startupWarnings(loadConfig({ KAFKA_BROKERS: 'kafka-1.example:9092', KAFKA_REPLICATION_FACTOR: '3' }))).toEqual([]);
  });

  it('VAPID keys: both or neither, and a matching pair', async () => {
    const webpush = (await import('web-push')).default;
    const a = webpush.generateVAPIDKeys();
    const b = webpush.generateVAPIDKeys();
    expect(loadConfig({}).devices.vapidPublicKey).toBeUndefined();
    expect(loadConfig({ VAPID_PUBLIC_KEY: a.publicKey, VAPID_PRIVATE_KEY: a.privateKey }).devices).toMatchObject({
      vapidPublicKey: a.publicKey,
      vapidPrivateKey: a.privateKey,
    });
    expect(() => loadConfig({ VAPID_PUBLIC_KEY: a.publicKey })).toThrow(/VAPID_PRIVATE_KEY: set both/);
    expect(() => loadConfig({ VAPID_PRIVATE_KEY: a.privateKey })).toThrow(/VAPID_PUBLIC_KEY: set both/);
    expect(() => loadConfig({ VAPID_PUBLIC_KEY: a.publicKey, VAPID_PRIVATE_KEY: b.privateKey })).toThrow(
      /VAPID_PUBLIC_KEY: is not the public key/,
    );
    expect(() => loadConfig({ VAPID_PUBLIC_KEY: a.publicKey, VAPID_PRIVATE_KEY: 'x' })).toThrow(/VAPID_PRIVATE_KEY/);
  });

  it('ingest defaults: claims kept 7 days, admission limits on (per host, under a ceiling per key)', () => {
    expect(loadConfig({}).ingest).toMatchObject({
      claimTtlDays: 7,
      resendWindowHours: 24,
      keyStaleSeconds: 600,
      ratePerKey: 50_000,
      rateBurst: 500_000,
      ratePerHost: 5000,
      rateHostBurst: 50_000,
      maxInFlightEvents: 20_000,
      maxInFlightBytes: 64 * 1024 * 1024,
    });
    expect(loadConfig({}).metrics).toEqual({ host: '127.0.0.1', port: undefined, token: undefined });
  });

  it('target networks: empty by default (no remote action connects), CIDRs checked, a bad item names the variable', () => {
    expect(loadConfig({}).actions.targetNetworks).toEqual([]);
    expect(loadConfig({ SERVICE_ACTION_TARGET_NETWORKS: '10.0.0.0/8, 192.168.1.5' }).actions.targetNetworks).toEqual([
      '10.0.0.0/8',
      '192.168.1.5',
    ]);
    expect(() => loadConfig({ SERVICE_ACTION_TARGET_NETWORKS: '10.0.0.0/33' })).toThrow(/SERVICE_ACTION_TARGET_NETWORKS/);
    expect(() => loadConfig({ SERVICE_ACTION_TARGET_NETWORKS: 'corp.example' })).toThrow(/SERVICE_ACTION_TARGET_NETWORKS/);
  });

  it('SERVICE_AGENT_KEY_PREFIX: sac_ by default (kept by the Windows deploy script), short and [A-Za-z0-9_-] only', () => {
    expect(loadConfig({}).agentKeyPrefix).toBe('sac_');
    expect(loadConfig({ SERVICE_AGENT_KEY_PREFIX: 'wpk_' }).agentKeyPrefix).toBe('wpk_');
    for (const bad of ['sac ', "sac'", 'a'.repeat(17), 'sác_', 'x/y']) {
      expect(() => loadConfig({ SERVICE_AGENT_KEY_PREFIX: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ SERVICE_AGENT_KEY_PREFIX: bad })).toThrow(/SERVICE_AGENT_KEY_PREFIX: expected 1 to 16/);
    }
  });
});
