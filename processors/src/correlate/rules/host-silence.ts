// host_silence, event side: a heartbeat or daily report closes the host's live host_silence problem
// automatically (also an acknowledged one). The opening side is the liveness scan (../liveness.ts).
import { HOST_SILENCE_TYPE } from '@watchpost/core/problems';
import { SILENCE_RULE, fingerprintOf, isLivenessType } from '../rules.ts';
import type { Rule } from './rule.ts';

export const silenceFingerprint = (host: string) => fingerprintOf(host, HOST_SILENCE_TYPE, SILENCE_RULE);

export const hostSilenceRule: Rule = {
  name: 'host_silence',
  needs(ev, needs) {
    if (isLivenessType(ev.e.type)) needs.fingerprints.add(silenceFingerprint(ev.host));
    return { timeline: false };
  },
  apply(ev, work) {
    if (isLivenessType(ev.e.type)) work.autoResolve(silenceFingerprint(ev.host), ev.receivedAt, { resolve_reason: 'heartbeat' });
  },
};
