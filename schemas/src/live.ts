// Live dashboard messages on the Redis channel `live.v1` (published by the stream processor and by
// the API's problem actions; the API's SSE endpoint sends each as one frame named after `kind`).
import type { Severity } from './event-v1.ts';

export const LIVE_KINDS = ['events', 'problems', 'hosts'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

/** Increments of the dashboard counters for one batch of ingested events. */
export interface LiveEventsMessage {
  kind: 'events';
  at: string;
  total: number;
  severity: Record<Severity, number>;
  daily_reports: number;
  heartbeats: number;
}

export type LiveProblemAction = 'opened' | 'reopened' | 'acknowledged' | 'resolved';

export interface LiveProblemsMessage {
  kind: 'problems';
  action: LiveProblemAction;
  /** problems.v1 message id (opened/reopened); absent for operator actions. */
  message_id?: string;
  problem: {
    id: string | null;
    host: string;
    type: string;
    title: string;
    severity: string;
    rdg_flap?: boolean;
    status?: string;
    created_at: string | null;
  };
}

export type HostStatus = 'online' | 'stale';

export interface LiveHostsMessage {
  kind: 'hosts';
  at: string;
  hostname: string;
  status: HostStatus | 'removed';
  /** null for a host seen for the first time */
  previous: HostStatus | null;
  counts: { total: number; online: number; stale: number };
}

export type LiveMessage = LiveEventsMessage | LiveProblemsMessage | LiveHostsMessage;
