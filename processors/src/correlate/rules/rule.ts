// The shape of a correlation rule. Each rule is a module with a pure decision and a small apply:
// needs() says what an event may read (live problems by fingerprint, sessions, inventory), so the
// batch loads and locks all of it at once; apply() runs the event against the batch's working state
// (work.ts), which writes the outcome set-based through core's problem store. A new rule is a new
// module in RULES (rules/index.ts) with its table test.
import type { Severity } from '@watchpost/schemas';
import type { IdentityVerdict } from '@watchpost/core/hosts';
import type { TimelineEvent } from '@watchpost/core/problems';
import type { CorrelateEnvelope, CorrelateEvent } from '../rules.ts';
import type { BatchWork, Needs } from '../work.ts';

export interface CorrelateSettings {
  problemCorrelationWindowMinutes: number;
  problemMinSeverity: Severity;
  /** Heartbeat interval per product (minutes, HeartbeatPolicy.defaults); absent: the agents' own (DEFAULT_HEARTBEAT_MINUTES). */
  heartbeatDefaults?: Readonly<Record<string, number>>;
}

/** One event as the rules see it (made safe for Postgres, times parsed, severity after the override). */
export interface EventCtx {
  env: CorrelateEnvelope;
  e: CorrelateEvent;
  host: string;
  receivedAt: Date;
  /** The agent's own clock, as sent: only for intervals on one host's clock (flap spacing and pairing). */
  occurredAt: Date;
  /** Where the event sits in time (core's windowTime: occurred_at while plausible, else received_at). */
  windowAt: Date;
  /** Effective severity (event_type_settings override, else the event's). */
  severity: Severity;
  /** The event as a timeline entry. */
  self: TimelineEvent;
  settings: CorrelateSettings;
  /** A conflict with the host's binding is possible in this batch (core's identitySuspects): load its identity problem. */
  identitySuspect: boolean;
  /** What the event is to the host's binding (core's planHosts), set before apply(). */
  identity: IdentityVerdict;
}

export interface Rule {
  readonly name: string;
  /** What this event may read or lock; `timeline` = it may put the event on a problem's timeline. */
  needs(ev: EventCtx, needs: Needs): { timeline: boolean };
  /** Applies the event to the batch's working state (in offset order). */
  apply(ev: EventCtx, work: BatchWork): void;
}
