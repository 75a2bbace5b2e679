// The actions table: one row per remote action, created queued by the API, completed by the worker.
// Every completion is also written to the audit log (`action.<kind>`), with who, host, result and duration.
import type { Pool } from '@watchpost/runtime';
import type { ActionKind } from '@watchpost/schemas';
import { audit } from '../audit.ts';

export type ActionStatus = 'queued' | 'running' | 'succeeded' | 'failed';
/**
 * How a Windows session action reached the host: over WinRM from the actions worker, or as commands
 * queued for the host's bound rdp-login-monitor agent (its command poll). Null for the other kinds.
 */
export type ActionTransport = 'winrm' | 'agent';

export interface ActionRecord {
  id: number;
  kind: ActionKind;
  host_id: number | null;
  hostname: string | null;
  actor: string;
  address: string | null;
  params: Record<string, unknown>;
  status: ActionStatus;
  transport: ActionTransport | null;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

interface Row extends Omit<ActionRecord, 'created_at' | 'started_at' | 'finished_at'> {
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const view = (r: Row): ActionRecord => ({
  ...r,
  id: Number(r.id),
  host_id: r.host_id === null ? null : Number(r.host_id),
  created_at: r.created_at.toISOString(),
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

const COLUMNS =
  'id, kind, host_id, hostname, actor, address, params, status, transport, result, error, created_at, started_at, finished_at, duration_ms';

export async function createAction(
  pg: Pool,
  a: {
    kind: ActionKind;
    hostId: number | null;
    hostname: string | null;
    actor: string;
    address: string | null;
    params: object;
    /** its job without the action id (the row's): kept so that a job Redis lost can be queued again */
    job?: object;
  },
): Promise<ActionRecord> {
  // A WinRM kind starts on WinRM; the worker hands it to the agent when WinRM cannot run it (handToAgent).
  const transport: ActionTransport | null = a.kind.startsWith('winrm.') ? 'winrm' : null;
  const r = await pg.query<Row>(
    `INSERT INTO actions (kind, host_id, hostname, actor, address, params, transport, job) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING ${COLUMNS}`,
    [a.kind, a.hostId, a.hostname, a.actor, a.address, JSON.stringify(a.params), transport, a.job ? JSON.stringify(a.job) : null],
  );
  return view(r.rows[0]!);
}

export async function getAction(pg: Pool, id: number): Promise<ActionRecord | null> {
  const r = await pg.query<Row>(`SELECT ${COLUMNS} FROM actions WHERE id = $1`, [id]);
  return r.rows[0] ? view(r.rows[0]) : null;
}

export async function listActions(
  pg: Pool,
  q: { hostId?: number; kind?: string; beforeId?: number; limit: number },
): Promise<ActionRecord[]> {
  const r = await pg.query<Row>(
    `SELECT ${COLUMNS} FROM actions
      WHERE ($1::bigint IS NULL OR host_id = $1) AND ($2::text IS NULL OR kind = $2) AND ($3::bigint IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [q.hostId ?? null, q.kind ?? null, q.beforeId ?? null, q.limit],
  );
  return r.rows.map(view);
}

/** queued -> running; false when the action is not queued any more (a retried job that already ran). */
export async function startAction(pg: Pool, id: number): Promise<boolean> {
  const r = await pg.query("UPDATE actions SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'", [id]);
  return (r.rowCount ?? 0) === 1;
}

/**
 * The action goes through the host's agent: transport `agent`, status `queued` (waiting for the agent's
 * poll) and, until it finishes, result `{transport_reason}` (why not WinRM). False when it is final already.
 */
export async function handToAgent(pg: Pool, id: number, reason: string): Promise<boolean> {
  const r = await pg.query(
    `UPDATE actions SET transport = 'agent', status = 'queued', result = $2 WHERE id = $1 AND status IN ('queued', 'running')`,
    [id, JSON.stringify({ transport_reason: reason })],
  );
  return (r.rowCount ?? 0) === 1;
}

/** An agent action whose command the agent fetched: queued -> running. */
export async function markAgentActionRunning(pg: Pool, id: number): Promise<void> {
  await pg.query(
    "UPDATE actions SET status = 'running', started_at = coalesce(started_at, now()) WHERE id = $1 AND status = 'queued' AND transport = 'agent'",
    [id],
  );
}

/** Agent actions not finished yet, oldest first. */
export async function openAgentActions(pg: Pool, limit = 500): Promise<ActionRecord[]> {
  const r = await pg.query<Row>(
    `SELECT ${COLUMNS} FROM actions WHERE transport = 'agent' AND status IN ('queued', 'running') ORDER BY id LIMIT $1`,
    [limit],
  );
  return r.rows.map(view);
}

/** Writes the outcome (once) and its audit entry. */
export async function finishAction(
  pg: Pool,
  id: number,
  outcome: { ok: true; result: Record<string, unknown> } | { ok: false; error: string; result?: Record<string, unknown> },
): Promise<ActionRecord | null> {
  const r = await pg.query<Row>(
    `UPDATE actions SET status = $2, result = $3, error = $4, finished_at = now(),
            duration_ms = GREATEST(0, (extract(epoch FROM now() - coalesce(started_at, created_at)) * 1000)::int)
      WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${COLUMNS}`,
    [
      id,
      outcome.ok ? 'succeeded' : 'failed',
      outcome.result === undefined ? null : JSON.stringify(outcome.result),
      outcome.ok ? null : outcome.error.slice(0, 4000),
    ],
  );
  const a = r.rows[0] ? view(r.rows[0]) : null;
  if (a) {
    await audit(pg, {
      actor: a.actor,
      address: a.address,
      action: `action.${a.kind}`,
      target: a.hostname,
      details: {
        action_id: a.id,
        host_id: a.host_id,
        params: a.params,
        status: a.status,
        transport: a.transport,
        error: a.error,
        duration_ms: a.duration_ms,
        // the outcome too (a large one, e.g. raw qwinsta output, stays in the action record)
        result: resultForAudit(a.result),
      },
    });
  }
  return a;
}

const AUDIT_RESULT_MAX = 8192;
function resultForAudit(result: unknown): unknown {
  if (result === null || result === undefined) return null;
  const text = JSON.stringify(result);
  return text.length <= AUDIT_RESULT_MAX ? result : { truncated: true, bytes: text.length, see: 'GET /api/v1/actions/{id}' };
}
