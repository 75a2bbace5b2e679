// RD Gateway flap: a connect (302) and a disconnect (303) of one pairing key (the session id, or when
// the agent sends none, user + gateway resource + client address: see rdgPairKey) pair up when they
// are neighbours on the host's clock (occurred_at); a pair 1 to 10 s apart is a flap, which opens a
// problem or, within 30 s of the problem's flaps, extends it.
//
// Order: events pair by occurred_at, not by arrival. The Windows agent re-sends its spool newest first
// after an outage (Sac-Client.ps1, Invoke-SacFlushSpool), so a disconnect may arrive before its connect:
// it then waits (rdg_pending_disconnects) as a connect waits for its disconnect (rdg_sessions). Per key
// one connect waits (the latest; an older one arriving late never replaces it) and one disconnect (the
// earliest). Both in-order and newest-first delivery give the same problems, pairs and flap badges; an
// event arriving late between two already paired events does not undo that pair. Paired events go in
// the processed_events ledger, so a repeated delivery of one is skipped whether or not it was a flap.
//
// Clocks: pairing and the 1 to 10 s spacing use the host's own occurred_at (both halves come from one
// clock, so an offset cancels; receive times would not do: the agent posts a 302 and its 303 within
// the same poll, milliseconds apart). Where the flap sits (the 30 s deduplication, first/last_flap_at,
// the timeline) is the disconnect's window time (core's windowTime), so a host whose clock is hours
// off, or is corrected between two flaps, still groups its flaps by when they happened.
//
// A 303 timed by the gateway (issue 31): the Windows agent sends the gateway's own duration of the
// session (details.session_duration_sec) and no 302 that repeats user + resource + client within 90 s
// ($Rdg302NotifyDedupSeconds, Get-Rdg302NotifyDedupKey): a client flapping every few seconds gives one
// 302, then a 303 per flap. So a 303 with a duration decides alone, in any delivery order: 1 to 10 s is a
// flap (the badge on the 303, the pair without a connect), longer is none; it never waits, and uses up a
// connect waiting before it (its own, or one left by an earlier run) without a trace in the problem.
import { windowTime } from '@watchpost/core/window-time';
import {
  FLAP_DEDUP_MS,
  FLAP_RULE,
  FLAP_TYPE,
  fingerprintOf,
  isFlap,
  isFlapDuration,
  isRdgType,
  rdgCode,
  rdgPairKey,
  rdgSessionSeconds,
  type RdgPairKey,
} from '../rules.ts';
import type { BatchWork, RdgPending } from '../work.ts';
import type { EventCtx, Rule } from './rule.ts';

function pairingOf(ev: EventCtx): { code: 302 | 303; key: RdgPairKey } | null {
  if (!isRdgType(ev.e.type)) return null;
  const code = rdgCode(ev.e.type, ev.e.details);
  if (!code) return null;
  const key = rdgPairKey(ev.e.details);
  return key ? { code, key } : null;
}

const timeOf = (v: unknown): number | null => {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
};

/** The host-clock span of a flap problem's flaps (first_flap_at is new; older rows fall back to their pairs). */
function flapSpan(details: Record<string, unknown>, createdAt: Date): { first: number; last: number } {
  const last = timeOf(details.last_flap_at) ?? createdAt.getTime();
  let first = timeOf(details.first_flap_at);
  if (first === null) {
    const times = ((details.pairs as { disconnect_occurred_at?: unknown }[] | undefined) ?? [])
      .map((p) => timeOf(p?.disconnect_occurred_at))
      .filter((t): t is number => t !== null);
    first = times.length > 0 ? Math.min(...times) : last;
  }
  return { first: Math.min(first, last), last };
}

export const rdgFlapRule: Rule = {
  name: 'rdg_flap',
  needs(ev, needs) {
    const p = pairingOf(ev);
    if (!p) return { timeline: isRdgType(ev.e.type) };
    // Either half may complete a pair (a late connect finds its waiting disconnect).
    needs.session(ev.host, p.key.key);
    needs.fingerprints.add(fingerprintOf(ev.host, FLAP_TYPE, FLAP_RULE));
    needs.historyOf(ev.host, FLAP_TYPE, FLAP_RULE);
    return { timeline: true };
  },
  apply(ev, work) {
    const p = pairingOf(ev);
    if (!p) return;
    const { host, occurredAt } = ev;
    const key = p.key.key;
    const me: RdgPending = {
      event_id: ev.self.event_id,
      occurred_at: occurredAt,
      received_at: ev.receivedAt,
      type: ev.e.type,
      severity: ev.self.severity,
      title: ev.e.title,
    };
    if (p.code === 302) {
      const disc = work.pendingRdg(host, key, 'disconnect');
      if (disc && disc.occurred_at >= occurredAt) {
        work.setPendingRdg(host, key, 'disconnect', null);
        pairUp(ev, work, p.key, me, disc);
        return;
      }
      const waiting = work.pendingRdg(host, key, 'connect');
      if (!waiting || waiting.occurred_at <= occurredAt) work.setPendingRdg(host, key, 'connect', me);
      return;
    }
    const conn = work.pendingRdg(host, key, 'connect');
    const seconds = rdgSessionSeconds(ev.e.details);
    if (seconds !== null) {
      const used = conn && conn.occurred_at <= occurredAt;
      if (used) work.setPendingRdg(host, key, 'connect', null);
      // Decided: a repeated delivery of either is skipped, not left waiting.
      work.addPaired(used ? [conn.event_id, me.event_id] : [me.event_id]);
      if (isFlapDuration(seconds)) recordFlap(ev, work, p.key, null, me, seconds);
      return;
    }
    if (conn && conn.occurred_at <= occurredAt) {
      work.setPendingRdg(host, key, 'connect', null);
      pairUp(ev, work, p.key, conn, me);
      return;
    }
    const waiting = work.pendingRdg(host, key, 'disconnect');
    if (!waiting || waiting.occurred_at > occurredAt) work.setPendingRdg(host, key, 'disconnect', me);
  },
};

/** A connect and its disconnect met: a flap when 1 to 10 s apart on the host clock. */
function pairUp(ev: EventCtx, work: BatchWork, key: RdgPairKey, conn: RdgPending, disc: RdgPending): void {
  // Both halves are used up: a repeated delivery of either (in a later batch) is skipped, not left waiting.
  work.addPaired([conn.event_id, disc.event_id]);
  if (!isFlap(conn.occurred_at, disc.occurred_at)) return;
  recordFlap(ev, work, key, conn, disc, (disc.occurred_at.getTime() - conn.occurred_at.getTime()) / 1000);
}

/** A flap of `seconds`: a pair, or (conn null) a 303 the gateway timed. Opens or extends the flap problem, badges its events. */
function recordFlap(
  ev: EventCtx,
  work: BatchWork,
  key: RdgPairKey,
  conn: RdgPending | null,
  disc: RdgPending,
  seconds: number,
): void {
  const { host } = ev;
  const flapAt = windowTime(disc.occurred_at, disc.received_at).at;
  const pair = {
    connect_event_id: conn?.event_id ?? null,
    disconnect_event_id: disc.event_id,
    session_id: key.session_id,
    ...(key.session_id === null ? { user: key.user, resource: key.resource, client: key.client } : {}),
    seconds,
    disconnect_occurred_at: flapAt.toISOString(),
  };
  const problemId = work.correlate({
    host,
    type: FLAP_TYPE,
    rule: FLAP_RULE,
    severity: 'warning',
    title: `RD Gateway session flap on ${host}`,
    // The event completing the pair: the later one to arrive.
    at: ev.receivedAt,
    matchAt: flapAt,
    windowMs: FLAP_DEDUP_MS,
    liveMatchTime: (p) =>
      new Date(typeof p.details.last_flap_at === 'string' ? p.details.last_flap_at : p.created_at.toISOString()),
    // Deduplication of 30 s on the host's clock around the problem's flaps, so a flap arriving late
    // (older than the problem's) lands where the in-order run would have put it.
    match: (p) => {
      const span = flapSpan(p.details, p.created_at);
      const t = flapAt.getTime();
      if (t > span.last + FLAP_DEDUP_MS) return 'supersede_and_open';
      if (t < span.first - FLAP_DEDUP_MS) return 'before';
      return 'extend';
    },
    // Seeded by the disconnect whichever half arrives last: the same id in any delivery order.
    seed: `${disc.event_id}:${FLAP_TYPE}:${FLAP_RULE}`,
    rdgFlap: true,
    timeline: [
      ...(conn
        ? [
            {
              event_id: conn.event_id,
              occurred_at: windowTime(conn.occurred_at, conn.received_at).at,
              received_at: conn.received_at,
              type: conn.type,
              severity: conn.severity,
              title: conn.title,
            },
          ]
        : []),
      {
        event_id: disc.event_id,
        occurred_at: flapAt,
        received_at: disc.received_at,
        type: disc.type,
        severity: disc.severity,
        title: disc.title,
      },
    ],
    details: (previous) => {
      const span = previous ? flapSpan(previous, new Date(flapAt)) : { first: flapAt.getTime(), last: flapAt.getTime() };
      // Pairs in host-clock order (not arrival order), the latest 50.
      const pairs = [...((previous?.pairs as { disconnect_occurred_at?: string }[]) ?? []), pair]
        .map((x, i) => ({ x, i, t: timeOf(x?.disconnect_occurred_at) ?? 0 }))
        .sort((a, b) => a.t - b.t || a.i - b.i)
        .map(({ x }) => x)
        .slice(-50);
      return {
        ...(previous ?? {}),
        first_flap_at: new Date(Math.min(span.first, flapAt.getTime())).toISOString(),
        last_flap_at: new Date(Math.max(span.last, flapAt.getTime())).toISOString(),
        pairs,
      };
    },
  });
  work.addFlapEvents([
    ...(conn
      ? [
          {
            event_id: conn.event_id,
            problem_id: problemId,
            role: 'connect' as const,
            partner_event_id: disc.event_id,
            session_id: key.key,
          },
        ]
      : []),
    {
      event_id: disc.event_id,
      problem_id: problemId,
      role: 'disconnect',
      partner_event_id: conn?.event_id ?? null,
      session_id: key.key,
    },
  ]);
}
