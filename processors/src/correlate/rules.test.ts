import { describe, expect, it } from 'vitest';
import {
  deterministicUuid,
  fingerprintOf,
  hardwareDiff,
  hasOwnRules,
  isFlap,
  isLivenessType,
  matchProblem,
  opensSeverityProblem,
  rdgCode,
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
