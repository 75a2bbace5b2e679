// kill -9 of Redis under load, first with every role in ONE process (as `npm run up` runs it), then
// with one process per role: agents posting (ingest claims), live streams open (the hub's subscriber,
// the stream role's publisher), logins (attempt counters), BullMQ workers blocked on their queues
// (deliver, actions, scheduler, notify) and problem notifications going through the deliver queue.
// Every process must stay up and answer again once Redis is back on the same port, with its periodic
// jobs scheduled again.
//
// The test's Redis runs with AOF (`appendfsync everysec`) as the stack's does: a kill -9 of the server
// loses nothing it acknowledged (the AOF is written before the reply, so it sits in the page cache), so
// claims survive and an agent's retry of a stored event hears 409. Only a machine crash can lose up to
// a second of claims; an event whose claim was lost may then be accepted twice and produced twice, and
// the stores hold it once anyway: ClickHouse's ReplacingMergeTree collapses it (exact reads use FINAL
// or uniqExact) and correlate records an event_id on one timeline only. The second case runs its own
// Redis WITHOUT persistence to prove that: after the restart every claim is gone, agents resend events
// already stored, they are accepted again, and still every store holds each event once. That Redis
// also loses the queued jobs: deliveries and an action queued just before the kill (their queues paused,
// so only Redis holds them) are put back by the scheduler's requeue sweep and each is sent or run once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ROLES, createQueue, createRedis } from '@watchpost/runtime';
import { ACTIONS_MAINTENANCE_JOBS, ACTIONS_QUEUE, SCHEDULED_JOBS, SCHEDULER_QUEUE } from '@watchpost/schemas';
import { actionJobOptions, closeDeliveryQueues, createDeliveryQueues, getAction, recordAction } from '@watchpost/core';
import {
  acceptedAgain,
  endedProcesses,
  exactlyOnce,
  killUnderLoad,
  loadFlowing,
  queueWebhookDeliveries,
  readyAgain,
  setUpOutageService,
  startRedisServer,
  statusesBeyond,
  storedOnce,
  streamsFedAgain,
  testConfig,
  waitFor,
  webhookNotifyEnv,
  type OutageService,
  type OwnRedis,
  type ServiceLoad,
  type ServiceProcess,
} from '@watchpost/testkit';
import { startHttpReceiver, type HttpReceiver } from '@watchpost/testkit/notify';
import { createTestGitRepo } from '@watchpost/testkit/actions';

interface Setup extends OutageService {
  own: OwnRedis;
}

const setups: Setup[] = [];
let rx: HttpReceiver;

beforeAll(async () => {
  rx = await startHttpReceiver();
}, 30_000);

afterAll(async () => {
  for (const s of setups) await s.close();
  await rx?.close();
}, 60_000);

async function setUp(name: string, redisSettings: Record<string, string>): Promise<Setup> {
  const own = await startRedisServer(redisSettings);
  const config = testConfig(name, { REDIS_URL: own.url });
  const env = {
    ...webhookNotifyEnv(`${rx.url}/hook`),
    // A connect to the dead Redis gives up after a second (requests answer 503 sooner).
    REDIS_CONNECT_TIMEOUT_MS: '1000',
    // The event in flight at the kill keeps a provisional claim (produced, commit lost): its agent hears
    // 503 until the claim expires, then its retry is accepted and produced again (the stores hold it once).
    SERVICE_INGEST_CLAIM_PROVISIONAL_MS: '8000',
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
    SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS: '1',
  };
  const s = { own, ...(await setUpOutageService(config, name, env, own)) };
  setups.push(s);
  return s;
}

/** Job schedulers per queue, once both queues have them all (or the wait ran out). */
async function jobSchedulers(s: Setup): Promise<Record<string, number>> {
  const conn = createRedis(s.own.url, { forBullmq: true });
  const queues = [SCHEDULER_QUEUE, ACTIONS_QUEUE].map((name) => createQueue(s.stores.config, name, conn));
  const counts = async (): Promise<Record<string, number>> =>
    Object.fromEntries(await Promise.all(queues.map(async (q) => [q.name, await q.getJobSchedulersCount()] as const)));
  try {
    const want = Object.values(SCHEDULED_JOBS).length + Object.values(ACTIONS_MAINTENANCE_JOBS).length;
    return await waitFor('job schedulers', counts, (c) => Object.values(c).reduce((a, b) => a + b, 0) >= want, 20_000).catch(
      counts,
    );
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    conn.disconnect();
  }
}

/** Kill -9 of Redis under load, restart, recovery; then every store checked for exactly once. */
async function killRedisUnderLoad(
  s: Setup,
  ps: ServiceProcess[],
  load: ServiceLoad,
  opts: { resent: 201 | 409; beforeKill?: () => Promise<void> },
) {
  await killUnderLoad({
    load,
    processes: ps,
    server: s.own,
    flowing: () =>
      loadFlowing(s.stores.pg, load, { correlated: 30, correlatedWithin: { ms: 60_000 }, streamsWithin: { ms: 30_000 } }),
    beforeKill: opts.beforeKill,
    downMs: 5000,
    whileDown: () => expect(endedProcesses(ps)).toEqual([]),
    healthyWithin: { ms: 30_000 },
    async recovered(back) {
      await acceptedAgain(load, { ms: 60_000 });
      // The hub resubscribed: streams get counters published after the restart.
      await streamsFedAgain(load, back, 'after the restart', { ms: 30_000 });
      expect((await load.login()).status).toBe(200);
      // Events stored before the kill, resent: with AOF their claims survived (409); an unpersisted Redis
      // lost them, so they are accepted (and produced) again (201) and the stores must still hold each once.
      for (const ev of load.firstAccepted) expect(await load.post(ev)).toBe(opts.resent);
      // Job schedulers live in Redis: the periodic jobs (liveness scan, rollup, reports, retention, the
      // actions' maintenance) must be scheduled again even by a Redis that came back empty.
      expect(await jobSchedulers(s)).toEqual({
        [SCHEDULER_QUEUE]: Object.values(SCHEDULED_JOBS).length,
        [ACTIONS_QUEUE]: Object.values(ACTIONS_MAINTENANCE_JOBS).length,
      });
      await readyAgain(ps, { ms: 60_000 });
    },
  });
  expect(endedProcesses(ps)).toEqual([]);
  // Agents heard only 201/409/503: never a refused connection (a process that ended) or a 500.
  expect(statusesBeyond(load.agentStatuses, ['201', '409', '503'])).toEqual([]);
}

describe('Redis killed (-9) under load', () => {
  it('every role in one process: it stays up, answers again, and every accepted event is stored and correlated once', async () => {
    const s = await setUp('redis_kill_all', { appendonly: 'yes', appendfsync: 'everysec' });
    // Each host's problem (warning) is notified, whatever the time of day: the daily report (08:00 UTC)
    // must not be what this counts. The process answers before its consumers join: read from the start.
    s.env.NOTIFY_MIN_SEVERITY = 'warning';
    s.env.NOTIFY_FROM_BEGINNING = 'true';
    const all = await s.start('all');
    const load = s.load(all, all, { streams: 3, hostPrefix: 'rkill' });
    await killRedisUnderLoad(s, [all], load, { resent: 409 });
    const ids = [...new Set(load.accepted)];
    expect(ids.length).toBeGreaterThan(100);
    expect(await storedOnce(s.stores, ids)).toEqual(exactlyOnce(ids.length));
    // A problem opened per host: its notification delivered through the deliver queue.
    const problemDeliveries = async () =>
      (
        await s.stores.pg.query<{ problems: number; sent: number; total: number }>(
          `SELECT (SELECT count(*)::int FROM problems) AS problems,
                  count(*) FILTER (WHERE d.state = 'sent')::int AS sent, count(*)::int AS total
             FROM notification_deliveries d JOIN notification_decisions n USING (subject_key)
            WHERE n.subject_kind = 'problem'`,
        )
      ).rows[0]!;
    await waitFor(
      'problem notifications delivered',
      problemDeliveries,
      (d) => d.problems >= 6 && d.total >= d.problems && d.sent === d.total,
      60_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await problemDeliveries())}\n${all.output().slice(-4000)}`, {
        cause: err,
      });
    });
    await all.stop();
  }, 240_000);

  it('one process per role, Redis without persistence: each stays up and recovers; resent events are stored once; queued deliveries and actions run once', async () => {
    const s = await setUp('redis_kill_roles', {});
    // The receiver is shared with the first case (whose deliveries may share ids with these): count only
    // what arrives from here on.
    const rxFrom = rx.requests.length;
    // The requeue sweep puts back jobs of rows queued longer than this (production: 60 s).
    s.env.SERVICE_REQUEUE_GRACE_SECONDS = '2';
    s.env.SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS = 'true';
    const repo = createTestGitRepo();
    repo.commit({ README: 'agent\n' });
    const ps = await s.startRoles(SERVICE_ROLES);
    const byRole = s.byRole;
    const load = s.load(byRole('ingest'), byRole('api'), { streams: 3, hostPrefix: 'rkillr' });
    const deliveries = async () =>
      (await s.stores.pg.query<{ id: string; state: string }>('SELECT id, state FROM notification_deliveries')).rows;
    let lostDeliveries: string[] = [];
    let actionId = 0;
    try {
      await killRedisUnderLoad(s, ps, load, {
        resent: 201,
        // Jobs that exist only in Redis at the kill: the delivery and actions queues are paused (the
        // pause is Redis state too, gone with it), then deliveries and an action are queued as notify
        // and the API queue them.
        beforeKill: async () => {
          const conn = createRedis(s.own.url, { forBullmq: true });
          const queues = createDeliveryQueues(s.stores.config, conn);
          const actions = createQueue(s.stores.config, ACTIONS_QUEUE, conn);
          try {
            await Promise.all([queues.webhook.pause(), actions.pause()]);
            lostDeliveries = await queueWebhookDeliveries(s.stores, queues, 'lost', 4);
            const { action, job } = await recordAction(
              s.stores.pg,
              { kind: 'git.test', payload: { git_url: repo.url, branch: 'main' } },
              { actor: 'operator', role: 'admin', address: null },
              new Date(Date.now() + 600_000),
            );
            await actions.add(job.kind, job, actionJobOptions(action.id));
            actionId = action.id;
          } finally {
            await closeDeliveryQueues(queues);
            await actions.close();
            conn.disconnect();
          }
        },
      });
      const ids = [...new Set(load.accepted)];
      expect(ids.length).toBeGreaterThan(100);
      expect(await storedOnce(s.stores, ids)).toEqual(exactlyOnce(ids.length));

      // Their jobs went with Redis; the scheduler's requeue sweep puts them back, and each runs once.
      const diagnose = async (err: unknown) => {
        const rows = JSON.stringify({ deliveries: await deliveries(), action: await getAction(s.stores.pg, actionId) });
        throw new Error(`${(err as Error).message}\n${rows}\n${byRole('scheduler').output().slice(-3000)}`, { cause: err });
      };
      await waitFor('every delivery sent', deliveries, (d) => d.every((x) => x.state === 'sent'), 90_000).catch(diagnose);
      await waitFor(
        'the action run',
        async () => (await getAction(s.stores.pg, actionId))?.status,
        (st) => st === 'succeeded',
        60_000,
      ).catch(diagnose);
    } finally {
      repo.close();
    }
    const all = new Set((await deliveries()).map((d) => d.id));
    const arrivals = new Map<string, number>();
    for (const r of rx.requests.slice(rxFrom)) {
      const id = r.headers['x-watchpost-delivery'] as string;
      if (all.has(id)) arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    }
    expect(lostDeliveries).toHaveLength(4);
    for (const id of lostDeliveries) expect(arrivals.get(id), id).toBe(1);
    expect([...arrivals.values()].filter((n) => n !== 1)).toEqual([]);
    const audits = await s.stores.pg.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE action = 'action.git.test' AND details->>'action_id' = $1",
      [String(actionId)],
    );
    expect(audits.rows[0]!.n).toBe(1);
    expect(byRole('scheduler').output()).toContain('requeued jobs Redis had lost');
    expect(endedProcesses(ps)).toEqual([]);
  }, 300_000);
});
