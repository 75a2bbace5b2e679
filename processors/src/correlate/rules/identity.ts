// Agent identity: an event from another agent instance or key than the one its host is bound to
// (core/src/hosts/binding.ts decides, before the rules run) opens or extends a high
// host_identity_conflict problem, notified like any new problem. The host's facts stay; the pending
// identity change waits for an admin (accepting or rejecting it resolves the problem).
import { HOST_IDENTITY_CONFLICT_TYPE, HOST_IDENTITY_RULE } from '@watchpost/core/hosts';
import { fingerprintOf } from '../rules.ts';
import type { Rule } from './rule.ts';

export const identityFingerprint = (host: string) => fingerprintOf(host, HOST_IDENTITY_CONFLICT_TYPE, HOST_IDENTITY_RULE);

/** Instances and keys of conflicting events kept in the problem's details. */
const KEEP = 20;

export const identityRule: Rule = {
  name: HOST_IDENTITY_RULE,
  needs(ev, needs) {
    if (!ev.identitySuspect) return { timeline: false };
    needs.fingerprints.add(identityFingerprint(ev.host));
    // Any event of such a host may join the timeline: a repeat that reached Kafka twice is skipped.
    return { timeline: true };
  },
  apply(ev, work) {
    const v = ev.identity;
    if (v.kind !== 'conflict') return;
    const seen = {
      agent_instance_id: v.agent_instance_id,
      key_id: v.key_id,
      event_id: ev.self.event_id,
      received_at: ev.receivedAt.toISOString(),
    };
    work.correlate({
      host: ev.host,
      type: HOST_IDENTITY_CONFLICT_TYPE,
      rule: HOST_IDENTITY_RULE,
      severity: 'high',
      title: `Another agent speaks for ${ev.host}`,
      at: ev.receivedAt,
      matchAt: ev.receivedAt,
      windowMs: ev.settings.problemCorrelationWindowMinutes * 60_000,
      liveMatchTime: (p) => p.last_seen,
      seed: `${ev.self.event_id}:${HOST_IDENTITY_CONFLICT_TYPE}:${HOST_IDENTITY_RULE}`,
      timeline: [{ ...ev.self, severity: 'high' }],
      details: (previous) => {
        const recent = ((previous?.recent as unknown[]) ?? []).slice(-(KEEP - 1));
        return { ...(previous ?? {}), bound: v.bound, latest: seen, recent: [...recent, seen] };
      },
    });
  },
};
