import { describe, expect, it } from 'vitest';
import { makeEnvelope } from '@watchpost/testkit';
import type { HostStatus } from '@watchpost/schemas';
import { NO_TYPE_SETTINGS as NO_RULES, type TypeSettings as TypeRules } from '@watchpost/core';
import { countEvents, hostChanges, problemMessage, RecentIds } from './messages.ts';

const now = new Date('2026-01-02T03:04:05.000Z');
const env = (type: string, severity: 'info' | 'warning' | 'high' | 'critical') => makeEnvelope({ type, severity });
const rules: TypeRules = { overrides: new Map([['ssh.bruteforce.mass', 'critical' as const]]), hidden: new Set(['noisy.debug']) };

describe('countEvents', () => {
  it.each([
    { name: 'empty batch', batch: [], expected: null },
    { name: 'only hidden types', batch: [env('noisy.debug', 'high')], expected: null },
    {
      name: 'severities, override, hidden, daily reports and heartbeats',
      batch: [
        env('ssh.login.failed', 'warning'),
        env('ssh.bruteforce.mass', 'high'),
        env('noisy.debug', 'critical'),
        env('agent.heartbeat', 'info'),
        env('report.daily.ssh', 'info'),
        env('report.daily.rdp', 'info'),
      ],
      expected: { total: 5, severity: { info: 3, warning: 1, high: 0, critical: 1 }, daily_reports: 2, heartbeats: 1 },
    },
  ])('$name', ({ batch, expected }) => {
    const m = countEvents(batch, rules, now);
    if (expected === null) expect(m).toBeNull();
    else expect(m).toEqual({ kind: 'events', at: now.toISOString(), ...expected });
  });
});

describe('problemMessage', () => {
  const msg = (o: unknown) => Buffer.from(JSON.stringify(o));
  const problem = {
    id: 'p1',
    host: 'web-01',
    type: 'ssh.login.failed',
    title: 't',
    severity: 'warning',
    rdg_flap: false,
    created_at: now.toISOString(),
  };
  it.each([
    {
      name: 'opened',
      value: msg({ message_id: 'p1:opened', kind: 'problem.opened', problem }),
      action: 'opened',
      severity: 'warning',
    },
    {
      name: 'reopened',
      value: msg({ message_id: 'p1:r1', kind: 'problem.reopened', problem }),
      action: 'reopened',
      severity: 'warning',
    },
    {
      name: 'override applies',
      value: msg({ message_id: 'x', kind: 'problem.opened', problem: { ...problem, type: 'ssh.bruteforce.mass' } }),
      action: 'opened',
      severity: 'critical',
    },
    { name: 'hidden type', value: msg({ kind: 'problem.opened', problem: { ...problem, type: 'noisy.debug' } }), action: null },
    { name: 'unknown kind', value: msg({ kind: 'problem.deleted', problem }), action: null },
    { name: 'not JSON', value: Buffer.from('{'), action: null },
    { name: 'null value', value: null, action: null },
    { name: 'no problem', value: msg({ kind: 'problem.opened' }), action: null },
  ])('$name', ({ value, action, severity }) => {
    const m = problemMessage(value, rules);
    if (action === null) expect(m).toBeNull();
    else expect(m).toMatchObject({ kind: 'problems', action, problem: { host: 'web-01', severity } });
  });
  it('passes everything through without settings', () => {
    expect(
      problemMessage(msg({ kind: 'problem.opened', problem: { ...problem, type: 'noisy.debug' } }), NO_RULES)?.problem.type,
    ).toBe('noisy.debug');
  });
});

describe('hostChanges', () => {
  const m = (o: Record<string, HostStatus>) => new Map(Object.entries(o));
  it.each([
    { name: 'no change', prev: { a: 'online' }, next: { a: 'online' }, changes: [] },
    { name: 'goes stale', prev: { a: 'online', b: 'online' }, next: { a: 'stale', b: 'online' }, changes: ['a:online->stale'] },
    { name: 'comes back', prev: { a: 'stale' }, next: { a: 'online' }, changes: ['a:stale->online'] },
    { name: 'new host', prev: {}, next: { a: 'online' }, changes: ['a:null->online'] },
    { name: 'removed host', prev: { a: 'online', b: 'stale' }, next: { b: 'stale' }, changes: ['a:online->removed'] },
  ] as { name: string; prev: Record<string, HostStatus>; next: Record<string, HostStatus>; changes: string[] }[])(
    '$name',
    ({ prev, next, changes }) => {
      const out = hostChanges(m(prev), m(next), now);
      expect(out.map((c) => `${c.hostname}:${c.previous}->${c.status}`)).toEqual(changes);
      for (const c of out) expect(c.counts.total).toBe(Object.keys(next).length);
    },
  );
});

describe('RecentIds', () => {
  it('reports each id once and forgets the oldest beyond its size', () => {
    const r = new RecentIds(2);
    expect([r.add('a'), r.add('a'), r.add('b'), r.add('c'), r.add('a')]).toEqual([true, false, true, true, true]);
  });
});
