// Redis behind Sentinel: the master killed (-9) under load. A group of the test's own (a master, a
// replica, three sentinels; down-after 1 s) and the service in one process (`all`: every Redis client
// it makes, BullMQ's, the claims', the live hub's), configured with REDIS_SENTINELS. Agents post, live
// streams are open, logins run, problem notifications and login-lockout deliveries go through BullMQ.
// After the kill, Sentinel promotes the replica; the process must stay up, agents must be accepted
// again, streams fed, logins answered, and new deliveries sent, all on the promoted node.
//
// Replication is asynchronous: what the master acknowledged in its last milliseconds may not have
// reached the replica. The assertions are what the service guarantees then (README, Production): a
// lost claim lets an agent's retry be accepted and produced again, and the stores still hold each event
// once (ClickHouse's ReplacingMergeTree, correlate's event_id fence); a lost job is put back by the
// scheduler's requeue sweep and beginDelivery's row fence keeps each delivery sent once. So: every
// accepted event stored once, every delivery sent exactly once, no process ended.
//
// The negative control runs the same with REDIS_URL alone (no sentinels): the service keeps dialling
// the dead master after the promotion, and the recovery deadline expires printing what it saw. It shows
// the first case's waits can fail, and that it is the sentinel list that makes them pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Config } from '@watchpost/runtime';
import { closeDeliveryQueues, createDeliveryQueues } from '@watchpost/core';
import {
  acceptedAgain,
  endedProcesses,
  exactlyOnce,
  loadFlowing,
  queueWebhookDeliveries,
  readyAgain,
  setUpOutageService,
  startSentinelGroup,
  statusesBeyond,
  storedOnce,
  streamsFedAgain,
  testConfig,
  waitFor,
  webhookNotifyEnv,
  type OutageService,
  type OwnSentinelGroup,
  type ServiceLoad,
  type ServiceProcess,
  type TestStores,
} from '@watchpost/testkit';
import { startHttpReceiver, type HttpReceiver } from '@watchpost/testkit/notify';

interface Setup {
  group: OwnSentinelGroup;
  svc: OutageService;
  stores: TestStores;
  proc: ServiceProcess;
  load: ServiceLoad;
}

const setups: Setup[] = [];
let rx: HttpReceiver;

beforeAll(async () => {
  rx = await startHttpReceiver();
}, 30_000);

afterAll(async () => {
  for (const s of setups) {
    await s.load.stop().catch(() => {});
    await s.svc.close(); // the group too
  }
  await rx?.close();
}, 60_000);

async function setUp(name: string, sentinels: boolean): Promise<Setup> {
  const group = await startSentinelGroup();
  const config: Config = testConfig(name, sentinels ? group.env : { REDIS_URL: group.env.REDIS_URL });
  expect(config.redis.sentinels.length).toBe(sentinels ? 3 : 0);
  const env = {
    ...webhookNotifyEnv(`${rx.url}/hook`),
    // Each host's problem (warning) is notified; the process answers before its consumers join.
    NOTIFY_MIN_SEVERITY: 'warning',
    NOTIFY_FROM_BEGINNING: 'true',
    REDIS_CONNECT_TIMEOUT_MS: '1000',
    // The event in flight at the kill may keep a provisional claim: its retry is accepted after this.
    SERVICE_INGEST_CLAIM_PROVISIONAL_MS: '8000',
    // A job the promotion lost (acknowledged, not yet replicated) is put back after this.
    SERVICE_REQUEUE_GRACE_SECONDS: '2',
    CORRELATE_BATCH_SIZE: '20',
    CORRELATE_BATCH_MS: '20',
    SERVICE_LIVENESS_SCAN_INTERVAL_SECONDS: '1',
  };
  const svc = await setUpOutageService(config, name, env, group);
  const proc = await svc.start('all');
  const load = svc.load(proc, proc, { streams: 3, hostPrefix: name });
  const s = { group, svc, stores: svc.stores, proc, load };
  setups.push(s);
  return s;
}

/** Deliveries queued as notify queues them (a row in Postgres, a job on BullMQ), routed to the webhook. */
async function queueDeliveries(s: Setup, tag: string, n: number): Promise<string[]> {
  const conn = createRedis(s.stores.config.redis, { forBullmq: true });
  const queues = createDeliveryQueues(s.stores.config, conn);
  try {
    return await queueWebhookDeliveries(s.stores, queues, tag, n);
  } finally {
    await closeDeliveryQueues(queues);
    conn.disconnect();
  }
}

/** What the failure says: the group as the sentinels see it, what agents heard, the process's log. */
async function seen(s: Setup): Promise<string> {
  return [
    `sentinels say the master is on ${JSON.stringify(await s.group.masterPorts())} (nodes ${s.group.nodes.map((n) => n.port).join(', ')}; roles ${JSON.stringify(await s.group.roles())})`,
    `agents heard ${JSON.stringify(Object.fromEntries(s.load.agentStatuses))}; accepted ${s.load.accepted.length}`,
    `--- ${s.proc.role} (alive: ${s.proc.alive()})\n${s.proc.output().slice(-2500)}`,
  ].join('\n');
}

/** Load, kill -9 of the master, promotion, then the service must work on the promoted node within `recoveryMs`. */
async function killMasterUnderLoad(s: Setup, recoveryMs: number): Promise<{ before: string[] }> {
  const { stores, load, group } = s;
  load.start();
  try {
    await loadFlowing(stores.pg, load, { correlated: 30, correlatedWithin: { ms: 60_000 }, streamsWithin: { ms: 30_000 } });
    // Jobs in Redis at the kill: deliveries queued just before it.
    const before = await queueDeliveries(s, 'before', 4);

    await group.nodes[0]!.kill9();
    const killedAt = Date.now();
    const promoted = group.nodes[1]!.port;
    await waitFor(
      'Sentinel to promote the replica',
      () => group.masterPorts(),
      (ps) => ps.every((p) => p === promoted),
      30_000,
    );
    const promotedAt = Date.now();
    expect(endedProcesses([s.proc])).toEqual([]);

    await acceptedAgain(load, { ms: recoveryMs });
    console.log(
      `${s.stores.config.redis.sentinels.length ? 'with' : 'without'} sentinels: promoted ${promotedAt - killedAt} ms after the kill; agents accepted again ${Date.now() - promotedAt} ms after the promotion`,
    );
    await streamsFedAgain(load, promotedAt, 'after the promotion', { ms: recoveryMs });
    expect((await load.login()).status).toBe(200);
    await readyAgain([s.proc], { ms: recoveryMs });
    return { before };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${await seen(s)}`, { cause: err });
  } finally {
    await load.stop();
  }
}

/** The first case's checks once the master was killed: each failure thrown to the caller, which adds what it saw. */
async function failsOver(s: Setup): Promise<void> {
  const rxFrom = rx.requests.length;
  const { before } = await killMasterUnderLoad(s, 30_000);

  // New work on the promoted node: deliveries queued now are sent too.
  const after = await queueDeliveries(s, 'after', 4);
  const ids = [...new Set(s.load.accepted)];
  expect(ids.length).toBeGreaterThan(50);
  expect(await storedOnce(s.stores, ids)).toEqual(exactlyOnce(ids.length));

  const deliveries = async () =>
    (await s.stores.pg.query<{ id: string; state: string }>('SELECT id, state FROM notification_deliveries')).rows;
  await waitFor('every delivery sent', deliveries, (d) => d.length > 8 && d.every((x) => x.state === 'sent'), 60_000);
  const all = new Set((await deliveries()).map((d) => d.id));
  const arrivals = new Map<string, number>();
  for (const r of rx.requests.slice(rxFrom)) {
    const id = r.headers['x-watchpost-delivery'] as string;
    if (all.has(id)) arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
  }
  for (const id of [...before, ...after]) expect(arrivals.get(id), id).toBe(1);
  expect(
    [...all].filter((id) => arrivals.get(id) !== 1).map((id) => [id, arrivals.get(id) ?? 0]),
    'deliveries not received exactly once',
  ).toEqual([]);
  expect(endedProcesses([s.proc])).toEqual([]);
  // Agents heard only 201/409/503 (503 while no master answered): never a refused connection or a 500.
  expect(statusesBeyond(s.load.agentStatuses, ['201', '409', '503'])).toEqual([]);
}

describe('Redis behind Sentinel: the master killed (-9) under load', () => {
  it('Sentinel promotes the replica; the service follows: stays up, every accepted event stored once, every delivery sent once, new work proceeds', async () => {
    const s = await setUp('redis_sentinel', true);
    try {
      await failsOver(s);
    } catch (err) {
      // Whatever failed, the failure says what the group, the agents and the process showed.
      const msg = (err as Error).message;
      // Printed as well as thrown: a failure the fault project's retry then passes is still on record.
      console.error(`failover case failed: ${msg.slice(0, 3000)}`);
      throw new Error(msg.includes('sentinels say') ? msg : `${msg}\n${await seen(s)}`, { cause: err });
    }
  }, 150_000);

  it('negative control: with REDIS_URL alone (no sentinels) the service stays on the dead master and the recovery deadline expires', async () => {
    const s = await setUp('redis_nosentinel', false);
    const err = await killMasterUnderLoad(s, 15_000).then(
      () => null,
      (e: Error) => e,
    );
    expect(err, 'the service recovered without sentinels: the first case proves nothing').not.toBeNull();
    // The failure text the first case would print had its clients not followed the promotion.
    console.log(`negative control failed as it must:\n${err!.message.slice(0, 1500)}`);
    expect(err!.message).toMatch(/^timed out waiting for agents to be accepted again/);
    expect(endedProcesses([s.proc])).toEqual([]);
  }, 120_000);
});
