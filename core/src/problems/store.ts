// The problems table as every role reads and writes it (correlate, the liveness scan, the API's
// acknowledge/resolve and reads): its columns, the row type, the timeline entry, and the outbox write
// that announces a new or reopened problem on problems.v1.
import type { PoolClient } from '@watchpost/runtime';
import { problemMessage, type ProblemMessageKind, type ProblemPayload, type Severity } from '@watchpost/schemas';
import type { ProblemState } from './state.ts';

const COLUMNS = [
  'status',
  'type',
  'fingerprint',
  'host',
  'rule',
  'title',
  'severity',
  'count',
  'created_at',
  'last_seen',
  'acknowledged_at',
  'acknowledged_by',
  'resolved_at',
  'resolved_by',
  'resolved_by_user',
  'rdg_flap',
  'reopened_count',
  'details',
] as const;

/** The select list of a full problem row (`alias` for joins); id comes back as text. */
export function problemColumns(alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return [`${a}id::text AS id`, ...COLUMNS.map((c) => `${a}${c}`)].join(', ');
}

export interface ProblemRow extends ProblemState {
  id: string;
  fingerprint: string;
  host: string;
  rule: string;
  title: string;
  severity: Severity;
  count: number;
  created_at: Date;
  last_seen: Date;
  rdg_flap: boolean;
  reopened_count: number;
  details: Record<string, unknown>;
}

/** One entry of a problem's timeline (table problem_events). */
export interface TimelineEvent {
  event_id: string;
  occurred_at: Date;
  received_at: Date;
  type: string;
  severity: string;
  title: string;
}

/** The problems.v1 payload of a problem row. */
export function problemPayload(
  p: Pick<ProblemRow, 'id' | 'fingerprint' | 'host' | 'type' | 'rule' | 'title' | 'severity' | 'rdg_flap' | 'details'> & {
    created_at: Date;
  },
): ProblemPayload {
  return {
    id: p.id,
    fingerprint: p.fingerprint,
    host: p.host,
    type: p.type,
    rule: p.rule,
    title: p.title,
    severity: p.severity,
    rdg_flap: p.rdg_flap,
    created_at: p.created_at.toISOString(),
    details: p.details,
  };
}

/** Outbox row in the transaction that opened (or reopened) the problem; the relay sends it to problems.v1. */
export async function enqueueProblemMessage(
  c: PoolClient,
  kind: ProblemMessageKind,
  problem: ProblemPayload,
  at: Date,
  reopenedCount = 0,
): Promise<void> {
  const m = problemMessage(kind, problem, reopenedCount);
  await c.query(
    `INSERT INTO problem_outbox (message_id, problem_id, kind, payload, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (message_id) DO NOTHING`,
    [m.message_id, problem.id, kind, JSON.stringify(m), at],
  );
}
