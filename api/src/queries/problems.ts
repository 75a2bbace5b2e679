// Problems reads and operator actions (Postgres; tables from the correlate migration 1000000000200).
// Severity is shown after the per-type override; problems of hidden types are left out of lists and
// counts. Acknowledge/resolve (one or many) go through the shared state machine; a refusal becomes HTTP 409
// (one) or a refused entry of the bulk answer (many). The operator's optional message is stored with the act.
import type { Pool } from '@watchpost/runtime';
import { withTransaction } from '@watchpost/runtime';
import {
  PROBLEM_STATUSES,
  lockProblems,
  problemColumns,
  transition,
  writeOperatorActs,
  type OperatorWrite,
  type ProblemStatus,
  type RefusalReason,
  type TimelineEvent,
} from '@watchpost/core/problems';
import { problemHostJoin } from '@watchpost/core/hosts';
import type { Severity } from '@watchpost/schemas';
import { effectiveSeverity, type TypeSettings } from './type-settings.ts';
import { flapEventIds } from './events.ts';

export { PROBLEM_STATUSES };
export type ProblemStatusName = ProblemStatus;

/** `NOT (col = ANY($n))` with the hidden types as parameter $n (always one parameter). */
export function visibleProblemTypeSql(ts: TypeSettings, col: string, n: number): { text: string; params: unknown[] } {
  return { text: `NOT (${col} = ANY($${n}::text[]))`, params: [[...ts.hidden]] };
}

/** Postgres expression of the severity after the override (`param` = the JSON object of overrides). */
function effectiveSeverityPg(param: string): string {
  return `COALESCE((${param}::jsonb ->> p.type), p.severity)`;
}

/** List orders: a key, `-` first for descending. Ties: newest created first, then id. */
export const PROBLEM_SORTS = [
  'created_at',
  '-created_at',
  'last_seen',
  '-last_seen',
  'count',
  '-count',
  'severity',
  '-severity',
] as const;
export type ProblemSort = (typeof PROBLEM_SORTS)[number];

/** Longest operator message on acknowledge/resolve (the column's CHECK says the same). */
export const PROBLEM_MESSAGE_MAX = 1000;

export interface ProblemFilters {
  statuses?: ProblemStatusName[];
  host?: string;
  /** `rdg.connection` matches the type itself and every `rdg.connection.*` */
  typePrefix?: string;
  severities?: Severity[];
  createdWithinHours?: number;
}

export interface ProblemRow {
  id: string;
  status: ProblemStatusName;
  fingerprint: string;
  host: string;
  host_id: number | null;
  display_name: string | null;
  type: string;
  rule: string;
  title: string;
  severity: string;
  stored_severity: string;
  count: number;
  created_at: string;
  last_seen: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: 'manual' | 'auto' | null;
  resolved_by_user: string | null;
  /** The operator's message on the current acknowledgement / resolution (null when none). */
  acknowledged_message: string | null;
  resolved_message: string | null;
  reopened_count: number;
  rdg_flap: boolean;
  details: Record<string, unknown>;
}

const isoOrNull = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A problems row as pg returns it: the API row before timestamps become ISO strings and severity is overridden. */
type DbProblem = Omit<ProblemRow, 'stored_severity' | 'created_at' | 'last_seen' | 'acknowledged_at' | 'resolved_at'> & {
  created_at: Date;
  last_seen: Date;
  acknowledged_at: Date | null;
  resolved_at: Date | null;
};

const HOST = problemHostJoin('p');
const PROBLEM_COLUMNS = `${problemColumns('p')}, p.acknowledged_message, p.resolved_message, ${HOST.columns}`;

function toRow(r: DbProblem, ts: TypeSettings): ProblemRow {
  return {
    ...r,
    host_id: r.host_id === null ? null : Number(r.host_id),
    severity: effectiveSeverity(ts, r.type, r.severity),
    stored_severity: r.severity,
    created_at: new Date(r.created_at).toISOString(),
    last_seen: new Date(r.last_seen).toISOString(),
    acknowledged_at: isoOrNull(r.acknowledged_at),
    resolved_at: isoOrNull(r.resolved_at),
    // A host_silence reopen clears the timestamps but not the message columns: a message belongs to its act.
    acknowledged_message: r.acknowledged_at ? r.acknowledged_message : null,
    resolved_message: r.resolved_at ? r.resolved_message : null,
  };
}

const overridesJson = (ts: TypeSettings) => JSON.stringify(Object.fromEntries(ts.overrides));

/** Conditions other than status, with their parameters ($1 = hidden types). */
function baseConditions(ts: TypeSettings, f: ProblemFilters, now: Date): { where: string[]; params: unknown[] } {
  const params: unknown[] = [[...ts.hidden]];
  const where = ['NOT (p.type = ANY($1::text[]))'];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.host !== undefined) where.push(`p.host = ${add(f.host)}`);
  if (f.typePrefix !== undefined) {
    const t = f.typePrefix.trim().replace(/\.+$/, '');
    where.push(`(p.type = ${add(t)} OR starts_with(p.type, ${add(t + '.')}))`);
  }
  if (f.severities?.length) where.push(`${effectiveSeverityPg(add(overridesJson(ts)))} = ANY(${add(f.severities)}::text[])`);
  if (f.createdWithinHours !== undefined)
    where.push(`p.created_at >= ${add(new Date(now.getTime() - f.createdWithinHours * 3_600_000))}`);
  return { where, params };
}

export interface ProblemPage {
  total: number;
  page: number;
  page_size: number;
  counts: Record<ProblemStatusName, number>;
  items: ProblemRow[];
}

const SEVERITY_RANK = `CASE %s WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'warning' THEN 2 ELSE 1 END`;

/** ORDER BY of a sort; `overrides` = the parameter holding the severity overrides (severity sorts by the effective one). */
function orderBy(sort: ProblemSort, overrides: () => string): string {
  const desc = sort.startsWith('-');
  const dir = desc ? 'DESC' : 'ASC';
  const key = sort.replace(/^-/, '');
  const expr =
    key === 'severity'
      ? SEVERITY_RANK.replace('%s', effectiveSeverityPg(overrides()))
      : key === 'count'
        ? 'p.count'
        : key === 'last_seen'
          ? 'p.last_seen'
          : 'p.created_at';
  return key === 'created_at' ? `p.created_at ${dir}, p.id` : `${expr} ${dir}, p.created_at DESC, p.id`;
}

/**
 * Problems, newest first (or in `sort` order). Metrics rule: with created_within_hours and no explicit status, the list holds
 * only open and acknowledged problems created in that window; resolved ones of the window are only
 * counted (counts.resolved). `counts` always covers every status under the other filters.
 */
export async function listProblems(
  pg: Pool,
  ts: TypeSettings,
  f: ProblemFilters,
  page: number,
  pageSize: number,
  now = new Date(),
  sort: ProblemSort = '-created_at',
): Promise<ProblemPage> {
  const base = baseConditions(ts, f, now);
  const statuses = f.statuses?.length
    ? f.statuses
    : f.createdWithinHours !== undefined
      ? (['open', 'acknowledged'] as const)
      : undefined;
  const listParams = [...base.params];
  const listWhere = [...base.where];
  if (statuses) {
    listParams.push([...statuses]);
    listWhere.push(`p.status = ANY($${listParams.length}::text[])`);
  }
  const whereText = listWhere.join(' AND ');
  const countParams = [...listParams];
  const order = orderBy(sort, () => {
    listParams.push(overridesJson(ts));
    return `$${listParams.length}`;
  });
  listParams.push(pageSize, (page - 1) * pageSize);
  const [list, total, counts] = await Promise.all([
    pg.query<DbProblem>(
      `SELECT ${PROBLEM_COLUMNS} FROM problems p ${HOST.join}
        WHERE ${whereText} ORDER BY ${order} LIMIT $${listParams.length - 1} OFFSET $${listParams.length}`,
      listParams,
    ),
    pg.query<{ total: number }>(`SELECT count(*)::int AS total FROM problems p WHERE ${whereText}`, countParams),
    pg.query<{ status: ProblemStatusName; n: number }>(
      `SELECT p.status, count(*)::int AS n FROM problems p WHERE ${base.where.join(' AND ')} GROUP BY p.status`,
      base.params,
    ),
  ]);
  const byStatus: Record<ProblemStatusName, number> = { open: 0, acknowledged: 0, resolved: 0 };
  for (const r of counts.rows) byStatus[r.status] = r.n;
  return { total: total.rows[0]!.total, page, page_size: pageSize, counts: byStatus, items: list.rows.map((r) => toRow(r, ts)) };
}

export interface TimelineEntry {
  event_id: string;
  occurred_at: string;
  received_at: string;
  type: string;
  severity: string;
  title: string;
  flap: boolean;
}

export interface ProblemDetail extends ProblemRow {
  timeline: TimelineEntry[];
}

export async function getProblem(pg: Pool, ts: TypeSettings, id: string): Promise<ProblemDetail | null> {
  const { rows } = await pg.query<DbProblem>(`SELECT ${PROBLEM_COLUMNS} FROM problems p ${HOST.join} WHERE p.id = $1`, [id]);
  if (!rows[0]) return null;
  const events = await pg.query<TimelineEvent>(
    `SELECT event_id::text AS event_id, occurred_at, received_at, type, severity, title FROM problem_events
      WHERE problem_id = $1 ORDER BY occurred_at, received_at, event_id`,
    [id],
  );
  const flaps = await flapEventIds(
    pg,
    events.rows.map((e) => e.event_id),
  );
  return {
    ...toRow(rows[0], ts),
    timeline: events.rows.map((e) => ({
      event_id: e.event_id,
      occurred_at: new Date(e.occurred_at).toISOString(),
      received_at: new Date(e.received_at).toISOString(),
      type: e.type,
      severity: effectiveSeverity(ts, e.type, e.severity),
      title: e.title,
      flap: flaps.has(e.event_id),
    })),
  };
}

export type ActionOutcome =
  { ok: true } | { ok: false; notFound: true } | { ok: false; notFound: false; reason: RefusalReason; status: ProblemStatusName };

/** One id's outcome of an act on several problems. */
export type BulkOutcome = ActionOutcome & { id: string; previous?: ProblemStatusName };

/**
 * Acknowledge or resolve several problems in one transaction: every row locked (id order), each act through
 * the shared state machine; a problem whose state forbids the act (or that does not exist) is reported and
 * the rest are done. Outcomes come back in the order of `ids` (a repeated id is acted on once).
 */
export async function applyProblemActions(
  pg: Pool,
  ids: readonly string[],
  kind: 'acknowledge' | 'resolve',
  username: string,
  message: string | null = null,
  now = new Date(),
): Promise<BulkOutcome[]> {
  const unique = [...new Set(ids)];
  return withTransaction(pg, async (c) => {
    const current = await lockProblems(c, unique);
    const writes: OperatorWrite[] = [];
    const out: BulkOutcome[] = unique.map((id) => {
      const p = current.get(id);
      if (!p) return { id, ok: false, notFound: true };
      const t = transition(p, { kind, by: username }, now);
      if (!t.ok) return { id, ok: false, notFound: false, reason: t.reason, status: p.status };
      writes.push({ id, kind, message, state: t.next });
      return { id, ok: true, previous: p.status };
    });
    await writeOperatorActs(c, writes);
    return out;
  });
}

/** Acknowledge or resolve one problem under a row lock, through the shared state machine and problem store. */
export async function applyProblemAction(
  pg: Pool,
  id: string,
  kind: 'acknowledge' | 'resolve',
  username: string,
  message: string | null = null,
  now = new Date(),
): Promise<ActionOutcome> {
  const [r] = await applyProblemActions(pg, [id], kind, username, message, now);
  const { id: _id, previous: _p, ...outcome } = r!;
  return outcome;
}
