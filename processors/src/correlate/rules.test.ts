import { describe, expect, it } from 'vitest';
import {
  deterministicUuid,
  fingerprintOf,
  hardwareDiff,
  hasOwnRules,
  inventoryOf,
  carryUnreadHardware,
  isFlap,
  isFlapDuration,
  isLivenessType,
  matchProblem,
  opensSeverityProblem,
  rdgCode,
  rdgSessionSeconds,
  rdgPairKey,
  rdgSession,
  ruleOf,
} from './rules.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('which events open problems', () => {
  it.each([
    { type: 'ssh.login.failed', sev: 'warning', min: 'warning', want: true },
    { type: 'ssh.login.failed', sev: 'info', min: 'warning', want: false },
    { type: 'ssh.bruteforce.mass', sev: 'critical', min: 'high', want: true },
    { type: 'ssh.ip.banned', sev: 'warning', min: 'high', want: false },
    { type: 'agent.heartbeat', sev: 'critical', min: 'info', want: false },
    { type: 'report.daily.ssh', sev: 'high', min: 'info', want: false },
    { type: 'report.weekly', sev: 'high', min: 'info', want: false },
    { type: 'agent.inventory', sev: 'high', min: 'info', want: false },
  ] as const)('$type/$sev with min $min -> $want', ({ type, sev, min, want }) => {
    expect(opensSeverityProblem(type, sev, min)).toBe(want);
  });

  it('classifies liveness and own-rule types', () => {
    expect(['agent.heartbeat', 'report.daily.ssh', 'report.daily.rdp', 'agent.test'].map(isLivenessType)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(hasOwnRules('agent.inventory')).toBe(true);
    expect(hasOwnRules('rdg.connection.success')).toBe(false);
  });

  it('fingerprint = host + type + rule; rule from details.rule or "severity"', () => {
    expect(fingerprintOf('web-1', 'ssh.login.failed', ruleOf(undefined))).toBe('web-1|ssh.login.failed|severity');
    expect(ruleOf({ rule: 'five_failures' })).toBe('five_failures');
    expect(ruleOf({ rule: 42 })).toBe('severity');
    expect(ruleOf({ rule: 'x'.repeat(129) })).toBe('severity');
  });

  it('deterministic ids are stable UUIDs', () => {
    const a = deterministicUuid('seed');
    expect(a).toBe(deterministicUuid('seed'));
    expect(a).not.toBe(deterministicUuid('seed2'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('window matching', () => {
  const w = 60 * 60_000;
  const live = { status: 'open' as const, last_seen: T0 };
  it.each([
    { name: 'no live problem', live: null, now: T0, want: 'open' },
    { name: 'inside the window', live, now: at(w - 1000), want: 'extend' },
    { name: 'exactly at the window edge (inclusive)', live, now: at(w), want: 'extend' },
    { name: '1 ms past the edge', live, now: at(w + 1), want: 'supersede_and_open' },
    {
      name: 'acknowledged inside the window',
      live: { status: 'acknowledged' as const, last_seen: T0 },
      now: at(1000),
      want: 'extend',
    },
  ])('$name -> $want', ({ live, now, want }) => {
    expect(matchProblem(live, now, w)).toBe(want);
  });
});

describe('gateway flap', () => {
  it.each([
    { ms: 900, want: false },
    { ms: 999, want: false },
    { ms: 1000, want: true },
    { ms: 5000, want: true },
    { ms: 10_000, want: true },
    { ms: 10_100, want: false },
    { ms: -2000, want: false },
  ])('303 after $ms ms -> $want', ({ ms, want }) => {
    expect(isFlap(T0, at(ms))).toBe(want);
  });

  it.each([
    { type: 'rdg.connection.x', details: { event_code: 302 }, want: 302 },
    { type: 'rdg.connection.x', details: { event_id_code: '303' }, want: 303 },
    { type: 'rdg.connection.x', details: { code: 303 }, want: 303 },
    { type: 'rdg.connection.x', details: { EventID: '302' }, want: 302 },
    { type: 'rdg.connection.x', details: { event_code: 200 }, want: null },
    { type: 'rdg.connection.success', details: {}, want: 302 },
    { type: 'rdg.connection.disconnected', details: undefined, want: 303 },
    { type: 'rdg.connection.success', details: { event_code: 'abc' }, want: null },
  ])('code of $type $details -> $want', ({ type, details, want }) => {
    expect(rdgCode(type, details)).toBe(want);
  });

  // The Windows agent's details (Login_Monitor.ps1, RD Gateway branch of the main loop: type from
  // Get-RdgGatewaySacEventType, fields from Get-RDGatewayEventInfo): no session id, code in event_id_windows.
  const agent = (code: 302 | 303, over: Record<string, unknown> = {}) => ({
    user: 'CONTOSO\\TSA',
    external_ip: '95.154.72.73',
    internal_ip: '192.168.164.43',
    protocol: 'HTTP',
    gateway_error_code: code === 302 ? '0' : '1226',
    session_duration_sec: code === 302 ? 0 : 3,
    bytes_received: 1991,
    bytes_transferred: 2116,
    event_id_windows: code,
    generated_by: 'agent',
    telegram_via: 'sac',
    ...over,
  });

  it.each([
    { type: 'rdg.connection.success', details: agent(302), want: 302 },
    { type: 'rdg.connection.disconnected', details: agent(303), want: 303 },
    { type: 'rdg.connection.failed', details: agent(303, { gateway_error_code: '1236' }), want: 303 },
    { type: 'rdg.connection.failed', details: {}, want: 303 },
  ])('the agent: $type with event_id_windows -> $want', ({ type, details, want }) => {
    expect(rdgCode(type, details)).toBe(want);
  });

  it('pairing key without a session id: user + resource + client, case-insensitive', () => {
    expect(rdgPairKey(agent(302))).toEqual({
      key: 'contoso\\tsa|192.168.164.43|95.154.72.73',
      session_id: null,
      user: 'contoso\\tsa',
      resource: '192.168.164.43',
      client: '95.154.72.73',
    });
    // The 303 of the same tunnel, written in another case and with the client's port: the same key.
    expect(rdgPairKey(agent(303, { user: 'contoso\\tsa', internal_ip: 'WS-01.Corp.Example' }))?.key).toBe(
      rdgPairKey(agent(302, { user: 'CONTOSO\\TSA', internal_ip: 'ws-01.corp.example', external_ip: '95.154.72.73:50123' }))?.key,
    );
    expect(rdgPairKey(agent(302, { user: 'CONTOSO\\bob' }))?.key).not.toBe(rdgPairKey(agent(302))?.key);
    expect(rdgPairKey(agent(302, { external_ip: '203.0.113.9' }))?.key).not.toBe(rdgPairKey(agent(302))?.key);
    // The agent's placeholder for what it could not read: no user, no key; a missing resource is "-".
    expect(rdgPairKey(agent(302, { user: 'N/A' }))).toBeNull();
    expect(rdgPairKey(agent(302, { internal_ip: 'N/A' }))?.key).toBe('contoso\\tsa|-|95.154.72.73');
    // A session id, when sent, wins.
    expect(rdgPairKey(agent(302, { session_id: 'S-9' }))).toEqual({ key: 'S-9', session_id: 'S-9' });
  });

  it("the gateway's own session time of a 303 (session_duration_sec); 0 or none is unknown; 1-10 s is a flap", () => {
    expect(rdgSessionSeconds(agent(303))).toBe(3);
    expect(rdgSessionSeconds(agent(303, { session_duration_sec: '12' }))).toBe(12);
    for (const v of [0, -1, 2.5, 'soon', null]) expect(rdgSessionSeconds(agent(303, { session_duration_sec: v }))).toBeNull();
    expect(rdgSessionSeconds({})).toBeNull();
    expect([0, 1, 10, 11].map(isFlapDuration)).toEqual([false, true, true, false]);
  });

  it('session from the accepted field names', () => {
    expect(rdgSession({ session_id: 'S1' })).toBe('S1');
    expect(rdgSession({ connection_id: 'C2' })).toBe('C2');
    expect(rdgSession({ session: 7 })).toBe('7');
    expect(rdgSession({ session_id: '', connection_id: 'C3' })).toBe('C3');
    expect(rdgSession({})).toBeNull();
  });
});

describe('inventory hardware diff', () => {
  const hw = { cpu: { model: 'Xeon', cores: 8 }, memory_mb: 16384, disks: [{ name: 'sda', size_gb: 500 }] };
  it('no previous snapshot: no diff', () => expect(hardwareDiff(null, hw)).toBeNull());
  it('same content in another key order: no diff', () =>
    expect(
      hardwareDiff({ memory_mb: 16384, disks: [{ size_gb: 500, name: 'sda' }], cpu: { cores: 8, model: 'Xeon' } }, hw),
    ).toBeNull());
  it('reports added, removed and changed leaves', () => {
    const next = {
      cpu: { model: 'Xeon', cores: 16 },
      disks: [
        { name: 'sda', size_gb: 500 },
        { name: 'sdb', size_gb: 1000 },
      ],
    };
    expect(hardwareDiff(hw, next)).toEqual({
      added: [
        { path: 'disks.1.name', value: 'sdb' },
        { path: 'disks.1.size_gb', value: 1000 },
      ],
      removed: [{ path: 'memory_mb', value: 16384 }],
      changed: [{ path: 'cpu.cores', from: 8, to: 16 }],
    });
  });
});

describe('inventory from the Windows agent (details.inventory)', () => {
  // Login_Monitor.ps1 Get-HostInventorySnapshot, sent by Send-HostInventoryToSac as details.inventory.
  const snapshot = (over: Record<string, unknown> = {}) => ({
    inventory: {
      schema_version: 1,
      collected_at: '2025-03-01T09:00:00.0000000Z',
      computer_name: 'WS-01',
      processor: [{ name: 'Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz', cores: 10, logical_processors: 20 }],
      motherboard: { product: 'X11SPi-TF', manufacturer: 'Supermicro' },
      memory_gb: 64,
      disks: [
        { friendly_name: 'SAMSUNG MZ7LH960HAJR', media_type: 'SSD', size_gb: 894.25 },
        { friendly_name: 'ST4000NM0035', media_type: 'HDD', size_gb: 3726.02 },
      ],
      video: [{ name: 'Microsoft Basic Display Adapter' }],
      windows: {
        product_name: 'Windows Server 2019 Standard',
        version: '1809',
        os_hardware_abstraction_layer: '10.0.17763.5830',
      },
      ipv4: ['10.0.0.21'],
      ...over,
    },
  });

  it('hardware = processor, motherboard, memory, disks, video; software = the rest', () => {
    const s = inventoryOf(snapshot());
    expect(Object.keys(s.hardware as object).sort()).toEqual(['disks', 'memory_gb', 'motherboard', 'processor', 'video']);
    expect(s.software).toEqual({
      schema_version: 1,
      collected_at: '2025-03-01T09:00:00.0000000Z',
      computer_name: 'WS-01',
      windows: {
        product_name: 'Windows Server 2019 Standard',
        version: '1809',
        os_hardware_abstraction_layer: '10.0.17763.5830',
      },
      ipv4: ['10.0.0.21'],
    });
  });

  it('what WMI could not read, the disks read the fallback way and the RDP session adapter are no change (issue 31)', () => {
    const before = inventoryOf(snapshot()).hardware;
    const after = (over: Record<string, unknown>) => {
      const next = inventoryOf(snapshot(over)).hardware;
      return hardwareDiff(before, carryUnreadHardware(before, next));
    };
    // Get-HostInventorySnapshot: a failed query leaves its part empty or null.
    expect(after({ processor: [], motherboard: null, memory_gb: null, disks: [], video: [] })).toBeNull();
    // Get-PhysicalDisk failed: Win32_DiskDrive's model, media type and geometry size.
    const fallback = [
      { friendly_name: 'SAMSUNG MZ7LH960HAJR ATA Device', media_type: 'Fixed hard disk media', size_gb: 894.25 },
      { friendly_name: 'ST4000NM0035-1V4107', media_type: 'Fixed hard disk media', size_gb: 3726.01 },
    ];
    expect(after({ disks: fallback })).toBeNull();
    // Win32_VideoController lists the session's adapter only while an RDP session is open.
    expect(
      after({ video: [{ name: 'Microsoft Basic Display Adapter' }, { name: 'Microsoft Remote Display Adapter' }] }),
    ).toBeNull();
    // A part read again in the same shape still compares: a real change is reported.
    expect(after({ memory_gb: 32, processor: [] })?.changed).toEqual([{ path: 'memory_gb', from: 64, to: 32 }]);
    expect(carryUnreadHardware(null, { memory_gb: null })).toEqual({ memory_gb: null });
  });

  it('memory or a disk changing is a hardware change', () => {
    const before = inventoryOf(snapshot()).hardware;
    expect(hardwareDiff(before, inventoryOf(snapshot({ memory_gb: 32 })).hardware)).toEqual({
      added: [],
      removed: [],
      changed: [{ path: 'memory_gb', from: 64, to: 32 }],
    });
    const swapped = inventoryOf(
      snapshot({
        disks: [
          { friendly_name: 'SAMSUNG MZ7LH960HAJR', media_type: 'SSD', size_gb: 894.25 },
          { friendly_name: 'ST8000NM000A', media_type: 'HDD', size_gb: 7452.04 },
        ],
      }),
    ).hardware;
    expect(hardwareDiff(before, swapped)?.changed.map((c) => c.path)).toEqual(['disks.1.friendly_name', 'disks.1.size_gb']);
  });

  it('addresses, collection time, the OS, volatile fields and the order WMI lists things in are not', () => {
    const before = inventoryOf(snapshot()).hardware;
    const after = inventoryOf(
      snapshot({
        collected_at: '2025-03-01T21:00:00.0000000Z',
        ipv4: ['10.0.0.21', '192.168.56.1'],
        windows: {
          product_name: 'Windows Server 2019 Standard',
          version: '1809',
          os_hardware_abstraction_layer: '10.0.17763.6054',
        },
        disks: [
          { friendly_name: 'ST4000NM0035', media_type: 'HDD', size_gb: 3726.02, free_gb: 100.5 },
          { friendly_name: 'SAMSUNG MZ7LH960HAJR', media_type: 'SSD', size_gb: 894.25, free_gb: 12 },
        ],
      }),
    ).hardware;
    expect(hardwareDiff(before, after)).toBeNull();
  });

  it('the hardware/software form still wins when sent', () => {
    expect(inventoryOf({ hardware: { cpu: 'x' }, software: [], inventory: { memory_gb: 1 } })).toEqual({
      hardware: { cpu: 'x' },
      software: [],
    });
    expect(inventoryOf({ inventory: 'not an object' })).toEqual({ hardware: null, software: null });
  });
});
