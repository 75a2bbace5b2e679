// The `problems.v1` message: one per new or reopened problem, written to the problem outbox in the
// transaction that opened it and relayed to Kafka. The relay may send a message twice: consumers
// deduplicate by `message_id`.
import type { Severity } from './event-v1.ts';

export const PROBLEM_MESSAGE_KINDS = ['problem.opened', 'problem.reopened'] as const;
export type ProblemMessageKind = (typeof PROBLEM_MESSAGE_KINDS)[number];

export interface ProblemPayload {
  id: string;
  fingerprint: string;
  host: string;
  type: string;
  rule: string;
  title: string;
  severity: Severity;
  rdg_flap: boolean;
  /** ISO 8601 */
  created_at: string;
  details: Record<string, unknown>;
}

export interface ProblemMessage {
  /** `<problem id>:opened`, or `<problem id>:reopened:<n>` for the n-th reopening. */
  message_id: string;
  kind: ProblemMessageKind;
  problem: ProblemPayload;
}

export function problemMessage(kind: ProblemMessageKind, problem: ProblemPayload, reopenedCount = 0): ProblemMessage {
  const message_id = kind === 'problem.opened' ? `${problem.id}:opened` : `${problem.id}:reopened:${reopenedCount}`;
  return { message_id, kind, problem };
}

/** The message in a problems.v1 value, or null when the value is not one (never throws). */
export function parseProblemMessage(value: Buffer | string | null): ProblemMessage | null {
  if (value === null) return null;
  let m: unknown;
  try {
    m = JSON.parse(value.toString());
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const { message_id, kind, problem } = m as { message_id?: unknown; kind?: unknown; problem?: Record<string, unknown> };
  if (!(PROBLEM_MESSAGE_KINDS as readonly unknown[]).includes(kind)) return null;
  if (typeof problem !== 'object' || problem === null || typeof problem.type !== 'string' || typeof problem.host !== 'string')
    return null;
  return {
    message_id: typeof message_id === 'string' ? message_id : '',
    kind: kind as ProblemMessageKind,
    problem: problem as unknown as ProblemPayload,
  };
}
