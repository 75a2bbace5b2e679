// The spec's problem transitions and the correlate rules against the real Postgres, with the clock at
// the edges (receive times for windows and liveness, occurred_at for the flap rule).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { processBatch, type CorrelateSettings } from './processor.ts';
import { runLivenessScan } from './liveness.ts';
import { transition, loadHostStatuses, HOST_SILENCE_COOLDOWN_MS } from '@watchpost/core';
import { dumpCorrelateTables, envelope, tableDifferences } from '@watchpost/testkit/correlate';
import type { CorrelateEnvelope } from './rules.ts';

let stores: TestStores;
const settings: CorrelateSettings = { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' };
const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;
const clock = () => new Date('2030-01-01T00:00:00Z');
let n = 0;
const host = () => `host-${++n}`;

const run = (...envs: CorrelateEnvelope[]) => processBatch(stores.pg, envs, settings, clock);
const problemsOf = async (h: string) =>
  (await stores.pg.query('SELECT * FROM problems WHERE host = $1 ORDER BY created_at, id', [h])).rows;

beforeAll(async () => {
  stores = await createTestStores(testConfig('correlate_proc'), { kafka: false });
  // Contract table of the API (created by its own migration when present).
  await stores.pg.query(`CREATE TABLE IF NOT EXISTS event_type_settings (type text PRIMARY KEY, severity_override text NULL,
    visible boolean NOT NULL DEFAULT true, updated_at timestamptz, updated_by text)`);
});
afterAll(async () => stores?.drop());
beforeEach(async () => {
  await stores.pg.query('DELETE FROM event_type_settings');
});

describe('hosts', () => {
  it('are created and refreshed on every event, and reappear after a delete', async () => {
    const h = host();
    await run(envelope({ host: h, type: 'agent.test', severity: 'info', receivedAt: at(0) }));
    await run(envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(MIN) }));
    let row = (await stores.pg.query('SELECT * FROM hosts WHERE hostname = $1', [h])).rows[0];
    expect(row).toMatchObject({
      display_name: h.toUpperCase(),
      os_family: 'linux',
      product: 'ssh-monitor',
      internal_address: '10.0.0.5',
      status: 'online',
    });
    expect([row.first_seen, row.last_seen, row.last_heartbeat]).toEqual([at(0), at(MIN), at(MIN)]);
    expect(row.ssh_admin_ok).toBe(false);
    await stores.pg.query('DELETE FROM hosts WHERE hostname = $1', [h]);
    await run(envelope({ host: h, type: 'ssh.login.success', severity: 'info', receivedAt: at(2 * MIN) }));
    row = (await stores.pg.query('SELECT * FROM hosts WHERE hostname = $1', [h])).rows[0];
    expect(row.first_seen).toEqual(at(2 * MIN));
    expect(row.last_heartbeat).toBeNull();
  });

  it('report.daily.* counts as liveness', async () => {
    const h = host();
    await run(envelope({ host: h, type: 'report.daily.ssh', severity: 'high', receivedAt: at(5) }));
    const row = (await stores.pg.query('SELECT last_heartbeat FROM hosts WHERE hostname = $1', [h])).rows[0];
    expect(row.last_heartbeat).toEqual(at(5));
    expect(await problemsOf(h)).toHaveLength(0); // report types never open severity problems
  });
});

describe('problem status table: event ingest', () => {
  it('(none) -> open with a notification; matching within the window extends (edge inclusive)', async () => {
    const h = host();
    const e1 = envelope({ host: h, severity: 'warning', receivedAt: at(0) });
    const e2 = envelope({ host: h, severity: 'high', receivedAt: at(60 * MIN) }); // exactly at the window edge
    const out = await run(e1, e2);
    expect(out.opened).toHaveLength(1);
    const [p] = await problemsOf(h);
    expect(p).toMatchObject({
      status: 'open',
      count: 2,
      severity: 'high',
      fingerprint: `${h}|ssh.login.failed|severity`,
      rule: 'severity',
    });
    expect([p.created_at, p.last_seen]).toEqual([at(0), at(60 * MIN)]);
    const timeline = (
      await stores.pg.query('SELECT event_id::text FROM problem_events WHERE problem_id = $1 ORDER BY received_at', [p.id])
    ).rows;
    expect(timeline.map((r) => r.event_id)).toEqual([e1.event.event_id, e2.event.event_id]);
    const outbox = (await stores.pg.query('SELECT kind, message_id FROM problem_outbox WHERE problem_id = $1', [p.id])).rows;
    expect(outbox).toEqual([{ kind: 'problem.opened', message_id: `${p.id}:opened` }]);
  });

  it('one second past the window: a new open problem; the old one is closed as superseded', async () => {
    const h = host();
    await run(envelope({ host: h, receivedAt: at(0) }));
    await run(envelope({ host: h, receivedAt: at(60 * MIN + 1000) }));
    const [old, fresh] = await problemsOf(h);
    expect(old).toMatchObject({ status: 'resolved', resolved_by: 'auto', count: 1 });
    expect(old.details).toMatchObject({ resolve_reason: 'superseded', superseded_by: fresh.id });
    expect(fresh).toMatchObject({ status: 'open', count: 1 });
  });

  it('an acknowledged problem is extended; a resolved one never is', async () => {
    const h = host();
    await run(envelope({ host: h, receivedAt: at(0) }));
    const [p] = await problemsOf(h);
    const ack = transition(p, 'acknowledge', at(1000));
    expect(ack.ok).toBe(true);
    await stores.pg.query(`UPDATE problems SET status = 'acknowledged', acknowledged_at = $2 WHERE id = $1`, [p.id, at(1000)]);
    await run(envelope({ host: h, receivedAt: at(2000) }));
    expect((await problemsOf(h))[0]).toMatchObject({ status: 'acknowledged', count: 2 });
    await stores.pg.query(`UPDATE problems SET status = 'resolved', resolved_at = $2, resolved_by = 'manual' WHERE id = $1`, [
      p.id,
      at(3000),
    ]);
    await run(envelope({ host: h, receivedAt: at(4000) }));
    const all = await problemsOf(h);
    expect(all.map((x) => [x.status, x.count])).toEqual([
      ['resolved', 2],
      ['open', 1],
    ]);
  });

  it('severity below the minimum opens nothing; the per-type override applies first', async () => {
    const h = host();
    await stores.pg.query(
      `INSERT INTO event_type_settings (type, severity_override) VALUES ('ssh.login.success', 'high'), ('ssh.ip.banned', 'info')`,
    );
    await run(
      envelope({ host: h, type: 'ssh.login.failed', severity: 'info', receivedAt: at(0) }),
      envelope({ host: h, type: 'ssh.ip.banned', severity: 'critical', receivedAt: at(1) }),
      envelope({ host: h, type: 'ssh.login.success', severity: 'info', receivedAt: at(2) }),
    );
    const ps = await problemsOf(h);
    expect(ps.map((p) => [p.type, p.severity])).toEqual([['ssh.login.success', 'high']]);
  });

  it('a replayed batch changes nothing', async () => {
    const h = host();
    const batch = [
      envelope({ host: h, receivedAt: at(0) }),
      envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(1000) }),
    ];
    await run(...batch);
    const before = await dumpCorrelateTables(stores.pg);
    const again = await run(...batch, batch[0]!);
    // Without a Kafka position (in-process), the repeats are recognised by event id: the problem
    // event is on a timeline already (skipped twice); the heartbeat is re-applied, which is idempotent.
    expect(again).toMatchObject({ applied: 1, skipped: 2 });
    expect(await dumpCorrelateTables(stores.pg)).toEqual(before);
  });
});

describe('host_silence', () => {
  const stale = 10;
  it('scan opens one per stale host; a heartbeat resolves it automatically', async () => {
    const h = host();
    await run(envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(0) }));
    const r = await runLivenessScan(stores.pg, { now: at(stale * MIN), staleMinutes: stale }); // exactly the limit: not stale yet
    expect(r.opened.filter(Boolean)).toHaveLength(0);
    expect((await problemsOf(h)).length).toBe(0);
    await runLivenessScan(stores.pg, { now: at(stale * MIN + 1000), staleMinutes: stale });
    const [p] = await problemsOf(h);
    expect(p).toMatchObject({ type: 'host_silence', status: 'open', host: h });
    expect((await stores.pg.query('SELECT status FROM hosts WHERE hostname = $1', [h])).rows[0].status).toBe('stale');
    await runLivenessScan(stores.pg, { now: at(stale * MIN + 61_000), staleMinutes: stale });
    expect(await problemsOf(h)).toHaveLength(1);
    const out = await run(envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(20 * MIN) }));
    expect(out.resolved).toEqual([{ id: p.id, resolved_by: 'auto' }]);
    expect((await problemsOf(h))[0]).toMatchObject({ status: 'resolved', resolved_by: 'auto' });
    expect((await stores.pg.query('SELECT status FROM hosts WHERE hostname = $1', [h])).rows[0].status).toBe('online');
  });

  it('manual resolve: suppressed at 12 h - 1 s, the same problem reopens at 12 h + 1 s while still silent', async () => {
    const h = host();
    await run(envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(0) }));
    await runLivenessScan(stores.pg, { now: at(11 * MIN), staleMinutes: stale });
    const [p] = await problemsOf(h);
    const resolvedAt = at(12 * MIN);
    const t = transition(p, { kind: 'resolve', by: 'admin' }, resolvedAt);
    expect(t.ok).toBe(true);
    await stores.pg.query(
      `UPDATE problems SET status = 'resolved', resolved_at = $2, resolved_by = 'manual', resolved_by_user = 'admin' WHERE id = $1`,
      [p.id, resolvedAt],
    );
    const minus = await runLivenessScan(stores.pg, {
      now: new Date(resolvedAt.getTime() + HOST_SILENCE_COOLDOWN_MS - 1000),
      staleMinutes: stale,
    });
    expect(minus.suppressed).toBeGreaterThanOrEqual(1);
    expect((await problemsOf(h)).map((x) => x.status)).toEqual(['resolved']);
    const plus = await runLivenessScan(stores.pg, {
      now: new Date(resolvedAt.getTime() + HOST_SILENCE_COOLDOWN_MS + 1000),
      staleMinutes: stale,
    });
    expect(plus.reopened).toContain(p.id);
    const after = await problemsOf(h);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: p.id, status: 'open', resolved_at: null, resolved_by: null, reopened_count: 1 });
    const kinds = (await stores.pg.query('SELECT kind FROM problem_outbox WHERE problem_id = $1 ORDER BY id', [p.id])).rows.map(
      (r) => r.kind,
    );
    expect(kinds).toEqual(['problem.opened', 'problem.reopened']);
  });

  it('two scanners at once open one problem per silent host', async () => {
    const hs = [host(), host(), host()];
    await run(...hs.map((h) => envelope({ host: h, type: 'agent.heartbeat', severity: 'info', receivedAt: at(0) })));
    const now = at(30 * MIN);
    await Promise.all([1, 2, 3, 4].map(() => runLivenessScan(stores.pg, { now, staleMinutes: stale })));
    for (const h of hs) expect((await problemsOf(h)).map((p) => p.type)).toEqual(['host_silence']);
  });
});

describe('liveness per agent kind (issue 22)', () => {
  const policy = testConfig('liveness').heartbeat; // defaults: Windows 4 h, Linux 12 h, 2 missed + 5 min
  const hostStatus = async (h: string) =>
    (await stores.pg.query('SELECT status FROM hosts WHERE hostname = $1', [h])).rows[0].status;

  it('a Windows host 3 h after its heartbeat is online, 9 h after it stale with a host_silence problem', async () => {
    const [ok, late] = [host(), host()];
    const now = Date.now();
    await run(
      envelope({
        host: ok,
        osFamily: 'windows',
        type: 'agent.heartbeat',
        severity: 'info',
        receivedAt: new Date(now - 3 * 3600_000),
      }),
      envelope({
        host: late,
        osFamily: 'windows',
        type: 'agent.heartbeat',
        severity: 'info',
        receivedAt: new Date(now - 9 * 3600_000),
      }),
    );
    const r = await runLivenessScan(stores.pg, { now: new Date(now), staleMinutes: policy });
    expect(await problemsOf(ok)).toHaveLength(0);
    expect(await hostStatus(ok)).toBe('online');
    const [p] = await problemsOf(late);
    expect(p).toMatchObject({
      type: 'host_silence',
      status: 'open',
      title: `No heartbeat from ${late} for more than 485 minutes`,
    });
    expect(r.opened).toContain(p.id);
    expect(await hostStatus(late)).toBe('stale');
    const statuses = await loadHostStatuses(stores.pg, policy); // the reads' rule agrees with the scan
    expect([statuses.get(ok), statuses.get(late)]).toEqual(['online', 'stale']);
  });

  // The Windows agent as it beats (Login_Monitor.ps1: agent.heartbeat at every start, then every
  // $HeartbeatInterval s, 14400 by Deploy-LoginMonitor.ps1; the daily report right after a start past 09:00).
  const H = 60 * MIN;
  const beat = (h: string, ms: number) =>
    run(envelope({ host: h, osFamily: 'windows', type: 'agent.heartbeat', severity: 'info', receivedAt: at(ms) }));
  const scanAt = async (h: string, ms: number) => {
    await runLivenessScan(stores.pg, { now: at(ms), staleMinutes: policy });
    return { status: await hostStatus(h), problems: (await problemsOf(h)).map((p) => p.type) };
  };
  const learned = async (h: string) =>
    (await stores.pg.query('SELECT heartbeat_interval_seconds FROM hosts WHERE hostname = $1', [h])).rows[0]
      .heartbeat_interval_seconds;

  it('a fresh install (its heartbeat, the daily report 4 s later) pages no one: stale only after 2 x 4 h + 5 min', async () => {
    const h = host();
    await beat(h, 0);
    await run(envelope({ host: h, osFamily: 'windows', type: 'report.daily.rdp', severity: 'info', receivedAt: at(4000) }));
    expect(await learned(h)).toBeNull();
    expect(await scanAt(h, 8 * MIN)).toEqual({ status: 'online', problems: [] });
    expect(await scanAt(h, 3 * H)).toEqual({ status: 'online', problems: [] });
    expect(await scanAt(h, 4000 + 8 * H + 4 * MIN)).toEqual({ status: 'online', problems: [] });
    expect(await scanAt(h, 4000 + 8 * H + 6 * MIN)).toEqual({ status: 'stale', problems: ['host_silence'] });
  });

  it('a burst of restarts (a heartbeat at each, 20-25 s apart), then quiet for 3 h: no page', async () => {
    const h = host();
    for (const ms of [0, 20_000, 45_000, 70_000]) await beat(h, ms);
    expect(await learned(h)).toBeNull();
    expect(await scanAt(h, 70_000 + 3 * H)).toEqual({ status: 'online', problems: [] });
  });

  it('a settings reload stretching one gap to 7.8 h keeps the learned 4 h: no page', async () => {
    const h = host();
    for (const k of [0, 1, 2, 3]) await beat(h, k * 4 * H);
    expect(await learned(h)).toBe(4 * 3600);
    expect(await scanAt(h, 12 * H + 7.8 * H)).toEqual({ status: 'online', problems: [] });
    await beat(h, 12 * H + 7.8 * H);
    expect(await learned(h)).toBe(4 * 3600);
  });

  it('an agent set to beat every 5 minutes is learned after 30 minutes of them and goes stale after ~15 minutes', async () => {
    const h = host();
    for (let m = 0; m <= 30; m += 5) await beat(h, m * MIN);
    expect(await learned(h)).toBe(300);
    expect(await scanAt(h, 44 * MIN)).toEqual({ status: 'online', problems: [] });
    expect(await scanAt(h, 46 * MIN)).toEqual({ status: 'stale', problems: ['host_silence'] });
  });
});

describe('gateway flap (occurred_at)', () => {
  const pair = (h: string, session: string, connectAt: Date, gapMs: number, recv: Date) => [
    envelope({
      host: h,
      type: 'rdg.connection.success',
      severity: 'info',
      details: { event_code: 302, session_id: session },
      occurredAt: connectAt,
      receivedAt: recv,
    }),
    envelope({
      host: h,
      type: 'rdg.connection.disconnected',
      severity: 'info',
      details: { event_code: 303, session_id: session },
      occurredAt: new Date(connectAt.getTime() + gapMs),
      receivedAt: new Date(recv.getTime() + 50),
    }),
  ];

  it.each([
    { gap: 900, flap: false },
    { gap: 1000, flap: true },
    { gap: 10_000, flap: true },
    { gap: 10_100, flap: false },
  ])('303 $gap ms after 302 -> flap $flap', async ({ gap, flap }) => {
    const h = host();
    const [c, d] = pair(h, 'S-1', at(0), gap, at(20_000)); // received together: only occurred_at counts
    await run(c!, d!);
    const ps = await problemsOf(h);
    expect(ps.length).toBe(flap ? 1 : 0);
    if (!flap) return;
    expect(ps[0]).toMatchObject({ rdg_flap: true, type: 'rdg.connection.flap', rule: 'rdg_flap', status: 'open' });
    const badges = (
      await stores.pg.query('SELECT event_id::text, role FROM rdg_flap_events WHERE problem_id = $1 ORDER BY role', [ps[0].id])
    ).rows;
    expect(badges).toEqual([
      { event_id: c!.event.event_id, role: 'connect' },
      { event_id: d!.event.event_id, role: 'disconnect' },
    ]);
    expect((ps[0].details.pairs as unknown[]).length).toBe(1);
  });

  it('a paired event delivered again in a later batch waits for nothing, flap or not', async () => {
    for (const gap of [2000, 30_000]) {
      const h = host();
      const [c, d] = pair(h, 'S-9', at(0), gap, at(0));
      await run(c!, d!);
      const before = await dumpCorrelateTables(stores.pg);
      // An agent's retry that reached Kafka twice: each half again, on its own.
      for (const again of [d!, c!]) {
        await run(again);
        expect(tableDifferences(await dumpCorrelateTables(stores.pg), before), `gap ${gap} ms, ${again.event.type}`).toEqual({});
      }
    }
  });

  it('deduplicates flaps for 30 s, then opens a new problem', async () => {
    const h = host();
    await run(...pair(h, 'A', at(0), 2000, at(0))); // flap at t=2 s
    await run(...pair(h, 'B', at(30_000), 2000, at(30_000))); // t=32 s: 30 s after -> same problem
    let ps = await problemsOf(h);
    expect(ps.map((p) => [p.status, p.count])).toEqual([['open', 2]]);
    await run(...pair(h, 'C', at(60_100), 2000, at(60_100))); // t=62.1 s: 30.1 s after the last -> new problem
    ps = await problemsOf(h);
    expect(ps.map((p) => [p.status, p.count])).toEqual([
      ['resolved', 2],
      ['open', 1],
    ]);
    expect(
      (await stores.pg.query('SELECT count(*)::int AS n FROM rdg_flap_events WHERE problem_id = $1', [ps[0].id])).rows[0].n,
    ).toBe(4);
  });

  it('accepts the variant field names and matches per session', async () => {
    const h = host();
    await run(
      envelope({
        host: h,
        type: 'rdg.connection.other',
        details: { code: '302', connection_id: 'X' },
        occurredAt: at(0),
        receivedAt: at(0),
      }),
      envelope({
        host: h,
        type: 'rdg.connection.other',
        details: { code: '302', connection_id: 'Y' },
        occurredAt: at(100),
        receivedAt: at(100),
      }),
      envelope({
        host: h,
        type: 'rdg.connection.other',
        details: { event_id_code: 303, session: 'Y' },
        occurredAt: at(3000),
        receivedAt: at(3000),
      }),
    );
    const ps = await problemsOf(h);
    expect(ps.filter((p) => p.rdg_flap).length).toBe(1);
    expect((ps.find((p) => p.rdg_flap)!.details.pairs as { session_id: string }[])[0]!.session_id).toBe('Y');
  });
});

describe('inventory', () => {
  it('stores the snapshot; a hardware change raises a warning problem carrying the diff', async () => {
    const h = host();
    const hw = { cpu: { model: 'Xeon', cores: 8 }, memory_mb: 16384 };
    const sw = [{ name: 'openssh', version: '9.2' }];
    await run(
      envelope({
        host: h,
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: hw, software: sw },
        receivedAt: at(0),
      }),
    );
    await run(
      envelope({
        host: h,
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: hw, software: [] },
        receivedAt: at(1000),
      }),
    );
    expect(await problemsOf(h)).toHaveLength(0); // software-only change: no problem
    const row = (
      await stores.pg.query('SELECT inventory_hardware, inventory_software, inventory_at FROM hosts WHERE hostname = $1', [h])
    ).rows[0];
    expect(row).toEqual({ inventory_hardware: hw, inventory_software: [], inventory_at: at(1000) });
    await run(
      envelope({
        host: h,
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware: { ...hw, memory_mb: 8192 }, software: [] },
        receivedAt: at(2000),
      }),
    );
    const [p] = await problemsOf(h);
    expect(p).toMatchObject({ type: 'agent.inventory', rule: 'hardware_change', severity: 'warning', status: 'open' });
    expect(p.details.diff).toEqual({ added: [], removed: [], changed: [{ path: 'memory_mb', from: 16384, to: 8192 }] });
  });
});
