// Pending changes of a host (table host_changes, issue 21): what correlate saw that differs from the
// host's confirmed facts (kind facts), another agent instance or key speaking for a bound host (identity),
// and a WinRM certificate that differs from the pinned one (winrm_certificate). Remote actions rely only
// on the confirmed values, so nothing here changes the hosts row until an admin accepts. The admin lists
// them and accepts (applies `proposed` to the hosts row) or rejects them, one by one or in bulk.
// A bulk accept applies only what the admin saw (issue 33 item 4): each change named with the proposal
// shown, and never an identity or certificate change (ONE_BY_ONE_KINDS); a bulk reject changes nothing
// on a host and may name ids or everything under a filter.
//
// A decision (one change or a bulk) is ONE transaction: it locks the hosts first, in hostname order as
// correlate's upsert does (so it never deadlocks with correlate), then the change rows, and applies only
// the rows still pending: two admins deciding the same change apply it once, the other gets a conflict.
import type { Pool, PoolClient } from '@watchpost/runtime';
import { withTransaction } from '@watchpost/runtime';
import { audit } from '../audit.ts';
import { transition } from '../problems/state.ts';
import { lockLatestProblem, writeProblemState, type ProblemRow } from '../problems/store.ts';
import { HOST_IDENTITY_CONFLICT_TYPE } from './binding.ts';
import { likeContains } from './reads.ts';

type Db = Pool | PoolClient;

export const HOST_CHANGE_KINDS = ['facts', 'identity', 'winrm_certificate'] as const;
export type HostChangeKind = (typeof HOST_CHANGE_KINDS)[number];
export const HOST_CHANGE_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type HostChangeStatus = (typeof HOST_CHANGE_STATUSES)[number];
export type HostChangeDecision = 'accept' | 'reject';

/**
 * Kinds accepted only one by one, never in a bulk accept: accepting an identity change hands the host's
 * command channel to another agent, a certificate change decides who the Windows administrator's
 * credentials go to. Each needs its own look (the fingerprint, the agent it names), not a tick among many.
 */
export const ONE_BY_ONE_KINDS: readonly HostChangeKind[] = ['identity', 'winrm_certificate'];

/** One row of host_changes with its host's names (and the names of the agent keys it mentions). */
export interface HostChange {
  id: number;
  host_id: number;
  hostname: string;
  display_name: string | null;
  kind: HostChangeKind;
  /** What accepting applies. */
  proposed: Record<string, unknown>;
  /** The confirmed values when the change was first seen. */
  current: Record<string, unknown>;
  /** The agent instance and key of the event that proposed it. */
  agent_instance_id: string | null;
  key_id: number | null;
  key_name: string | null;
  /** Name of the key in `current.key_id` (the bound key), for an identity change's "from". */
  current_key_name: string | null;
  event_id: string | null;
  first_seen: Date;
  last_seen: Date;
  seen_count: number;
  status: HostChangeStatus;
  decided_by: string | null;
  decided_at: Date | null;
}

export interface HostChangeFilters {
  /** Default: pending. */
  status?: HostChangeStatus;
  kind?: HostChangeKind;
  hostId?: number;
  /** Case-insensitive substring of the hostname or display name. */
  search?: string;
}

// The key columns are read only when they hold a number (the JSON is correlate's, not the database's).
const keyIdOf = (json: string) =>
  `CASE WHEN jsonb_typeof(${json}->'key_id') = 'number' THEN (${json}->>'key_id')::numeric::bigint END`;
const SELECT = `SELECT c.id, c.host_id, h.hostname, h.display_name, c.kind, c.proposed, c.current, c.agent_instance_id, c.key_id,
    k.name AS key_name, ck.name AS current_key_name, c.event_id::text AS event_id, c.first_seen, c.last_seen, c.seen_count,
    c.status, c.decided_by, c.decided_at
  FROM host_changes c JOIN hosts h ON h.id = c.host_id
  LEFT JOIN api_keys k ON k.id = COALESCE(c.key_id, ${keyIdOf('c.proposed')})
  LEFT JOIN api_keys ck ON ck.id = ${keyIdOf('c.current')}`;

function filterSql(f: HostChangeFilters, params: unknown[]): string {
  params.push(f.status ?? 'pending');
  const where = [`c.status = $${params.length}`];
  if (f.kind) {
    params.push(f.kind);
    where.push(`c.kind = $${params.length}`);
  }
  if (f.hostId !== undefined) {
    params.push(f.hostId);
    where.push(`c.host_id = $${params.length}`);
  }
  if (f.search !== undefined && f.search.trim() !== '') {
    params.push(likeContains(f.search.trim()));
    where.push(`(h.hostname ILIKE $${params.length} OR h.display_name ILIKE $${params.length})`);
  }
  return `WHERE ${where.join(' AND ')}`;
}

/** One page of changes (by hostname, then kind) and the total under the filters. */
export async function listHostChanges(
  db: Db,
  f: HostChangeFilters,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: HostChange[] }> {
  const params: unknown[] = [];
  const w = filterSql(f, params);
  const [rows, total] = await Promise.all([
    db.query<HostChange>(
      `${SELECT} ${w} ORDER BY h.hostname, c.kind, c.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    ),
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM host_changes c JOIN hosts h ON h.id = c.host_id ${w}`,
      params,
    ),
  ]);
  return { total: total.rows[0]!.total, rows: rows.rows };
}

export async function getHostChange(db: Db, id: number): Promise<HostChange | null> {
  const r = await db.query<HostChange>(`${SELECT} WHERE c.id = $1`, [id]);
  return r.rows[0] ?? null;
}

/** Which changes a decision is about. */
export type HostChangeSelector =
  | { ids: readonly number[] }
  /** Each change only while its proposal is still the one given (what the admin saw); else a CHANGED conflict. */
  | { changes: readonly { id: number; proposed: Record<string, unknown> }[] }
  /** Every pending change under the filters (status is ignored), at most `limit` of them (oldest ids first). */
  | { all: Omit<HostChangeFilters, 'status'>; limit: number };

export interface HostChangeOutcome {
  id: number;
  /**
   * accepted/rejected: this call decided it; conflict: no longer pending or changed meanwhile; refused: a
   * bulk accept of a kind accepted one by one only (still pending); not_found: no such change.
   */
  outcome: 'accepted' | 'rejected' | 'conflict' | 'refused' | 'not_found';
  /**
   * ALREADY_DECIDED (another decision came first), CHANGED (the proposal is no longer the one given) or
   * ONE_BY_ONE (refused: an identity or certificate change in a bulk accept).
   */
  reason?: 'ALREADY_DECIDED' | 'CHANGED' | 'ONE_BY_ONE';
  /** The change's status after this call. */
  status?: HostChangeStatus;
  host_id?: number;
  hostname?: string;
  kind?: HostChangeKind;
}

export interface HostChangeDecisionResult {
  outcomes: HostChangeOutcome[];
  /** Pending changes still matching an `all` selector's filters after this call (0 for the other selectors). */
  remaining: number;
  /** host_identity_conflict problems this decision resolved (the caller tells the live view). */
  resolvedProblems: ProblemRow[];
}

export interface DecidedBy {
  username: string;
  /** Client address for the audit log. */
  address: string | null;
}

export interface DecisionOptions {
  /**
   * A bulk call (audited `bulk`): an accept must name each change with its proposal (`changes`), and
   * ONE_BY_ONE_KINDS are refused. The one-change route decides any kind.
   */
  bulk?: boolean;
  now?: Date;
}

/** A bulk accept named changes by id or filter instead of by the proposals the admin saw. */
export class BulkAcceptSelectorError extends Error {
  constructor() {
    super('a bulk accept names each change with the proposal shown (changes: [{id, proposed}]); ids and all: true only reject');
  }
}

interface LockedChange {
  id: number;
  host_id: number;
  hostname: string;
  kind: HostChangeKind;
  proposed: Record<string, unknown>;
  current: Record<string, unknown>;
  agent_instance_id: string | null;
  key_id: number | null;
  status: HostChangeStatus;
  unchanged: boolean;
}

/** What accepting a host's changes writes to its row (a `has_*` flag says the proposal names that field). */
interface HostApply {
  host_id: number;
  os_family: string | null;
  product: string | null;
  has_fqdn: boolean;
  fqdn: string | null;
  has_ipv4: boolean;
  ipv4: string | null;
  has_internal_address: boolean;
  internal_address: string | null;
  has_instance: boolean;
  agent_instance_id: string | null;
  has_key: boolean;
  key_id: number | null;
  bind: boolean;
  /** An admin accepted the host's addresses (facts or identity): the host is confirmed (issue 33). */
  confirm: boolean;
  cert_sha256: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k) && (o[k] === null || typeof o[k] === 'string');

// Facts first, then identity (its facts come from the agent being bound, so they win), then the certificate.
const APPLY_ORDER: Record<HostChangeKind, number> = { facts: 0, identity: 1, winrm_certificate: 2 };

/** Merges a host's accepted changes (in APPLY_ORDER) into what its row gets. */
function hostApplies(changes: readonly LockedChange[]): HostApply[] {
  const byHost = new Map<number, HostApply>();
  for (const c of [...changes].sort((a, b) => APPLY_ORDER[a.kind] - APPLY_ORDER[b.kind])) {
    const a: HostApply = byHost.get(c.host_id) ?? {
      host_id: c.host_id,
      os_family: null,
      product: null,
      has_fqdn: false,
      fqdn: null,
      has_ipv4: false,
      ipv4: null,
      has_internal_address: false,
      internal_address: null,
      has_instance: false,
      agent_instance_id: null,
      has_key: false,
      key_id: null,
      bind: false,
      confirm: false,
      cert_sha256: null,
    };
    byHost.set(c.host_id, a);
    const p = c.proposed;
    if (c.kind === 'winrm_certificate') {
      a.cert_sha256 = text(p.cert_sha256)?.toLowerCase() ?? a.cert_sha256;
      continue;
    }
    a.confirm = true;
    // os_family and product are NOT NULL: only a text value replaces them.
    a.os_family = text(p.os_family) ?? a.os_family;
    a.product = text(p.product) ?? a.product;
    for (const k of ['fqdn', 'ipv4', 'internal_address'] as const) {
      if (!has(p, k)) continue;
      a[`has_${k}`] = true;
      a[k] = text(p[k]);
    }
    if (c.kind === 'identity') {
      // Only the parts the proposal names (correlate leaves out an instance or key the event did not carry).
      a.bind = true;
      if (has(p, 'agent_instance_id')) {
        a.has_instance = true;
        a.agent_instance_id = text(p.agent_instance_id);
      }
      if (p.key_id === null || (typeof p.key_id === 'number' && Number.isSafeInteger(p.key_id))) {
        a.has_key = true;
        a.key_id = p.key_id;
      }
    }
  }
  return [...byHost.values()];
}

async function applyToHosts(c: PoolClient, applies: readonly HostApply[], now: Date, by: string): Promise<void> {
  if (applies.length === 0) return;
  await c.query(
    `UPDATE hosts h SET
       os_family = COALESCE(u.os_family, h.os_family),
       product = COALESCE(u.product, h.product),
       fqdn = CASE WHEN u.has_fqdn THEN u.fqdn ELSE h.fqdn END,
       ipv4 = CASE WHEN u.has_ipv4 THEN u.ipv4 ELSE h.ipv4 END,
       internal_address = CASE WHEN u.has_internal_address THEN u.internal_address ELSE h.internal_address END,
       -- The address an accepted ipv4 replaces stays known (a multi-homed host's other leg: binding.ts),
       -- the newest 8; a new binding (another agent) starts with none.
       known_ipv4 = CASE
         WHEN u.bind THEN '{}'::text[]
         WHEN u.has_ipv4 AND h.ipv4 IS NOT NULL AND u.ipv4 IS DISTINCT FROM h.ipv4
           THEN ARRAY(SELECT a FROM (SELECT a, n FROM unnest(array_remove(array_remove(h.known_ipv4, h.ipv4), u.ipv4) || h.ipv4)
                        WITH ORDINALITY AS x(a, n) ORDER BY n DESC LIMIT 8) y ORDER BY n)
         WHEN u.has_ipv4 THEN array_remove(h.known_ipv4, u.ipv4)
         ELSE h.known_ipv4
       END,
       agent_instance_id = CASE WHEN u.has_instance THEN u.agent_instance_id ELSE h.agent_instance_id END,
       bound_key_id = CASE WHEN u.has_key THEN u.key_id ELSE h.bound_key_id END,
       bound_at = CASE WHEN u.bind THEN $2::timestamptz ELSE h.bound_at END,
       winrm_cert_sha256 = COALESCE(u.cert_sha256, h.winrm_cert_sha256),
       -- The first admin to accept a host's addresses confirms it; later acceptances keep that record.
       confirmed_by = CASE WHEN u.confirm AND h.confirmed_at IS NULL THEN $3 ELSE h.confirmed_by END,
       confirmed_at = CASE WHEN u.confirm AND h.confirmed_at IS NULL THEN $2::timestamptz ELSE h.confirmed_at END
     FROM json_to_recordset($1::json) AS u(host_id bigint, os_family text, product text, has_fqdn boolean, fqdn text,
       has_ipv4 boolean, ipv4 text, has_internal_address boolean, internal_address text, has_instance boolean,
       agent_instance_id text, has_key boolean, key_id bigint, bind boolean, confirm boolean, cert_sha256 text)
     WHERE h.id = u.host_id`,
    [JSON.stringify(applies), now, by],
  );
}

/** Resolves the live host_identity_conflict problems (correlate's identity rule opens them) of these hosts (manual, by the admin), through the problem store. */
async function resolveIdentityConflicts(
  c: PoolClient,
  hostnames: readonly string[],
  by: string,
  now: Date,
): Promise<ProblemRow[]> {
  const out: ProblemRow[] = [];
  for (const host of [...new Set(hostnames)].sort()) {
    // lockLatestProblem answers a live problem first: resolve them until only resolved ones are left.
    for (let i = 0; i < 100; i++) {
      const p = await lockLatestProblem(c, host, HOST_IDENTITY_CONFLICT_TYPE);
      if (!p || p.status === 'resolved') break;
      const t = transition(p, { kind: 'resolve', by }, now);
      if (!t.ok) break;
      await writeProblemState(c, p.id, t.next);
      out.push(t.next);
    }
  }
  return out;
}

/**
 * Accepts or rejects the selected changes in ONE transaction and answers an outcome per change, in the
 * order asked. A bulk accept (opts.bulk) takes only the `changes` selector (else BulkAcceptSelectorError,
 * before anything is read) and refuses ONE_BY_ONE_KINDS (outcome refused, reason ONE_BY_ONE). Accepting
 * applies `proposed` to the hosts row (facts: os_family, product, fqdn, ipv4, internal_address; identity:
 * those and agent_instance_id, bound_key_id = proposed.key_id, bound_at = now; winrm_certificate:
 * winrm_cert_sha256 = proposed.cert_sha256). Rejecting changes nothing on the host (an identity conflict
 * keeps the binding). Deciding an identity change either way resolves the host's live
 * host_identity_conflict problems: the admin has answered the conflict (if the other agent keeps
 * speaking for the host, correlate records it again). Every decision is audited
 * (host.change.accept / host.change.reject).
 */
export async function decideHostChanges(
  pg: Pool,
  selector: HostChangeSelector,
  decision: HostChangeDecision,
  by: DecidedBy,
  opts: DecisionOptions = {},
): Promise<HostChangeDecisionResult> {
  const now = opts.now ?? new Date();
  const bulkAccept = opts.bulk === true && decision === 'accept';
  // What is pending when the call runs may have appeared after the admin looked: never accept it unseen.
  if (bulkAccept && !('changes' in selector)) throw new BulkAcceptSelectorError();
  return withTransaction(pg, async (c) => {
    let ids: number[];
    const expected = new Map<number, Record<string, unknown>>();
    if ('all' in selector) {
      const params: unknown[] = [];
      const w = filterSql({ ...selector.all, status: 'pending' }, params);
      const r = await c.query<{ id: number }>(
        `SELECT c.id FROM host_changes c JOIN hosts h ON h.id = c.host_id ${w} ORDER BY c.id LIMIT $${params.length + 1}`,
        [...params, selector.limit],
      );
      ids = r.rows.map((x) => Number(x.id));
    } else if ('changes' in selector) {
      for (const x of selector.changes) expected.set(x.id, x.proposed);
      ids = [...expected.keys()];
    } else ids = [...new Set(selector.ids)];

    // Hosts first, in correlate's lock order (hostname), then the change rows.
    await c.query(
      `SELECT h.id FROM hosts h WHERE h.id IN (SELECT host_id FROM host_changes WHERE id = ANY($1::bigint[]))
        ORDER BY h.hostname FOR UPDATE`,
      [ids],
    );
    const locked = await c.query<LockedChange>(
      `SELECT c.id, c.host_id, h.hostname, c.kind, c.proposed, c.current, c.agent_instance_id, c.key_id, c.status,
              (e.proposed IS NULL OR e.proposed = c.proposed) AS unchanged
         FROM host_changes c JOIN hosts h ON h.id = c.host_id
         LEFT JOIN json_to_recordset($2::json) AS e(id bigint, proposed jsonb) ON e.id = c.id
        WHERE c.id = ANY($1::bigint[]) ORDER BY c.id FOR UPDATE OF c`,
      [ids, JSON.stringify([...expected].map(([id, proposed]) => ({ id, proposed })))],
    );
    const byId = new Map(locked.rows.map((r) => [Number(r.id), { ...r, id: Number(r.id), host_id: Number(r.host_id) }]));

    const decided: LockedChange[] = [];
    const outcomes = ids.map((id): HostChangeOutcome => {
      const ch = byId.get(id);
      if (!ch) return { id, outcome: 'not_found' };
      const where = { status: ch.status, host_id: ch.host_id, hostname: ch.hostname, kind: ch.kind };
      if (ch.status !== 'pending') return { id, outcome: 'conflict', reason: 'ALREADY_DECIDED', ...where };
      if (!ch.unchanged) return { id, outcome: 'conflict', reason: 'CHANGED', ...where };
      if (bulkAccept && ONE_BY_ONE_KINDS.includes(ch.kind)) return { id, outcome: 'refused', reason: 'ONE_BY_ONE', ...where };
      decided.push(ch);
      return {
        id,
        outcome: decision === 'accept' ? 'accepted' : 'rejected',
        ...where,
        status: decision === 'accept' ? 'accepted' : 'rejected',
      };
    });

    if (decision === 'accept') await applyToHosts(c, hostApplies(decided), now, by.username);
    if (decided.length > 0) {
      await c.query(`UPDATE host_changes SET status = $2, decided_by = $3, decided_at = $4 WHERE id = ANY($1::bigint[])`, [
        decided.map((d) => d.id),
        decision === 'accept' ? 'accepted' : 'rejected',
        by.username,
        now,
      ]);
    }
    const resolvedProblems = await resolveIdentityConflicts(
      c,
      decided.filter((d) => d.kind === 'identity').map((d) => d.hostname),
      by.username,
      now,
    );
    for (const d of decided) {
      await audit(c, {
        actor: by.username,
        address: by.address,
        action: `host.change.${decision}`,
        target: d.hostname,
        details: {
          change_id: d.id,
          host_id: d.host_id,
          kind: d.kind,
          proposed: d.proposed,
          current: d.current,
          agent_instance_id: d.agent_instance_id,
          key_id: d.key_id,
          ...(opts.bulk ? { bulk: true } : {}),
        },
      });
    }

    let remaining = 0;
    if ('all' in selector) {
      const params: unknown[] = [];
      const w = filterSql({ ...selector.all, status: 'pending' }, params);
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM host_changes c JOIN hosts h ON h.id = c.host_id ${w}`,
        params,
      );
      remaining = r.rows[0]!.n;
    }
    return { outcomes, remaining, resolvedProblems };
  });
}
