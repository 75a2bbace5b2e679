import { describe, expect, it } from 'vitest';
import {
  HOST_SILENCE_COOLDOWN_MS,
  cooldownRemainingMs,
  hostSilenceDecision,
  transition,
  type ProblemAction,
  type ProblemState,
  type ProblemStatus,
  type RefusalReason,
} from './state.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function problem(status: ProblemStatus, extra: Partial<ProblemState> = {}): ProblemState & { id: string } {
  return {
    id: 'p1',
    status,
    type: 'ssh.login.failed',
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: status === 'resolved' ? T0 : null,
    resolved_by: status === 'resolved' ? 'manual' : null,
    resolved_by_user: null,
    ...extra,
  };
}

const silence = (status: ProblemStatus, resolvedBy: 'manual' | 'auto' | null = status === 'resolved' ? 'manual' : null) =>
  problem(status, { type: 'host_silence', resolved_by: resolvedBy, resolved_at: status === 'resolved' ? T0 : null });

// Spec "Problem status" table, row by row (operations the machine owns; matching lives in rules.ts).
const rows: {
  name: string;
  from: ProblemState;
  action: ProblemAction | 'acknowledge' | 'resolve';
  now: Date;
  to?: ProblemStatus;
  refused?: RefusalReason;
  check?: (n: ProblemState) => void;
}[] = [
  {
    name: 'acknowledge open',
    from: problem('open'),
    action: { kind: 'acknowledge', by: 'ann' },
    now: T0,
    to: 'acknowledged',
    check: (n) => expect(n.acknowledged_by).toBe('ann'),
  },
  {
    name: 'acknowledge (string form)',
    from: problem('open'),
    action: 'acknowledge',
    now: T0,
    to: 'acknowledged',
    check: (n) => expect(n.acknowledged_at).toEqual(T0),
  },
  {
    name: 'acknowledge acknowledged -> 409',
    from: problem('acknowledged'),
    action: 'acknowledge',
    now: T0,
    refused: 'ALREADY_ACKNOWLEDGED',
  },
  { name: 'acknowledge resolved -> 409', from: problem('resolved'), action: 'acknowledge', now: T0, refused: 'ALREADY_RESOLVED' },
  {
    name: 'resolve open: manual',
    from: problem('open'),
    action: { kind: 'resolve', by: 'bob' },
    now: at(5),
    to: 'resolved',
    check: (n) => expect([n.resolved_by, n.resolved_by_user, n.resolved_at]).toEqual(['manual', 'bob', at(5)]),
  },
  {
    name: 'resolve acknowledged: manual',
    from: problem('acknowledged'),
    action: 'resolve',
    now: T0,
    to: 'resolved',
    check: (n) => expect(n.resolved_by).toBe('manual'),
  },
  { name: 'resolve resolved -> 409', from: problem('resolved'), action: 'resolve', now: T0, refused: 'ALREADY_RESOLVED' },
  {
    name: 'heartbeat auto-resolves open host_silence',
    from: silence('open'),
    action: { kind: 'auto_resolve' },
    now: at(1),
    to: 'resolved',
    check: (n) => expect(n.resolved_by).toBe('auto'),
  },
  {
    name: 'heartbeat auto-resolves acknowledged host_silence',
    from: silence('acknowledged'),
    action: { kind: 'auto_resolve' },
    now: at(1),
    to: 'resolved',
  },
  {
    name: 'auto-resolve of resolved refused',
    from: silence('resolved'),
    action: { kind: 'auto_resolve' },
    now: at(1),
    refused: 'ALREADY_RESOLVED',
  },
  {
    name: 'reopen 12 h minus 1 s after manual resolve: suppressed',
    from: silence('resolved'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS - 1000),
    refused: 'COOLDOWN',
  },
  {
    name: 'reopen at exactly 12 h: allowed',
    from: silence('resolved'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS),
    to: 'open',
  },
  {
    name: 'reopen 12 h plus 1 s: same problem open again',
    from: silence('resolved'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS + 1000),
    to: 'open',
    check: (n) => {
      expect((n as ProblemState & { id: string }).id).toBe('p1');
      expect([n.resolved_at, n.resolved_by, n.reopened_count]).toEqual([null, null, 1]);
    },
  },
  {
    name: 'reopen of auto-resolved host_silence refused',
    from: silence('resolved', 'auto'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS * 2),
    refused: 'NOT_MANUALLY_RESOLVED',
  },
  {
    name: 'reopen of another type refused',
    from: problem('resolved'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS * 2),
    refused: 'NOT_HOST_SILENCE',
  },
  {
    name: 'reopen of open refused',
    from: silence('open'),
    action: { kind: 'reopen' },
    now: at(HOST_SILENCE_COOLDOWN_MS * 2),
    refused: 'NOT_RESOLVED',
  },
];

describe('transition', () => {
  it.each(rows)('$name', ({ from, action, now, to, refused, check }) => {
    const r = transition(from, action, now);
    if (refused) {
      expect(r).toEqual({ ok: false, reason: refused });
      return;
    }
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.next.status).toBe(to);
    check?.(r.next);
    expect(from.status).not.toBe(to); // input untouched
  });
});

describe('hostSilenceDecision', () => {
  const hb = new Date(T0.getTime() - 3600_000); // last heartbeat an hour before the manual resolve
  it.each([
    { name: 'no previous problem', latest: null, lastHb: hb, now: T0, want: 'open_new' },
    { name: 'live problem exists', latest: silence('open'), lastHb: hb, now: T0, want: 'already_open' },
    { name: 'acknowledged problem exists', latest: silence('acknowledged'), lastHb: hb, now: T0, want: 'already_open' },
    {
      name: 'auto-resolved earlier: new one',
      latest: silence('resolved', 'auto'),
      lastHb: at(10),
      now: at(60_000),
      want: 'open_new',
    },
    {
      name: 'manual, 12 h - 1 s',
      latest: silence('resolved'),
      lastHb: hb,
      now: at(HOST_SILENCE_COOLDOWN_MS - 1000),
      want: 'suppressed',
    },
    {
      name: 'manual, 12 h + 1 s, still silent',
      latest: silence('resolved'),
      lastHb: hb,
      now: at(HOST_SILENCE_COOLDOWN_MS + 1000),
      want: 'reopen',
    },
    {
      name: 'manual, 12 h + 1 s, reported since then',
      latest: silence('resolved'),
      lastHb: at(60_000),
      now: at(HOST_SILENCE_COOLDOWN_MS + 1000),
      want: 'open_new',
    },
    {
      name: 'manual, never heartbeat',
      latest: silence('resolved'),
      lastHb: null,
      now: at(HOST_SILENCE_COOLDOWN_MS + 1000),
      want: 'reopen',
    },
  ])('$name -> $want', ({ latest, lastHb, now, want }) => {
    expect(hostSilenceDecision(latest, lastHb, now)).toBe(want);
  });

  it('cooldown counts down from the manual resolve', () => {
    expect(cooldownRemainingMs(silence('resolved'), at(1000))).toBe(HOST_SILENCE_COOLDOWN_MS - 1000);
    expect(cooldownRemainingMs(silence('resolved', 'auto'), at(1000))).toBe(0);
  });
});
