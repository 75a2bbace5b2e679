// The problem store: the problems table as every role reads and writes it (correlate, the liveness
// scan, the API's acknowledge/resolve and reads). Its columns and row type, the timeline entry, and the
// writes, all set-based (one statement for any number of rows): lock the live problems of some
// fingerprints, open problems together with their problems.v1 outbox rows, update problems (extend:
// count += n, last_seen = max; state changes from the state machine), and append timeline rows.
import { createHash } from 'node:crypto';
import type { PoolClient } from '@watchpost/runtime';
import {
  problemMessage,
  type ProblemMessage,
  type ProblemMessageKind,
  type ProblemPayload,
  type Severity,
} from '@watchpost/schemas';
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

/** A problem's fingerprint: one live problem per host, type and rule. */
export function fingerprintOf(host: string, type: string, rule: string): string {
  return `${host}|${type}|${rule}`;
}

/** Deterministic problem id (UUID layout) from a seed, e.g. the opening event id and the rule. */
export function deterministicUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version nibble 5 (name-based)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

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

/** A problem as it opens: open, seen once at `at`, never acknowledged, resolved or reopened. */
export function newProblemRow(
  p: Pick<ProblemRow, 'id' | 'fingerprint' | 'host' | 'type' | 'rule' | 'title' | 'severity' | 'details'> & { at: Date },
): ProblemRow {
  const { at, ...rest } = p;
  return {
    ...rest,
    status: 'open',
    count: 1,
    created_at: at,
    last_seen: at,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    resolved_by_user: null,
    rdg_flap: false,
    reopened_count: 0,
  };
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

/** One problems.v1 message to write to the outbox (created_at = `at`). */
export interface OutboxEntry {
  message: ProblemMessage;
  at: Date;
}

export function outboxEntry(kind: ProblemMessageKind, problem: ProblemPayload, at: Date, reopenedCount = 0): OutboxEntry {
  return { message: problemMessage(kind, problem, reopenedCount), at };
}

/** Outbox rows in the transaction that opened (or reopened) the problems; the relay sends them to problems.v1. */
export async function enqueueProblemMessages(c: PoolClient, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await c.query(
    `INSERT INTO problem_outbox (message_id, problem_id, kind, payload, created_at)
     SELECT message_id, problem_id, kind, payload, created_at
       FROM json_to_recordset($1::json) AS t(message_id text, problem_id uuid, kind text, payload jsonb, created_at timestamptz)
     ON CONFLICT (message_id) DO NOTHING`,
    [
      JSON.stringify(
        entries.map((e) => ({
          message_id: e.message.message_id,
          problem_id: e.message.problem.id,
          kind: e.message.kind,
          payload: e.message,
          created_at: e.at,
        })),
      ),
    ],
  );
}

/** One outbox row (see enqueueProblemMessages). */
export async function enqueueProblemMessage(
  c: PoolClient,
  kind: ProblemMessageKind,
  problem: ProblemPayload,
  at: Date,
  reopenedCount = 0,
): Promise<void> {
  await enqueueProblemMessages(c, [outboxEntry(kind, problem, at, reopenedCount)]);
}

const LIVE = `status IN ('open', 'acknowledged')`;

/** The live (open or acknowledged) problems of these fingerprints, locked FOR UPDATE, by fingerprint. */
export async function lockLiveProblems(c: PoolClient, fingerprints: readonly string[]): Promise<Map<string, ProblemRow>> {
  const out = new Map<string, ProblemRow>();
  if (fingerprints.length === 0) return out;
  const r = await c.query<ProblemRow>(
    `SELECT ${problemColumns()} FROM problems WHERE fingerprint = ANY($1::text[]) AND ${LIVE} ORDER BY fingerprint FOR UPDATE`,
    [[...new Set(fingerprints)]],
  );
  for (const p of r.rows) out.set(p.fingerprint, p);
  return out;
}

/** One problem row, locked FOR UPDATE (the API's actions). */
export async function lockProblem(c: PoolClient, id: string): Promise<ProblemRow | null> {
  const r = await c.query<ProblemRow>(`SELECT ${problemColumns()} FROM problems WHERE id = $1 FOR UPDATE`, [id]);
  return r.rows[0] ?? null;
}

/** Several problems, locked FOR UPDATE in id order (one lock order for every caller: no deadlock between two bulk acts). */
export async function lockProblems(c: PoolClient, ids: readonly string[]): Promise<Map<string, ProblemRow>> {
  const out = new Map<string, ProblemRow>();
  if (ids.length === 0) return out;
  const r = await c.query<ProblemRow>(
    `SELECT ${problemColumns()} FROM problems WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [[...new Set(ids)]],
  );
  for (const p of r.rows) out.set(p.id, p);
  return out;
}

/** The latest host_silence-like problem of a host and type, locked (live first, then the latest resolved). */
export async function lockLatestProblem(c: PoolClient, host: string, type: string): Promise<ProblemRow | null> {
  const r = await c.query<ProblemRow>(
    `SELECT ${problemColumns()} FROM problems WHERE host = $1 AND type = $2
     ORDER BY (status <> 'resolved') DESC, COALESCE(resolved_at, last_seen) DESC LIMIT 1 FOR UPDATE`,
    [host, type],
  );
  return r.rows[0] ?? null;
}

const PROBLEM_RECORD = `id uuid, status text, fingerprint text, host text, type text, rule text, title text, severity text,
  count integer, created_at timestamptz, last_seen timestamptz, acknowledged_at timestamptz, acknowledged_by text,
  resolved_at timestamptz, resolved_by text, resolved_by_user text, reopened_count integer, rdg_flap boolean, details jsonb`;
const INSERT_COLUMNS = `id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen, acknowledged_at,
  acknowledged_by, resolved_at, resolved_by, resolved_by_user, reopened_count, rdg_flap, details`;

/**
 * Opens problems: one INSERT of their rows (in their final state for this transaction) and one of
 * their outbox messages. `onConflictDoNothing` (the scan's race with another scanner) returns the ids
 * that were inserted; only their messages are written.
 */
export async function openProblems(
  c: PoolClient,
  rows: readonly ProblemRow[],
  messages: readonly OutboxEntry[],
  opts: { onConflictDoNothing?: boolean } = {},
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const r = await c.query<{ id: string }>(
    `INSERT INTO problems (${INSERT_COLUMNS})
     SELECT ${INSERT_COLUMNS} FROM json_to_recordset($1::json) AS t(${PROBLEM_RECORD})
     ${opts.onConflictDoNothing ? 'ON CONFLICT DO NOTHING' : ''} RETURNING id::text`,
    [JSON.stringify(rows)],
  );
  const inserted = new Set(r.rows.map((x) => x.id));
  await enqueueProblemMessages(
    c,
    messages.filter((m) => inserted.has(m.message.problem.id)),
  );
  return inserted;
}

/** A change of an existing problem: its new state, and how many events it took since it was read. */
export interface ProblemUpdate {
  row: ProblemRow;
  /** Added to the stored count (extend: the events it took; reopen: 1). */
  countDelta: number;
}

/**
 * Writes changed problems in one UPDATE: count += countDelta, last_seen = the later of stored and
 * new, and status, acknowledgement, resolution, severity, reopened_count and details as given (the
 * caller holds the row lock and computed them through the state machine and the rules).
 */
export async function updateProblems(c: PoolClient, updates: readonly ProblemUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  await c.query(
    `UPDATE problems p SET count = p.count + u.count_delta, last_seen = GREATEST(p.last_seen, u.last_seen),
       status = u.status, severity = u.severity, details = u.details, reopened_count = u.reopened_count,
       acknowledged_at = u.acknowledged_at, acknowledged_by = u.acknowledged_by,
       resolved_at = u.resolved_at, resolved_by = u.resolved_by, resolved_by_user = u.resolved_by_user
     FROM json_to_recordset($1::json) AS u(id uuid, count_delta integer, last_seen timestamptz, status text, severity text,
       details jsonb, reopened_count integer, acknowledged_at timestamptz, acknowledged_by text, resolved_at timestamptz,
       resolved_by text, resolved_by_user text)
     WHERE p.id = u.id`,
    [
      JSON.stringify(
        updates.map(({ row: p, countDelta }) => ({
          id: p.id,
          count_delta: countDelta,
          last_seen: p.last_seen,
          status: p.status,
          severity: p.severity,
          details: p.details,
          reopened_count: p.reopened_count,
          acknowledged_at: p.acknowledged_at,
          acknowledged_by: p.acknowledged_by,
          resolved_at: p.resolved_at,
          resolved_by: p.resolved_by,
          resolved_by_user: p.resolved_by_user,
        })),
      ),
    ],
  );
}

/** An operator's act (acknowledge or resolve) to write: the new state and the operator's optional message. */
export interface OperatorWrite {
  id: string;
  state: ProblemState;
  /** Stored as acknowledged_message (acknowledge) or resolved_message (resolve); null clears it. */
  message: string | null;
  kind: 'acknowledge' | 'resolve';
}

/** Writes operator acts (the API's acknowledge/resolve, one or many) in one UPDATE, with their messages. */
export async function writeOperatorActs(c: PoolClient, writes: readonly OperatorWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await c.query(
    `UPDATE problems p SET status = u.status, acknowledged_at = u.acknowledged_at, acknowledged_by = u.acknowledged_by,
       resolved_at = u.resolved_at, resolved_by = u.resolved_by, resolved_by_user = u.resolved_by_user,
       acknowledged_message = CASE WHEN u.kind = 'acknowledge' THEN u.message ELSE p.acknowledged_message END,
       resolved_message = CASE WHEN u.kind = 'resolve' THEN u.message ELSE p.resolved_message END
     FROM json_to_recordset($1::json) AS u(id uuid, kind text, message text, status text, acknowledged_at timestamptz,
       acknowledged_by text, resolved_at timestamptz, resolved_by text, resolved_by_user text)
     WHERE p.id = u.id`,
    [
      JSON.stringify(
        writes.map(({ id, kind, message, state: n }) => ({
          id,
          kind,
          message,
          status: n.status,
          acknowledged_at: n.acknowledged_at,
          acknowledged_by: n.acknowledged_by,
          resolved_at: n.resolved_at,
          resolved_by: n.resolved_by,
          resolved_by_user: n.resolved_by_user,
        })),
      ),
    ],
  );
}

/** Writes the state-machine fields of one problem (the API's acknowledge/resolve). */
export async function writeProblemState(c: PoolClient, id: string, n: ProblemState): Promise<void> {
  await c.query(
    `UPDATE problems SET status = $2, acknowledged_at = $3, acknowledged_by = $4, resolved_at = $5, resolved_by = $6, resolved_by_user = $7
      WHERE id = $1`,
    [id, n.status, n.acknowledged_at, n.acknowledged_by, n.resolved_at, n.resolved_by, n.resolved_by_user],
  );
}

/** A timeline row (problem_events). */
export interface TimelineRow extends TimelineEvent {
  problem_id: string;
}

/** Appends timeline rows in one INSERT; a row already there (same problem and event) is kept. */
export async function insertTimeline(c: PoolClient, rows: readonly TimelineRow[]): Promise<void> {
  if (rows.length === 0) return;
  await c.query(
    `INSERT INTO problem_events (problem_id, event_id, occurred_at, received_at, type, severity, title)
     SELECT problem_id, event_id, occurred_at, received_at, type, severity, title
       FROM json_to_recordset($1::json) AS t(problem_id uuid, event_id uuid, occurred_at timestamptz, received_at timestamptz,
         type text, severity text, title text)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/**
 * Which of these event ids were applied before: on some problem's timeline, or in the processed_events
 * ledger (gateway events consumed by a pair, which leave no timeline row when the pair is no flap).
 */
export async function eventsApplied(c: PoolClient, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const r = await c.query<{ event_id: string }>(
    `SELECT event_id::text AS event_id FROM problem_events WHERE event_id = ANY($1::uuid[])
     UNION SELECT event_id::text FROM processed_events WHERE event_id = ANY($1::uuid[])`,
    [eventIds],
  );
  return new Set(r.rows.map((x) => x.event_id));
}

/** Records event ids in the processed_events ledger (in the transaction of their effects). */
export async function recordApplied(c: PoolClient, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await c.query('INSERT INTO processed_events (event_id) SELECT unnest($1::uuid[]) ON CONFLICT (event_id) DO NOTHING', [
    eventIds,
  ]);
}
