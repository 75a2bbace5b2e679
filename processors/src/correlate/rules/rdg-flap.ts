// RD Gateway flap: a connect (302) waits for its session's disconnect (303); a pair 1 to 10 s apart on
// the host's clock is a flap, which opens a problem or, within 30 s of the previous flap, extends it.
import { FLAP_DEDUP_MS, FLAP_RULE, FLAP_TYPE, fingerprintOf, isFlap, isRdgType, rdgCode, rdgSession } from '../rules.ts';
import type { EventCtx, Rule } from './rule.ts';

function sessionOf(ev: EventCtx): { code: 302 | 303; session: string } | null {
  if (!isRdgType(ev.e.type)) return null;
  const code = rdgCode(ev.e.type, ev.e.details);
  const session = rdgSession(ev.e.details);
  return code && session ? { code, session } : null;
}

export const rdgFlapRule: Rule = {
  name: 'rdg_flap',
  needs(ev, needs) {
    const s = sessionOf(ev);
    if (!s) return { timeline: isRdgType(ev.e.type) };
    if (s.code === 303) {
      needs.session(ev.host, s.session);
      needs.fingerprints.add(fingerprintOf(ev.host, FLAP_TYPE, FLAP_RULE));
    }
    return { timeline: true };
  },
  apply(ev, work) {
    const s = sessionOf(ev);
    if (!s) return;
    const { host, self, occurredAt } = ev;
    if (s.code === 302) {
      work.openSession(host, s.session, {
        connect_event_id: self.event_id,
        connect_occurred_at: occurredAt,
        connect_received_at: ev.receivedAt,
        connect_type: ev.e.type,
        connect_severity: self.severity,
        connect_title: ev.e.title,
      });
      return;
    }
    const conn = work.takeSession(host, s.session);
    if (!conn || !isFlap(conn.connect_occurred_at, occurredAt)) return;
    const pair = {
      connect_event_id: conn.connect_event_id,
      disconnect_event_id: self.event_id,
      session_id: s.session,
      seconds: (occurredAt.getTime() - conn.connect_occurred_at.getTime()) / 1000,
      disconnect_occurred_at: occurredAt.toISOString(),
    };
    const problemId = work.correlate({
      host,
      type: FLAP_TYPE,
      rule: FLAP_RULE,
      severity: 'warning',
      title: `RD Gateway session flap on ${host}`,
      at: ev.receivedAt,
      // Deduplication window of 30 s on the host's clock, from the previous flap's disconnect.
      matchAt: occurredAt,
      windowMs: FLAP_DEDUP_MS,
      liveMatchTime: (p) =>
        new Date(typeof p.details.last_flap_at === 'string' ? p.details.last_flap_at : p.created_at.toISOString()),
      seed: `${self.event_id}:${FLAP_TYPE}:${FLAP_RULE}`,
      rdgFlap: true,
      timeline: [
        {
          event_id: conn.connect_event_id,
          occurred_at: conn.connect_occurred_at,
          received_at: conn.connect_received_at,
          type: conn.connect_type,
          severity: conn.connect_severity,
          title: conn.connect_title,
        },
        self,
      ],
      details: (previous) => {
        const pairs = ((previous?.pairs as unknown[]) ?? []).slice(-49);
        return { ...(previous ?? {}), last_flap_at: occurredAt.toISOString(), pairs: [...pairs, pair] };
      },
    });
    work.addFlapEvents([
      {
        event_id: conn.connect_event_id,
        problem_id: problemId,
        role: 'connect',
        partner_event_id: self.event_id,
        session_id: s.session,
      },
      {
        event_id: self.event_id,
        problem_id: problemId,
        role: 'disconnect',
        partner_event_id: conn.connect_event_id,
        session_id: s.session,
      },
    ]);
  },
};
