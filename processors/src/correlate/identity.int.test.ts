// Agent identity (issue 21 item 1): a host is bound to the agent instance and key of its first events.
// Through ingest, Kafka and the correlate role: the key id header arrives, another instance's events
// leave the confirmed facts alone and raise a pending identity change and a notified problem, the bound
// agent's new addresses wait as a pending facts change, and a replay changes nothing. Then the same
// rules through processBatch: one batch or one event per batch give the same rows, hosts bound before
// the change get their missing part, implausible instance ids count as absent, and (issue 33) a host
// bound to an instance takes an event without one as another agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clients, createKafka, createLogger, type RoleHandle } from '@watchpost/runtime';
import { createApiKey, decideHostChanges } from '@watchpost/core';
import { AGENT_KEY_HEADER, type EventV1 } from '@watchpost/schemas';
import { createTestStores, readAll, sampleEvent, testConfig, waitFor, type TestStores } from '@watchpost/testkit';
import { correlatePosition, dumpCorrelateTables, envelope, readWithHeaders, startTestIngest } from '@watchpost/testkit/correlate';
import { correlateRole } from './index.ts';
import { processBatch, type CorrelateSettings } from './processor.ts';
import type { CorrelateEnvelope } from './rules.ts';

const settings: CorrelateSettings = { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' };

async function hostOf(s: TestStores, hostname: string) {
  const r = await s.pg.query(
    `SELECT agent_instance_id, bound_key_id, bound_at, os_family, product, fqdn, ipv4, internal_address, last_seen,
            last_heartbeat, confirmed_at, confirmed_by FROM hosts WHERE hostname = $1`,
    [hostname],
  );
  return r.rows[0] as Record<string, unknown> | undefined;
}

async function changesOf(s: TestStores, hostname: string, status?: string) {
  const r = await s.pg.query(
    `SELECT c.kind, c.proposed, c.current, c.agent_instance_id, c.key_id, c.seen_count, c.status
       FROM host_changes c JOIN hosts h ON h.id = c.host_id WHERE h.hostname = $1 AND ($2::text IS NULL OR c.status = $2)
      ORDER BY c.kind`,
    [hostname, status ?? null],
  );
  return r.rows as Record<string, unknown>[];
}

async function changeIds(s: TestStores, hostname: string) {
  const r = await s.pg.query<{ id: string }>(
    `SELECT c.id FROM host_changes c JOIN hosts h ON h.id = c.host_id WHERE h.hostname = $1 AND c.status = 'pending'`,
    [hostname],
  );
  return r.rows.map((x) => Number(x.id));
}

async function identityProblems(s: TestStores, hostname: string) {
  const r = await s.pg.query(`SELECT * FROM problems WHERE host = $1 AND type = 'host_identity_conflict' ORDER BY created_at`, [
    hostname,
  ]);
  return r.rows as Record<string, unknown>[];
}

describe('agent identity through ingest, Kafka and the correlate role', () => {
  let stores: TestStores;
  let ingest: Awaited<ReturnType<typeof startTestIngest>>;
  let role: { handle: RoleHandle; clients: Clients } | undefined;
  let posted = 0;

  async function startRole() {
    const clients = new Clients(stores.config);
    const handle = await correlateRole({ config: stores.config, log: createLogger('silent', 'test'), clients });
    role = { handle, clients };
  }
  async function stopRole() {
    if (!role) return;
    await role.handle.close?.();
    await role.clients.close();
    role = undefined;
  }
  /** Posts through ingest and waits until correlate applied everything posted so far. */
  async function post(key: string, event: EventV1) {
    expect(await ingest.post(key, event)).toBe(201);
    posted++;
    await waitFor(
      'correlate',
      () => correlatePosition(stores.pg),
      (n) => n === posted,
      30_000,
      100,
    );
  }
  function heartbeat(hostname: string, instance: string, over: { ipv4?: string; windows?: boolean } = {}): EventV1 {
    return sampleEvent({
      source: {
        product: over.windows ? 'rdp-login-monitor' : 'ssh-monitor',
        product_version: '2.4.1',
        agent_instance_id: instance,
      },
      host: {
        hostname,
        os_family: over.windows ? 'windows' : 'linux',
        display_name: hostname,
        fqdn: `${hostname}.example.org`,
        ipv4: over.ipv4 ?? '10.0.0.5',
      },
      category: 'agent',
      type: 'agent.heartbeat',
      severity: 'info',
      title: 'heartbeat',
      details: {},
    });
  }

  beforeAll(async () => {
    stores = await createTestStores(testConfig('correlate_identity', { CORRELATE_BATCH_MS: '20' }));
    ingest = await startTestIngest(stores.config, stores.pg);
    await startRole();
  });
  afterAll(async () => {
    await stopRole();
    await ingest?.close();
    await stores?.drop();
  });

  it('binds at the first event, holds conflicts and changed facts as pending, and replays to the same rows', async () => {
    const fleet = await createApiKey(stores.pg, 'fleet');
    const other = await createApiKey(stores.pg, 'other');

    // The first event binds the host to its agent instance and key; its facts wait for an admin (issue 33).
    await post(fleet.key, heartbeat('id-web', 'agent-a'));
    const bound = await hostOf(stores, 'id-web');
    expect(bound).toMatchObject({
      agent_instance_id: 'agent-a',
      bound_key_id: fleet.id,
      os_family: 'linux',
      product: 'ssh-monitor',
      fqdn: 'id-web.example.org',
      ipv4: '10.0.0.5',
      internal_address: '10.0.0.5',
    });
    expect(bound!.bound_at).toEqual(bound!.last_seen);
    expect(bound!.confirmed_at).toBeNull();
    const [first] = await changesOf(stores, 'id-web');
    expect(first).toMatchObject({
      kind: 'facts',
      proposed: {
        os_family: 'linux',
        product: 'ssh-monitor',
        fqdn: 'id-web.example.org',
        ipv4: '10.0.0.5',
        internal_address: '10.0.0.5',
      },
      current: { agent_instance_id: 'agent-a', key_id: fleet.id, os_family: null, ipv4: null },
      status: 'pending',
    });
    // An admin accepts them: the host is confirmed, by that admin.
    await decideHostChanges(stores.pg, { ids: await changeIds(stores, 'id-web') }, 'accept', { username: 'ada', address: null });
    expect(await hostOf(stores, 'id-web')).toMatchObject({ confirmed_by: 'ada', confirmed_at: expect.any(Date) });
    expect(await changesOf(stores, 'id-web', 'pending')).toEqual([]);

    // Another agent instance speaks for the host: facts and binding stay, one pending identity change,
    // one high problem that leaves through the outbox; the host is still alive (last_seen moves).
    await post(fleet.key, heartbeat('id-web', 'agent-b', { ipv4: '10.6.6.6', windows: true }));
    const after = await hostOf(stores, 'id-web');
    expect(after).toMatchObject({
      agent_instance_id: 'agent-a',
      bound_key_id: fleet.id,
      bound_at: bound!.bound_at,
      os_family: 'linux',
      product: 'ssh-monitor',
      ipv4: '10.0.0.5',
      internal_address: '10.0.0.5',
    });
    expect((after!.last_seen as Date) >= (bound!.last_seen as Date)).toBe(true);
    expect(await changesOf(stores, 'id-web', 'pending')).toEqual([
      {
        kind: 'identity',
        proposed: {
          agent_instance_id: 'agent-b',
          key_id: fleet.id,
          os_family: 'windows',
          product: 'rdp-login-monitor',
          fqdn: 'id-web.example.org',
          ipv4: '10.6.6.6',
          internal_address: '10.6.6.6',
        },
        current: {
          agent_instance_id: 'agent-a',
          key_id: fleet.id,
          os_family: 'linux',
          product: 'ssh-monitor',
          fqdn: 'id-web.example.org',
          ipv4: '10.0.0.5',
          internal_address: '10.0.0.5',
        },
        agent_instance_id: 'agent-b',
        key_id: fleet.id,
        seen_count: 1,
        status: 'pending',
      },
    ]);
    const problems = await identityProblems(stores, 'id-web');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ status: 'open', severity: 'high', rule: 'identity', count: 1 });
    await waitFor(
      'the outbox relay',
      async () => (await stores.pg.query('SELECT count(*)::int AS n FROM problem_outbox WHERE sent_at IS NULL')).rows[0].n,
      (n) => n === 0,
    );
    const opened = await readAll(stores.config, stores.config.topics.problems, 1);
    expect(opened.map((m) => JSON.parse(m.value) as { kind: string; problem: { id: string; type: string } })).toEqual([
      expect.objectContaining({
        kind: 'problem.opened',
        problem: expect.objectContaining({ id: problems[0]!.id, type: 'host_identity_conflict' }),
      }),
    ]);

    // The bound agent reports another address and OS family: confirmed ipv4 and internal address
    // stay; one pending facts change, re-sent: still one row, seen twice. No new problem.
    await post(fleet.key, heartbeat('id-web', 'agent-a', { ipv4: '10.0.0.9', windows: true }));
    await post(fleet.key, heartbeat('id-web', 'agent-a', { ipv4: '10.0.0.9', windows: true }));
    expect(await hostOf(stores, 'id-web')).toMatchObject({
      agent_instance_id: 'agent-a',
      os_family: 'linux',
      product: 'ssh-monitor',
      ipv4: '10.0.0.5',
      internal_address: '10.0.0.5',
    });
    const facts = (await changesOf(stores, 'id-web', 'pending')).filter((c) => c.kind === 'facts');
    expect(facts).toEqual([
      expect.objectContaining({
        proposed: { os_family: 'windows', product: 'rdp-login-monitor', ipv4: '10.0.0.9', internal_address: '10.0.0.9' },
        agent_instance_id: 'agent-a',
        key_id: fleet.id,
        seen_count: 2,
        status: 'pending',
      }),
    ]);
    expect(await identityProblems(stores, 'id-web')).toHaveLength(1);

    // The bound instance under another key is a conflict as well.
    await post(fleet.key, heartbeat('id-key', 'agent-k'));
    await post(other.key, heartbeat('id-key', 'agent-k'));
    expect(await hostOf(stores, 'id-key')).toMatchObject({ agent_instance_id: 'agent-k', bound_key_id: fleet.id });
    expect(await changesOf(stores, 'id-key')).toEqual([
      expect.objectContaining({ kind: 'facts', status: 'pending' }), // its first facts, not yet confirmed
      expect.objectContaining({
        kind: 'identity',
        proposed: expect.objectContaining({ agent_instance_id: 'agent-k', key_id: other.id }),
        key_id: other.id,
      }),
    ]);
    expect(await identityProblems(stores, 'id-key')).toHaveLength(1);

    // Every message on events.v1 carries the verified key id as a header.
    const messages = await readWithHeaders(stores.config, stores.config.topics.events, posted);
    expect(messages).toHaveLength(posted);
    const keyOf = (m: { value: string }) =>
      (JSON.parse(m.value) as { event: { host: { hostname: string } } }).event.host.hostname;
    expect(messages.map((m) => m.headers[AGENT_KEY_HEADER]).sort()).toEqual(
      [...Array<string>(posted - 1).fill(String(fleet.id)), String(other.id)].sort(),
    );
    expect(messages.filter((m) => m.headers[AGENT_KEY_HEADER] === String(other.id)).map(keyOf)).toEqual(['id-key']);

    // Replay: the group forgets its offsets and reads the topic again; nothing changes.
    const before = await dumpCorrelateTables(stores.pg);
    await stopRole();
    const admin = createKafka(stores.config.kafkaBrokers, 'test-admin').admin();
    await admin.connect();
    await admin.deleteGroups([stores.config.consumerGroups.correlate]);
    await admin.disconnect();
    await startRole();
    const messagesAgain = posted;
    // The position stays where it was: wait for the group to commit past every message again.
    await waitFor(
      'correlate to read the topic again',
      async () => {
        const a = createKafka(stores.config.kafkaBrokers, 'test-lag').admin();
        await a.connect();
        try {
          const [o] = await a.fetchOffsets({
            groupId: stores.config.consumerGroups.correlate,
            topics: [stores.config.topics.events],
          });
          return (o?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
        } finally {
          await a.disconnect();
        }
      },
      (n) => n === messagesAgain,
      60_000,
      250,
    );
    expect(await dumpCorrelateTables(stores.pg)).toEqual(before);
  }, 120_000);
});

describe('agent identity rules (processBatch)', () => {
  let direct: TestStores;
  let perEvent: TestStores;
  const T0 = new Date('2025-03-01T12:00:00.000Z');
  const at = (s: number) => new Date(T0.getTime() + s * 1000);
  const clock = () => new Date('2030-01-01T00:00:00Z');

  beforeAll(async () => {
    [direct, perEvent] = await Promise.all([
      createTestStores(testConfig('correlate_identity_direct'), { kafka: false }),
      createTestStores(testConfig('correlate_identity_per_event'), { kafka: false }),
    ]);
  });
  afterAll(async () => Promise.all([direct?.drop(), perEvent?.drop()]));

  it('one batch and one event per batch give the same rows, in the events’ order', async () => {
    const h = 'seq';
    const hb = { host: h, type: 'agent.heartbeat', severity: 'info' };
    const stream: CorrelateEnvelope[] = [
      envelope({ ...hb, instance: 'agent-a', keyId: 1, receivedAt: at(0) }), // binds
      envelope({ ...hb, instance: 'agent-b', keyId: 1, ipv4: '10.6.6.6', receivedAt: at(1) }), // conflict
      envelope({ ...hb, instance: 'agent-a', keyId: 1, ipv4: '10.0.0.7', receivedAt: at(2) }), // facts
      envelope({ ...hb, instance: 'agent-a', receivedAt: at(3) }), // key unknown (no header): the bound agent
      envelope({ ...hb, instance: 'agent-a', keyId: 2, receivedAt: at(4) }), // another key: conflict
      envelope({ ...hb, instance: 'agent-a', keyId: 1, ipv4: '10.0.0.8', fqdn: 'seq.lan', receivedAt: at(5) }), // facts
      envelope({ ...hb, instance: 'agent-a', keyId: 1, ipv4: null, receivedAt: at(6) }), // no ipv4: no change
      envelope({ ...hb, instance: 'agent-b', keyId: 1, ipv4: '10.6.6.6', receivedAt: at(7) }), // conflict again
    ];
    await processBatch(direct.pg, stream, settings, clock);
    for (const e of stream) await processBatch(perEvent.pg, [e], settings, clock);
    const one = await dumpCorrelateTables(direct.pg);
    expect(await dumpCorrelateTables(perEvent.pg)).toEqual(one);

    expect(await hostOf(direct, h)).toMatchObject({
      agent_instance_id: 'agent-a',
      bound_key_id: 1,
      bound_at: at(0),
      ipv4: '10.0.0.5',
      internal_address: '10.0.0.5',
      fqdn: null,
      last_seen: at(7),
      last_heartbeat: at(7),
    });
    expect(await changesOf(direct, h)).toEqual([
      expect.objectContaining({
        kind: 'facts',
        proposed: { fqdn: 'seq.lan', ipv4: '10.0.0.8', internal_address: '10.0.0.8' },
        // First seen as the new host's own facts (issue 33): nothing was confirmed before, no admin accepted since.
        current: {
          agent_instance_id: 'agent-a',
          key_id: 1,
          os_family: null,
          product: null,
          fqdn: null,
          ipv4: null,
          internal_address: null,
        },
        seen_count: 3,
      }),
      expect.objectContaining({
        kind: 'identity',
        proposed: expect.objectContaining({ agent_instance_id: 'agent-b', key_id: 1, ipv4: '10.6.6.6' }),
        seen_count: 3,
      }),
    ]);
    const [p] = await identityProblems(direct, h);
    expect(p).toMatchObject({ count: 3, severity: 'high', status: 'open' });
    const timeline = await direct.pg.query(
      'SELECT event_id::text FROM problem_events WHERE problem_id = $1 ORDER BY received_at',
      [p!.id],
    );
    expect(timeline.rows.map((r) => r.event_id)).toEqual([1, 4, 7].map((i) => stream[i]!.event.event_id));

    // Messages Kafka holds twice (the same envelopes again, at later offsets, in other batches): the
    // pending changes count each event once and keep the newest proposal.
    await processBatch(direct.pg, [stream[2]!, stream[5]!], settings, clock);
    await processBatch(direct.pg, [stream[2]!], settings, clock);
    await processBatch(direct.pg, [stream[4]!, stream[5]!], settings, clock);
    expect(await dumpCorrelateTables(direct.pg)).toEqual(one);

    // Redelivered with its position: below the stored position, nothing changes.
    const position = { group: 'g', topic: 't', partition: 0, offsets: stream.map((_, i) => String(i)) };
    await processBatch(direct.pg, stream, settings, clock, position);
    const withPosition = await dumpCorrelateTables(direct.pg);
    await processBatch(direct.pg, stream, settings, clock, position);
    expect(await dumpCorrelateTables(direct.pg)).toEqual(withPosition);
  });

  it('a host bound before this change gets its missing part from the first event that carries it', async () => {
    const s = direct;
    await s.pg.query(
      `INSERT INTO hosts (hostname, os_family, product, product_version, first_seen, last_seen, agent_instance_id, ipv4, internal_address)
       VALUES ('legacy-1', 'linux', 'ssh-monitor', '1', $1, $1, 'agent-l', '10.0.0.5', '10.0.0.5'),
              ('legacy-2', 'linux', 'ssh-monitor', '1', $1, $1, NULL, '10.0.0.5', '10.0.0.5')`,
      [T0],
    );
    const hb = { type: 'agent.heartbeat', severity: 'info' };
    await processBatch(
      s.pg,
      [
        envelope({ ...hb, host: 'legacy-1', instance: 'agent-l', keyId: 3, receivedAt: at(10) }),
        envelope({ ...hb, host: 'legacy-2', instance: 'agent-m', receivedAt: at(10) }),
      ],
      settings,
      clock,
    );
    expect(await hostOf(s, 'legacy-1')).toMatchObject({ agent_instance_id: 'agent-l', bound_key_id: 3, bound_at: at(10) });
    expect(await hostOf(s, 'legacy-2')).toMatchObject({ agent_instance_id: 'agent-m', bound_key_id: null, bound_at: at(10) });
    await processBatch(
      s.pg,
      [envelope({ ...hb, host: 'legacy-2', instance: 'agent-m', keyId: 4, receivedAt: at(11) })],
      settings,
      clock,
    );
    expect(await hostOf(s, 'legacy-2')).toMatchObject({ agent_instance_id: 'agent-m', bound_key_id: 4, bound_at: at(10) });
    expect(await changesOf(s, 'legacy-1')).toEqual([]);
    expect(await changesOf(s, 'legacy-2')).toEqual([]);
    // Now bound: another instance is a conflict.
    await processBatch(
      s.pg,
      [envelope({ ...hb, host: 'legacy-1', instance: 'agent-x', keyId: 3, receivedAt: at(12) })],
      settings,
      clock,
    );
    expect((await changesOf(s, 'legacy-1')).map((c) => c.kind)).toEqual(['identity']);
    expect(await identityProblems(s, 'legacy-1')).toHaveLength(1);
  });

  // Issue 31 item 5: Sac-Client.ps1 Get-SacHostBlock recomputes host.ipv4 per event; on an RD Gateway
  // with a LAN and a DMZ leg it flips between them.
  it('a multi-homed host: its other address pends once, and once accepted neither address is a change', async () => {
    const s = direct;
    const hb = {
      host: 'gw-01',
      type: 'agent.heartbeat',
      severity: 'info',
      instance: 'agent-gw',
      keyId: 6,
      osFamily: 'windows' as const,
    };
    const lan = '10.0.0.31';
    const dmz = '192.168.50.4';
    const flips = (from: number) => [lan, dmz, lan, dmz].map((ipv4, i) => envelope({ ...hb, ipv4, receivedAt: at(from + i) }));
    await processBatch(s.pg, flips(30), settings, clock);
    const pending = await changesOf(s, 'gw-01');
    expect(pending).toEqual([
      expect.objectContaining({
        kind: 'facts',
        proposed: { ipv4: dmz, internal_address: dmz },
        seen_count: 3, // the new host's first facts, then each move to the other leg
        status: 'pending',
      }),
    ]);
    const id = Number(
      (await s.pg.query(`SELECT c.id FROM host_changes c JOIN hosts h ON h.id = c.host_id WHERE h.hostname = 'gw-01'`)).rows[0]
        .id,
    );
    await decideHostChanges(s.pg, { ids: [id] }, 'accept', { username: 'admin', address: null });
    expect(await hostOf(s, 'gw-01')).toMatchObject({ ipv4: dmz, internal_address: dmz });
    expect((await s.pg.query(`SELECT known_ipv4 FROM hosts WHERE hostname = 'gw-01'`)).rows[0].known_ipv4).toEqual([lan]);
    // Both legs from now on, in one batch and one by one: no new change.
    await processBatch(s.pg, flips(40), settings, clock);
    for (const e of flips(50)) await processBatch(s.pg, [e], settings, clock);
    expect((await changesOf(s, 'gw-01')).map((c) => [c.kind, c.status])).toEqual([['facts', 'accepted']]);
    // A third address still waits for an admin.
    await processBatch(s.pg, [envelope({ ...hb, ipv4: '172.16.9.9', receivedAt: at(60) })], settings, clock);
    expect((await changesOf(s, 'gw-01')).map((c) => [c.status, c.proposed])).toEqual([
      ['accepted', { ipv4: dmz, internal_address: dmz }],
      ['pending', { ipv4: '172.16.9.9', internal_address: '172.16.9.9' }],
    ]);
  });

  it('bound to an instance, an event without one is an identity conflict; bound to none, it is the agent (issue 33)', async () => {
    const s = direct;
    const hb = { type: 'agent.heartbeat', severity: 'info', keyId: 8 };
    await processBatch(
      s.pg,
      [
        envelope({ ...hb, host: 'noinst-1', instance: 'agent-n', receivedAt: at(70) }),
        // ssh-monitor's e-mails carry no instance id: bound to none.
        envelope({ ...hb, host: 'noinst-2', instance: null, receivedAt: at(70) }),
      ],
      settings,
      clock,
    );
    // The fleet key, the instance id left out (or implausible), another address.
    await processBatch(
      s.pg,
      [
        envelope({ ...hb, host: 'noinst-1', instance: null, ipv4: '203.0.113.9', receivedAt: at(71) }),
        envelope({ ...hb, host: 'noinst-1', instance: ' ', ipv4: '203.0.113.9', receivedAt: at(72) }),
        envelope({ ...hb, host: 'noinst-2', instance: null, receivedAt: at(71) }),
      ],
      settings,
      clock,
    );
    expect(await hostOf(s, 'noinst-1')).toMatchObject({
      agent_instance_id: 'agent-n',
      bound_key_id: 8,
      ipv4: '10.0.0.5',
      internal_address: '10.0.0.5',
    });
    expect(await changesOf(s, 'noinst-1')).toEqual([
      expect.objectContaining({ kind: 'facts', status: 'pending' }), // its first facts
      expect.objectContaining({
        kind: 'identity',
        // null: accepting binds the host to an agent that sends no instance id
        proposed: expect.objectContaining({ agent_instance_id: null, key_id: 8, ipv4: '203.0.113.9' }),
        agent_instance_id: null,
        key_id: 8,
        seen_count: 2,
        status: 'pending',
      }),
    ]);
    const [p] = await identityProblems(s, 'noinst-1');
    expect(p).toMatchObject({ status: 'open', severity: 'high', count: 2 });
    expect(p!.details).toMatchObject({
      bound: { agent_instance_id: 'agent-n', key_id: 8 },
      latest: { agent_instance_id: null, key_id: 8 },
    });
    expect(await hostOf(s, 'noinst-2')).toMatchObject({ agent_instance_id: null, bound_key_id: 8 });
    expect((await changesOf(s, 'noinst-2')).map((c) => c.kind)).toEqual(['facts']);
    expect(await identityProblems(s, 'noinst-2')).toEqual([]);

    // An admin accepts it (one by one): the host is bound to no instance, the agent's next event is its own.
    const ident = await s.pg.query<{ id: string }>(
      `SELECT c.id FROM host_changes c JOIN hosts h ON h.id = c.host_id
        WHERE h.hostname = 'noinst-1' AND c.kind = 'identity' AND c.status = 'pending'`,
    );
    await decideHostChanges(s.pg, { ids: [Number(ident.rows[0]!.id)] }, 'accept', { username: 'admin', address: null });
    expect(await hostOf(s, 'noinst-1')).toMatchObject({ agent_instance_id: null, bound_key_id: 8, ipv4: '203.0.113.9' });
    await processBatch(
      s.pg,
      [envelope({ ...hb, host: 'noinst-1', instance: null, ipv4: '203.0.113.9', receivedAt: at(73) })],
      settings,
      clock,
    );
    expect((await changesOf(s, 'noinst-1', 'pending')).map((c) => c.kind)).toEqual(['facts']);
    expect((await identityProblems(s, 'noinst-1')).map((x) => x.status)).toEqual(['resolved']);
  });

  it('an implausible instance id counts as absent', async () => {
    const s = direct;
    const hb = { host: 'odd', type: 'agent.heartbeat', severity: 'info' };
    await processBatch(
      s.pg,
      [
        envelope({ ...hb, instance: '', keyId: 5, receivedAt: at(20) }),
        envelope({ ...hb, instance: 'x'.repeat(129), keyId: 5, receivedAt: at(21) }),
        envelope({ ...hb, instance: 'a\u0007b', keyId: 5, receivedAt: at(22) }),
        envelope({ ...hb, instance: '   ', keyId: 5, receivedAt: at(23) }),
      ],
      settings,
      clock,
    );
    expect(await hostOf(s, 'odd')).toMatchObject({ agent_instance_id: null, bound_key_id: 5 });
    expect((await changesOf(s, 'odd')).map((c) => c.kind)).toEqual(['facts']); // its first facts, for an admin
    await processBatch(s.pg, [envelope({ ...hb, instance: 'y'.repeat(128), keyId: 5, receivedAt: at(24) })], settings, clock);
    expect(await hostOf(s, 'odd')).toMatchObject({ agent_instance_id: 'y'.repeat(128) });
    await processBatch(s.pg, [envelope({ ...hb, instance: 'z'.repeat(128), keyId: 5, receivedAt: at(25) })], settings, clock);
    expect((await changesOf(s, 'odd')).map((c) => c.kind)).toEqual(['facts', 'identity']);
    expect(await identityProblems(s, 'odd')).toHaveLength(1);
  });
});
