// The Windows agent's own RD Gateway and inventory events (issue 22, items 3, 4, 10) through processBatch
// against the real Postgres. Events come from testkit's agent fixtures, built from rdp-login-monitor
// 2.1.7-SAC: rdpMonitor.gateway follows Login_Monitor.ps1's RD Gateway branch (Get-RDGatewayEventInfo,
// Get-RdgGatewaySacEventType: no session id, code in event_id_windows), rdpMonitor.inventory follows
// Get-HostInventorySnapshot / Send-HostInventoryToSac (details.inventory). Delivery newest first is
// what Sac-Client.ps1 Invoke-SacFlushSpool does after an outage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventV1 } from '@watchpost/schemas';
import { createTestStores, rdpMonitor, sacOccurredAt, testConfig, windowsAgent, type TestStores } from '@watchpost/testkit';
import { processBatch, type CorrelateSettings } from './processor.ts';
import type { CorrelateEnvelope } from './rules.ts';

let stores: TestStores;
const settings: CorrelateSettings = { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' };
const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const clock = () => new Date('2030-01-01T00:00:00Z');
let n = 0;
const hostName = () => `WS-${++n}`;

/** One agent per host (a new agent_instance_id would be an identity conflict of its own). */
const agents = new Map<string, ReturnType<typeof windowsAgent>>();
const agentOf = (h: string, ipv4?: string) => {
  if (!agents.has(h)) agents.set(h, windowsAgent(h));
  const a = agents.get(h)!;
  return ipv4 ? { ...a, ipv4 } : a;
};

const env = (event: EventV1, receivedAt: Date): CorrelateEnvelope => ({ received_at: receivedAt.toISOString(), event });
/** Each envelope in its own batch (a later batch reads what the earlier one stored). */
const runEach = async (...envs: CorrelateEnvelope[]) => {
  for (const e of envs) await processBatch(stores.pg, [e], settings, clock);
};

const q = async (sql: string, params: unknown[]) => (await stores.pg.query(sql, params)).rows;
const problemsOf = (h: string) => q('SELECT * FROM problems WHERE host = $1 ORDER BY created_at, id', [h]);

/** What the flap rule leaves for a host: problems with their timelines and flap badges. */
async function flapState(h: string) {
  const problems = (await problemsOf(h)).filter((p) => p.rdg_flap);
  return Promise.all(
    problems.map(async (p) => ({
      id: p.id,
      status: p.status,
      count: p.count,
      rdg_flap: p.rdg_flap,
      severity: p.severity,
      created_at: p.created_at,
      details: p.details,
      timeline: await q('SELECT event_id::text, occurred_at, type FROM problem_events WHERE problem_id = $1 ORDER BY event_id', [
        p.id,
      ]),
      badges: await q(
        'SELECT event_id::text, role, partner_event_id::text, session_id FROM rdg_flap_events WHERE problem_id = $1 ORDER BY role',
        [p.id],
      ),
    })),
  );
}

async function forgetHost(h: string) {
  await stores.pg.query('DELETE FROM problem_outbox WHERE problem_id IN (SELECT id FROM problems WHERE host = $1)', [h]);
  await stores.pg.query('DELETE FROM problems WHERE host = $1', [h]);
  await stores.pg.query('DELETE FROM rdg_sessions WHERE host = $1', [h]);
  await stores.pg.query('DELETE FROM rdg_pending_disconnects WHERE host = $1', [h]);
  // The same event ids are sent again next: forget that their pairs consumed them.
  await stores.pg.query('DELETE FROM processed_events');
}

beforeAll(async () => {
  stores = await createTestStores(testConfig('correlate_agents'), { kafka: false });
  await stores.pg.query(`CREATE TABLE IF NOT EXISTS event_type_settings (type text PRIMARY KEY, severity_override text NULL,
    visible boolean NOT NULL DEFAULT true, updated_at timestamptz, updated_by text)`);
});
afterAll(async () => stores?.drop());

describe('RD Gateway flap from the Windows agent (no session id; the gateway times each 303)', () => {
  const user = 'CORP\\alice';
  const clientIp = '198.51.100.7';
  const resource = 'ws-01.corp.example';
  const key = (who = 'corp\\alice') => `${who}|${resource}|${clientIp}`;
  /** A 302 and its 303 `gapMs` later, the 303 timed by the gateway as long; typed by the agent for `errorCode`. */
  const tunnel = (h: string, connectAt: Date, gapMs: number, errorCode = '1226', who = user) => {
    const win = agentOf(h);
    return {
      c: rdpMonitor.gateway(win, { code: 302, user: who, clientIp, resource, at: connectAt }),
      d: disconnect(h, new Date(connectAt.getTime() + gapMs), Math.round(gapMs / 1000), errorCode, who),
    };
  };
  /** A 303 alone (the agent skips 303s of 0 s, Test-Rdg303ShouldSkipNotify, and repeated 302s within 90 s). */
  const disconnect = (h: string, atTime: Date, durationSec: number, errorCode = '1226', who = user) =>
    rdpMonitor.gateway(agentOf(h), { code: 303, user: who, clientIp, resource, errorCode, durationSec, at: atTime });
  /** A flap the gateway timed (no connect), as the problem's details list it; `flapAt` is the 303's time on the host. */
  const lonePair = (d: EventV1, seconds: number, flapAt: Date, who = 'corp\\alice') => ({
    connect_event_id: null,
    disconnect_event_id: d.event_id,
    session_id: null,
    user: who,
    resource,
    client: clientIp,
    seconds,
    disconnect_occurred_at: flapAt.toISOString(),
  });

  it.each([
    { name: 'rdg.connection.disconnected (code 1226)', errorCode: '1226' },
    { name: 'rdg.connection.failed (code 1236)', errorCode: '1236' },
  ])('302 then a 303 as $name the gateway timed at 3 s: one flap problem, the badge on the 303', async ({ errorCode }) => {
    const h = hostName();
    const { c, d } = tunnel(h, at(0), 3000, errorCode);
    expect(d.type).toBe(errorCode === '1226' ? 'rdg.connection.disconnected' : 'rdg.connection.failed');
    expect(d.details).not.toHaveProperty('session_id');
    await runEach(env(c, at(1000)), env(d, at(5000)));
    const [p, ...more] = await flapState(h);
    expect(more).toHaveLength(0);
    expect(p).toMatchObject({ status: 'open', count: 1, rdg_flap: true, severity: 'warning' });
    expect(p!.details.pairs).toEqual([lonePair(d, 3, at(3000))]);
    expect(p!.timeline.map((e: { event_id: string }) => e.event_id)).toEqual([d.event_id]);
    expect(p!.badges).toEqual([{ event_id: d.event_id, role: 'disconnect', partner_event_id: null, session_id: key() }]);
    // The 303 used up the connect waiting before it; nothing waits for a partner.
    expect(await q('SELECT * FROM rdg_sessions WHERE host = $1', [h])).toEqual([]);
    expect(await q('SELECT * FROM rdg_pending_disconnects WHERE host = $1', [h])).toEqual([]);
    // A failed 303 is a warning of its own too (severity rule), beside the flap.
    expect((await problemsOf(h)).filter((x) => !x.rdg_flap).map((x) => x.type)).toEqual(
      errorCode === '1226' ? [] : ['rdg.connection.failed'],
    );
  });

  it('a client flapping every 5 s (one 302, then a 303 per flap): every flap counts, in order and newest first', async () => {
    const h = hostName();
    const c = rdpMonitor.gateway(agentOf(h), { code: 302, user, clientIp, resource, at: at(0) });
    const ds = [3000, 8000, 13_000, 18_000].map((ms) => disconnect(h, at(ms), 3));
    await runEach(env(c, at(20_000)), ...ds.map((d, i) => env(d, at(20_100 + i * 100))));
    const inOrder = await flapState(h);
    expect(inOrder).toHaveLength(1);
    expect(inOrder[0]).toMatchObject({ status: 'open', count: 4 });
    expect(inOrder[0]!.details).toMatchObject({ first_flap_at: at(3000).toISOString(), last_flap_at: at(18_000).toISOString() });
    expect(inOrder[0]!.badges.map((b: { event_id: string }) => b.event_id).sort()).toEqual(ds.map((d) => d.event_id).sort());
    await forgetHost(h);

    // Invoke-SacFlushSpool after an outage: newest first. The same flaps, pairs and badges (the problem's
    // id and created_at follow the first disconnect to arrive, as for paired flaps).
    await runEach(...[c, ...ds].reverse().map((e, i) => env(e, at(30_000 + i * 100))));
    const shape = (s: typeof inOrder) =>
      s.map((p) => ({
        status: p.status,
        count: p.count,
        details: p.details,
        timeline: p.timeline.map((e: { event_id: string }) => e.event_id),
        badges: [...p.badges].sort((a: { event_id: string }, b: { event_id: string }) => a.event_id.localeCompare(b.event_id)),
      }));
    expect(shape(await flapState(h))).toEqual(shape(inOrder));
    // The connect, arriving after every 303, waits for the next 303 of its key (which uses it up).
    expect((await q('SELECT session_id FROM rdg_sessions WHERE host = $1', [h])).map((r) => r.session_id)).toEqual([key()]);
    expect(await q('SELECT * FROM rdg_pending_disconnects WHERE host = $1', [h])).toEqual([]);
  });

  it('a spool of flaps re-sent newest first groups like the live run (30 s dedup on the host clock)', async () => {
    const h = hostName();
    // Flaps at 3 s, 23 s (same problem) and 103 s (a new one; the first is superseded).
    const pairs = [tunnel(h, at(0), 3000), tunnel(h, at(20_000), 3000), tunnel(h, at(100_000), 3000)];
    const inOrderEnvs = pairs.flatMap(({ c, d }, i) => [env(c, at(200_000 + i * 2000)), env(d, at(201_000 + i * 2000))]);
    await runEach(...inOrderEnvs);
    const inOrder = await flapState(h);
    await forgetHost(h);
    const newestFirst = pairs
      .flatMap(({ c, d }) => [c, d])
      .reverse()
      .map((e, i) => env(e, at(300_000 + i * 1000)));
    await runEach(...newestFirst);
    const replayed = await flapState(h);

    const shape = (s: typeof inOrder) =>
      s.map((p) => ({
        status: p.status,
        count: p.count,
        pairs: p.details.pairs,
        first: p.details.first_flap_at,
        last: p.details.last_flap_at,
        resolve_reason: p.details.resolve_reason,
        badges: p.badges.length,
      }));
    const byFirst = (a: { first: unknown }, b: { first: unknown }) => String(a.first).localeCompare(String(b.first));
    expect(shape(inOrder).sort(byFirst)).toEqual([
      {
        status: 'resolved',
        count: 2,
        pairs: [expect.objectContaining({ seconds: 3 }), expect.objectContaining({ seconds: 3 })],
        first: at(3000).toISOString(),
        last: at(23_000).toISOString(),
        resolve_reason: 'superseded',
        badges: 2,
      },
      {
        status: 'open',
        count: 1,
        pairs: [expect.objectContaining({ disconnect_event_id: pairs[2]!.d.event_id })],
        first: at(103_000).toISOString(),
        last: at(103_000).toISOString(),
        resolve_reason: undefined,
        badges: 1,
      },
    ]);
    expect(shape(replayed).sort(byFirst)).toEqual(shape(inOrder).sort(byFirst));
    // The open problem is the same one (seeded by its disconnect), and it supersedes the older one.
    const open = (s: typeof inOrder) => s.find((p) => p.status === 'open')!;
    expect(open(replayed).id).toBe(open(inOrder).id);
    expect(replayed.find((p) => p.status === 'resolved')!.details.superseded_by).toBe(open(replayed).id);
  });

  it("two users at the same client and resource: each one's 303 counts under its own key, and uses up only its own connect", async () => {
    const h = hostName();
    const a = tunnel(h, at(0), 3000, '1226', 'CORP\\alice');
    const b = tunnel(h, at(0), 3000, '1226', 'CORP\\bob');
    await runEach(env(a.c, at(5000)), env(b.d, at(6000)));
    expect((await flapState(h)).map((p) => p.count)).toEqual([1]);
    expect((await q('SELECT session_id FROM rdg_sessions WHERE host = $1', [h])).map((r) => r.session_id)).toEqual([key()]);
    await runEach(env(a.d, at(7000)), env(b.c, at(8000)));
    const [p, ...more] = await flapState(h);
    expect(more).toHaveLength(0);
    expect(p!.count).toBe(2);
    expect((p!.details.pairs as { user: string }[]).map((x) => x.user).sort()).toEqual(['corp\\alice', 'corp\\bob']);
    // Bob's connect came after his 303: it waits for his next one.
    expect((await q('SELECT session_id FROM rdg_sessions WHERE host = $1', [h])).map((r) => r.session_id)).toEqual([
      key('corp\\bob'),
    ]);
  });

  it('a session the gateway timed at 12 s is no flap, whatever the arrival order, and a replayed batch changes nothing', async () => {
    const h = hostName();
    const { c, d } = tunnel(h, at(0), 12_000);
    const batch = [env(d, at(20_000)), env(c, at(21_000))];
    await processBatch(stores.pg, batch, settings, clock);
    await processBatch(stores.pg, batch, settings, clock);
    expect(await problemsOf(h)).toHaveLength(0);
    expect(await q('SELECT * FROM rdg_pending_disconnects WHERE host = $1', [h])).toEqual([]);
  });

  it('a 303 timed at 3 s counts even 60 s after its connect (the gateway times the session, not our clock pair)', async () => {
    const h = hostName();
    const { c } = tunnel(h, at(0), 3000);
    const late = disconnect(h, at(60_000), 3);
    await runEach(env(c, at(61_000)), env(late, at(61_100)));
    const [p] = await flapState(h);
    expect(p!.details.pairs).toEqual([lonePair(late, 3, at(60_000))]);
  });
});

describe('inventory from the Windows agent (details.inventory)', () => {
  /** Send-HostInventoryToSac's event as spooled at `takenAt` (occurred_at is its send time on the host). */
  const snapshot = (h: string, takenAt: Date, over: { memory_gb?: number; ipv4?: string } = {}) => {
    const e = rdpMonitor.inventory(agentOf(h, over.ipv4), over);
    return { ...e, occurred_at: sacOccurredAt(takenAt) };
  };
  const HOUR = 3_600_000;
  const hostRow = async (h: string) =>
    (await q('SELECT inventory_hardware, inventory_software, inventory_at FROM hosts WHERE hostname = $1', [h]))[0];

  it('stores the snapshot, warns on a memory change, ignores address changes and older snapshots arriving late', async () => {
    const h = hostName();
    await runEach(env(snapshot(h, at(0)), at(1000)));
    let row = await hostRow(h);
    expect(row.inventory_hardware).toMatchObject({
      memory_gb: 64,
      motherboard: { product: 'X11SPi-TF', manufacturer: 'Supermicro' },
      disks: [{ friendly_name: 'SAMSUNG MZ7LH960HAJR', media_type: 'SSD', size_gb: 894.25 }],
    });
    expect(row.inventory_software).toMatchObject({
      windows: { product_name: 'Windows Server 2019 Standard', version: '1809' },
      ipv4: ['10.0.0.21'],
      computer_name: h,
    });
    expect(row.inventory_at).toEqual(at(0));

    // 12 h later (the agent's $InventoryIntervalSec): another address only: no problem.
    await runEach(env(snapshot(h, at(12 * HOUR), { ipv4: '10.0.0.99' }), at(12 * HOUR + 1000)));
    expect(await problemsOf(h)).toHaveLength(0);
    expect((await hostRow(h)).inventory_software.ipv4).toEqual(['10.0.0.99']);

    // Memory changed: a warning problem carrying the diff.
    await runEach(env(snapshot(h, at(24 * HOUR), { memory_gb: 32 }), at(24 * HOUR + 1000)));
    let [p, ...more] = await problemsOf(h);
    expect(more).toHaveLength(0);
    expect(p).toMatchObject({ type: 'agent.inventory', rule: 'hardware_change', severity: 'warning', status: 'open', count: 1 });
    expect(p.details.diff).toEqual({ added: [], removed: [], changed: [{ path: 'memory_gb', from: 64, to: 32 }] });

    // An older snapshot (64 GB, taken at 18 h) re-sent from the spool after the newer one: kept out.
    await runEach(env(snapshot(h, at(18 * HOUR)), at(25 * HOUR)));
    row = await hostRow(h);
    expect(row.inventory_hardware.memory_gb).toBe(32);
    expect(row.inventory_at).toEqual(at(24 * HOUR));
    [p, ...more] = await problemsOf(h);
    expect(more).toHaveLength(0);
    expect(p.count).toBe(1); // no reversed "32 -> 64" change
    // The latest diff is stored once (details.diff), not again in its `changes` entry.
    expect(p.details.changes).toHaveLength(1);
    expect(p.details.changes[0]).not.toHaveProperty('diff');

    // A second change within the window: the entry that was latest takes its diff; the new latest has none.
    await runEach(env(snapshot(h, at(24 * HOUR + 120_000), { memory_gb: 16 }), at(24 * HOUR + 121_000)));
    [p] = await problemsOf(h);
    expect(p.details.diff.changed).toEqual([{ path: 'memory_gb', from: 32, to: 16 }]);
    expect(p.details.changes).toHaveLength(2);
    expect(p.details.changes[0].diff.changed).toEqual([{ path: 'memory_gb', from: 64, to: 32 }]);
    expect(p.details.changes[1]).not.toHaveProperty('diff');
  });

  it('a host clock running ahead cannot pin an old snapshot: its time is capped at the receive time', async () => {
    const h = hostName();
    await runEach(env(snapshot(h, at(48 * HOUR)), at(1000))); // clock two days ahead
    expect((await hostRow(h)).inventory_at).toEqual(at(1000));
    await runEach(env(snapshot(h, at(2 * HOUR), { memory_gb: 128 }), at(2 * HOUR + 1000))); // clock fixed
    expect((await hostRow(h)).inventory_hardware.memory_gb).toBe(128);
  });
});
