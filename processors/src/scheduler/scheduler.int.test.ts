// Two scheduler processes (roles) on the same BullMQ queue: the liveness scan runs once per tick
// cluster-wide and every silent host gets exactly one host_silence problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, createLogger, loadConfig, type RoleHandle } from '@watchpost/runtime';
import { createQueue, createRedis } from '@watchpost/runtime';
import { SCHEDULED_JOBS, SCHEDULER_QUEUE } from '@watchpost/schemas';
import { createTestStores, testConfig, uniqueTestName, type TestStores } from '@watchpost/testkit';
import { envelope } from '@watchpost/testkit/correlate';
import { waitFor } from '@watchpost/testkit';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
// The package entry: the scheduler with its owners' jobs, and correlate to make hosts (role folders
// import none of each other, tests included).
import { processBatch, schedulerRole } from '../index.ts';

const {
  eventsRollup: EVENTS_ROLLUP_JOB,
  livenessScan: LIVENESS_SCAN_JOB,
  postgresRetention: POSTGRES_RETENTION_JOB,
  dailyReport: DAILY_REPORT_JOB,
  requeueLost: REQUEUE_LOST_JOB,
} = SCHEDULED_JOBS;

let stores: TestStores;
const prefix = uniqueTestName('sched');

beforeAll(async () => {
  stores = await createTestStores(
    testConfig('scheduler', {
      BULLMQ_PREFIX: prefix,
      SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS: '1',
      SERVICE_EVENTS_ROLLUP_INTERVAL_SECONDS: '1',
      SERVICE_HEARTBEAT_STALE_MINUTES: '5',
      // Issue 22: ssh-monitor hosts follow their product's interval; 2 missed x 2 min + 1 min keeps the 5 minutes.
      SERVICE_HEARTBEAT_INTERVAL_LINUX_MINUTES: '2',
      SERVICE_HEARTBEAT_MISSED: '2',
      SERVICE_HEARTBEAT_SLACK_MINUTES: '1',
    }),
    { kafka: false },
  );
});
afterAll(async () => {
  const redis = createRedis(loadConfig().redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await stores?.drop();
});

describe('scheduler role', () => {
  it('two scheduler processes: one scan per tick, one host_silence problem per silent host', async () => {
    const now = Date.now();
    const silent = ['quiet-1', 'quiet-2', 'quiet-3'];
    await processBatch(
      stores.pg,
      [
        ...silent.map((h) =>
          envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: new Date(now - 30 * 60_000) }),
        ),
        envelope({ host: 'alive-1', type: 'agent.heartbeat', severity: 'info', receivedAt: new Date(now) }),
      ],
      { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' },
      () => new Date(),
    );
    const roles: { handle: RoleHandle; clients: Clients }[] = [];
    for (let i = 0; i < 2; i++) {
      const clients = new Clients(stores.config);
      roles.push({
        handle: await schedulerRole({ config: stores.config, log: createLogger('silent', 'test'), clients }),
        clients,
      });
    }
    const queue = createQueue(stores.config, SCHEDULER_QUEUE, createRedis(stores.config.redisUrl, { forBullmq: true }));
    try {
      expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(
        [EVENTS_ROLLUP_JOB, LIVENESS_SCAN_JOB, POSTGRES_RETENTION_JOB, DAILY_REPORT_JOB, REQUEUE_LOST_JOB].sort(),
      );
      await waitFor(
        'two completed liveness scans',
        async () => (await queue.getJobs(['completed'], 0, 200)).filter((j) => j.name === LIVENESS_SCAN_JOB).length,
        (n) => n >= 2,
        20_000,
      );
      const rows = (await stores.pg.query(`SELECT host, status FROM problems WHERE type = 'host_silence' ORDER BY host`)).rows;
      expect(rows).toEqual(silent.map((host) => ({ host, status: 'open' })));
      const hosts = (await stores.pg.query('SELECT hostname, status FROM hosts ORDER BY hostname')).rows;
      expect(hosts).toEqual([
        { hostname: 'alive-1', status: 'online' },
        ...silent.map((hostname) => ({ hostname, status: 'stale' })),
      ]);
      // One job per tick, never two runs for the same tick.
      const jobs = await queue.getJobs(['completed'], 0, 100);
      for (const name of [LIVENESS_SCAN_JOB, EVENTS_ROLLUP_JOB, POSTGRES_RETENTION_JOB]) {
        const ticks = jobs.filter((j) => j.name === name).map((j) => j.timestamp);
        expect(ticks.length).toBeGreaterThan(0);
        expect(new Set(ticks).size).toBe(ticks.length);
      }
      // The rollup job recorded its runs in ClickHouse.
      const runs = await queryRows<{ n: string }>(stores.ch, sql`SELECT count() AS n FROM events_hourly_state`);
      expect(Number(runs[0]!.n)).toBeGreaterThan(0);
    } finally {
      await queue.close();
      for (const r of roles) {
        await r.handle.close?.();
        await r.clients.close();
      }
    }
  }, 60_000);
});
