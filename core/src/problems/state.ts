// The problem state machine (spec: States and transitions / Problem status). PURE: no I/O, the caller
// passes `now`. Shared by the correlate processor, the liveness scan and the API (acknowledge/resolve).

export const PROBLEM_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];
export type ResolvedBy = 'manual' | 'auto';

/** Cooldown before a manually resolved host_silence problem may reopen (spec Limits: 12 hours). */
export const HOST_SILENCE_COOLDOWN_MS = 12 * 3600 * 1000;
export const HOST_SILENCE_TYPE = 'host_silence';

/** The fields the machine reads and writes; any other fields of the caller's record pass through. */
export interface ProblemState {
  status: ProblemStatus;
  type: string;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: ResolvedBy | null;
  resolved_by_user: string | null;
  reopened_count?: number;
}

export type ProblemAction =
  /** Operator acknowledges (API). */
  | { kind: 'acknowledge'; by?: string | null }
  /** Operator resolves (API); resolved_by = manual. */
  | { kind: 'resolve'; by?: string | null }
  /** The service closes it: heartbeat for host_silence, or superseded by a newer problem. */
  | { kind: 'auto_resolve' }
  /** host_silence only: 12 h after a manual resolve while the host is still silent. */
  | { kind: 'reopen' };

export type ActionKind = ProblemAction['kind'];

/** Stable refusal codes; the API answers 409 with them. */
export type RefusalReason =
  'ALREADY_ACKNOWLEDGED' | 'ALREADY_RESOLVED' | 'NOT_RESOLVED' | 'NOT_HOST_SILENCE' | 'NOT_MANUALLY_RESOLVED' | 'COOLDOWN';

export type TransitionResult<T extends ProblemState> = { ok: true; next: T } | { ok: false; reason: RefusalReason };

/** From which statuses each action is allowed (the guard behind the API's 409). */
export const ALLOWED_FROM: Record<ActionKind, readonly ProblemStatus[]> = {
  acknowledge: ['open'],
  resolve: ['open', 'acknowledged'],
  // The spec's row names `open`; an acknowledgement is only a note, so a host that reports again also
  // closes an acknowledged host_silence problem.
  auto_resolve: ['open', 'acknowledged'],
  reopen: ['resolved'],
};

function refusalFor(status: ProblemStatus, kind: ActionKind): RefusalReason {
  if (kind === 'reopen') return 'NOT_RESOLVED';
  return status === 'resolved' ? 'ALREADY_RESOLVED' : 'ALREADY_ACKNOWLEDGED';
}

/** Milliseconds left in the host_silence cooldown after a manual resolve (0 = may reopen). */
export function cooldownRemainingMs(p: Pick<ProblemState, 'resolved_at' | 'resolved_by'>, now: Date): number {
  if (p.resolved_by !== 'manual' || !p.resolved_at) return 0;
  return Math.max(0, p.resolved_at.getTime() + HOST_SILENCE_COOLDOWN_MS - now.getTime());
}

export function transition<T extends ProblemState>(
  problem: T,
  action: ProblemAction | 'acknowledge' | 'resolve',
  now: Date,
): TransitionResult<T> {
  const a: ProblemAction = typeof action === 'string' ? { kind: action } : action;
  if (!ALLOWED_FROM[a.kind].includes(problem.status)) return { ok: false, reason: refusalFor(problem.status, a.kind) };
  switch (a.kind) {
    case 'acknowledge':
      return { ok: true, next: { ...problem, status: 'acknowledged', acknowledged_at: now, acknowledged_by: a.by ?? null } };
    case 'resolve':
      return {
        ok: true,
        next: { ...problem, status: 'resolved', resolved_at: now, resolved_by: 'manual', resolved_by_user: a.by ?? null },
      };
    case 'auto_resolve':
      return {
        ok: true,
        next: { ...problem, status: 'resolved', resolved_at: now, resolved_by: 'auto', resolved_by_user: null },
      };
    case 'reopen': {
      if (problem.type !== HOST_SILENCE_TYPE) return { ok: false, reason: 'NOT_HOST_SILENCE' };
      if (problem.resolved_by !== 'manual') return { ok: false, reason: 'NOT_MANUALLY_RESOLVED' };
      if (cooldownRemainingMs(problem, now) > 0) return { ok: false, reason: 'COOLDOWN' };
      return {
        ok: true,
        next: {
          ...problem,
          status: 'open',
          acknowledged_at: null,
          acknowledged_by: null,
          resolved_at: null,
          resolved_by: null,
          resolved_by_user: null,
          reopened_count: (problem.reopened_count ?? 0) + 1,
        },
      };
    }
  }
}

/**
 * What the liveness scan does for one stale host, given the host's latest host_silence problem
 * (spec rows: create / recreation suppressed / reopened). `lastHeartbeat` = the host's last liveness
 * time; a host "still silent" since a manual resolve has not reported after it.
 */
export type SilenceDecision = 'open_new' | 'already_open' | 'suppressed' | 'reopen';

export function hostSilenceDecision(
  latest: (Pick<ProblemState, 'status' | 'resolved_at' | 'resolved_by'> & { type?: string }) | null,
  lastHeartbeat: Date | null,
  now: Date,
): SilenceDecision {
  if (!latest) return 'open_new';
  if (latest.status !== 'resolved') return 'already_open';
  if (latest.resolved_by !== 'manual') return 'open_new';
  if (cooldownRemainingMs(latest, now) > 0) return 'suppressed';
  const stillSilent = !lastHeartbeat || !latest.resolved_at || lastHeartbeat.getTime() <= latest.resolved_at.getTime();
  return stillSilent ? 'reopen' : 'open_new';
}
