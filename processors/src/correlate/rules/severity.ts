// The generic rule: an event at or above the minimum severity (after the per-type override) opens or
// extends the problem of host + type + rule within the correlation window.
import { fingerprintOf, opensSeverityProblem, ruleOf } from '../rules.ts';
import type { EventCtx, Rule } from './rule.ts';

const applies = (ev: EventCtx) => opensSeverityProblem(ev.e.type, ev.severity, ev.settings.problemMinSeverity);

export const severityRule: Rule = {
  name: 'severity',
  needs(ev, needs) {
    if (!applies(ev)) return { timeline: false };
    needs.fingerprints.add(fingerprintOf(ev.host, ev.e.type, ruleOf(ev.e.details)));
    return { timeline: true };
  },
  apply(ev, work) {
    if (!applies(ev)) return;
    const rule = ruleOf(ev.e.details);
    work.correlate({
      host: ev.host,
      type: ev.e.type,
      rule,
      severity: ev.severity,
      title: ev.e.title,
      at: ev.receivedAt,
      matchAt: ev.receivedAt,
      windowMs: ev.settings.problemCorrelationWindowMinutes * 60_000,
      liveMatchTime: (p) => p.last_seen,
      seed: `${ev.self.event_id}:${ev.e.type}:${rule}`,
      timeline: [ev.self],
    });
  },
};
