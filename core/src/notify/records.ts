// Decisions and deliveries in Postgres: what the policy chose for a trigger, and each delivery's state
// (queued -> sending -> sent | failed; a retryable failure goes back to queued). The delivery id is the
// BullMQ job id, and a delivery already `sent` is never sent again, whoever replays it.
import type { Pool, PoolClient } from '@watchpost/runtime';
import type { NotificationSubject, NotifyChannel, NotifyRule } from '@watchpost/schemas';
import { pgSafeJson } from '../pg-safe.ts';
import { deliveryId, type Decision, type Route } from './policy.ts';

export interface DecisionInput {
  subjectKey: string;
  subjectKind: string;
  subjectId: string;
  decision: Decision;
  /** What the deliveries' jobs carry: kept so that a job Redis lost can be queued again (requeue sweep). */
  subject?: NotificationSubject;
}

export interface QueuedDelivery {
  id: string;
  subject_key: string;
  rule: NotifyRule;
  channel: NotifyChannel;
  destination: string;
}

/**
 * Records the decisions that matched a rule and their deliveries (existing rows are kept: a replay
 * changes nothing) and returns every delivery of these subjects that is not finished yet, to enqueue.
 */
export async function recordDecisions(db: Pool | PoolClient, items: DecisionInput[]): Promise<QueuedDelivery[]> {
  const matched = items.filter((i) => i.decision.rule !== null);
  if (matched.length === 0) return [];
  const deliveries = matched.flatMap((i) =>
    i.decision.routes
      .filter((r) => r.chosen)
      .map((r) => ({
        id: deliveryId(i.subjectKey, r.channel, r.destination),
        subject_key: i.subjectKey,
        rule: i.decision.rule,
        channel: r.channel,
        destination: r.destination,
      })),
  );
  await db.query(
    `INSERT INTO notification_decisions (subject_key, subject_kind, subject_id, rule, reason, routes, subject)
     SELECT x.subject_key, x.subject_kind, x.subject_id, x.rule, x.reason, x.routes, x.subject
       FROM jsonb_to_recordset($1::jsonb) AS x(subject_key text, subject_kind text, subject_id text, rule text, reason text, routes jsonb, subject jsonb)
     ON CONFLICT (subject_key) DO NOTHING`,
    [
      // Reasons quote agent-sent values (a routing attribute): NUL or a lone surrogate must not fail the batch.
      JSON.stringify(
        pgSafeJson(
          matched.map((i) => ({
            subject_key: i.subjectKey,
            subject_kind: i.subjectKind,
            subject_id: i.subjectId,
            rule: i.decision.rule,
            reason: i.decision.reason,
            routes: i.decision.routes,
            subject: i.subject ?? null,
          })),
        ),
      ),
    ],
  );
  if (deliveries.length === 0) return [];
  const r = await db.query<QueuedDelivery>(
    `WITH ins AS (
       INSERT INTO notification_deliveries (id, subject_key, rule, channel, destination)
       SELECT x.id, x.subject_key, x.rule, x.channel, x.destination
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, subject_key text, rule text, channel text, destination text)
       ON CONFLICT (id) DO NOTHING
       RETURNING id)
     SELECT d.id, d.subject_key, d.rule, d.channel, d.destination
       FROM jsonb_to_recordset($1::jsonb) AS d(id text, subject_key text, rule text, channel text, destination text)
       LEFT JOIN notification_deliveries o ON o.id = d.id
      WHERE o.id IS NULL OR o.state IN ('queued', 'sending')`,
    [JSON.stringify(pgSafeJson(deliveries))],
  );
  return r.rows;
}

export type AttemptStart =
  | { go: true; attempts: number }
  | { go: false; state: 'sent' | 'failed' | 'missing' }
  /** Another worker's attempt holds the delivery (it may be sending it right now): try again later. */
  | { go: false; state: 'busy' };

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Marks a delivery as being sent, inside the caller's open transaction, which holds the delivery's row
 * lock until the outcome is recorded and committed. A delivery already sent (or finally failed) is not
 * sent again. The lock is the fence against a zombie: a worker paused mid-send (GC, VM stall, SIGSTOP)
 * past its job lock keeps its Postgres session, so the worker that takes the stalled job over gets
 * `busy` instead of sending a second time; a worker that died loses its session and with it the lock.
 */
export async function beginDelivery(tx: PoolClient, id: string): Promise<AttemptStart> {
  let state: string | undefined;
  try {
    const r = await tx.query<{ state: string }>('SELECT state FROM notification_deliveries WHERE id = $1 FOR UPDATE NOWAIT', [
      id,
    ]);
    state = r.rows[0]?.state;
  } catch (err) {
    if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return { go: false, state: 'busy' };
    throw err;
  }
  if (state === undefined) return { go: false, state: 'missing' };
  if (state === 'sent' || state === 'failed') return { go: false, state };
  const r = await tx.query<{ attempts: number }>(
    `UPDATE notification_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = now() WHERE id = $1 RETURNING attempts`,
    [id],
  );
  return { go: true, attempts: r.rows[0]!.attempts };
}

export async function finishDelivery(
  pg: Pool | PoolClient,
  id: string,
  outcome: { ok: true; response: string } | { ok: false; error: string; final: boolean },
): Promise<void> {
  if (outcome.ok)
    await pg.query(
      `UPDATE notification_deliveries SET state = 'sent', response = $2, last_error = NULL, sent_at = now(), updated_at = now() WHERE id = $1`,
      [id, outcome.response.slice(0, 2000)],
    );
  else
    // never over a `sent` an earlier, crashed attempt already recorded
    await pg.query(
      `UPDATE notification_deliveries SET state = $2, last_error = $3, updated_at = now() WHERE id = $1 AND state <> 'sent'`,
      [id, outcome.final ? 'failed' : 'queued', outcome.error.slice(0, 2000)],
    );
}

export interface DeliveryRow {
  id: string;
  subject_key: string;
  rule: string;
  channel: string;
  destination: string;
  state: string;
  attempts: number;
  last_error: string | null;
  response: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
}
export interface DecisionRow {
  subject_key: string;
  subject_kind: string;
  subject_id: string;
  rule: string;
  reason: string;
  routes: Route[];
  created_at: Date;
}

/** Recorded decisions for a subject (an event has one; a problem one per opening) with their deliveries. */
export async function loadDecisions(
  pg: Pool,
  subjectKind: string,
  subjectId: string,
): Promise<(DecisionRow & { deliveries: DeliveryRow[] })[]> {
  const d = await pg.query<DecisionRow>(
    `SELECT subject_key, subject_kind, subject_id, rule, reason, routes, created_at
       FROM notification_decisions WHERE subject_kind = $1 AND subject_id = $2 ORDER BY created_at`,
    [subjectKind, subjectId],
  );
  if (d.rows.length === 0) return [];
  const del = await pg.query<DeliveryRow>(
    `SELECT id, subject_key, rule, channel, destination, state, attempts, last_error, response, created_at, updated_at, sent_at
       FROM notification_deliveries WHERE subject_key = ANY($1) ORDER BY channel, destination`,
    [d.rows.map((x) => x.subject_key)],
  );
  return d.rows.map((x) => ({ ...x, deliveries: del.rows.filter((y) => y.subject_key === x.subject_key) }));
}

export async function listDeliveries(
  pg: Pool,
  f: { state?: string; channel?: string; limit: number; beforeUpdatedAt?: Date },
): Promise<DeliveryRow[]> {
  const r = await pg.query<DeliveryRow>(
    `SELECT id, subject_key, rule, channel, destination, state, attempts, last_error, response, created_at, updated_at, sent_at
       FROM notification_deliveries
      WHERE ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR channel = $2) AND ($3::timestamptz IS NULL OR updated_at < $3)
      ORDER BY updated_at DESC LIMIT $4`,
    [f.state ?? null, f.channel ?? null, f.beforeUpdatedAt ?? null, f.limit],
  );
  return r.rows;
}
