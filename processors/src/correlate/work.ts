// The working state of one correlate batch. The rules (rules/*.ts) run event by event, in offset
// order, against this in-memory copy of what they read (live problems, RD Gateway pending events, inventory
// snapshots), loaded and locked once per batch; write() then stores the outcome set-based through core's
// problem store: one UPDATE for every changed problem (count += n, last_seen = max), one INSERT for
// the opened ones with their outbox messages, one for the timeline, one per small table, and the inventory
// snapshots through the host store.
//
// The sequence is the same as applying each event with its own statements (the per-event correlator
// this replaced): every value a later event reads here is what it would have read back from Postgres
// (inventory snapshots are kept as jsonb returns them, see asStoredJson), so replays and any batching
// produce identical rows.
import type { PoolClient } from '@watchpost/runtime';
import { maxSeverity, type Severity } from '@watchpost/schemas';
import {
  insertTimeline,
  recordApplied,
  openProblems,
  outboxEntry,
  problemPayload,
  transition,
  updateProblems,
  type OutboxEntry,
  type ProblemRow,
  type TimelineEvent,
  type TimelineRow,
} from '@watchpost/core/problems';
import { writeHostInventories } from '@watchpost/core/hosts';
import { deterministicUuid, fingerprintOf, matchProblem } from './rules.ts';

/** What a rule asks of correlate(): open or extend the live problem of host + type + rule. */
export interface CorrelateSpec {
  host: string;
  type: string;
  rule: string;
  severity: Severity;
  title: string;
  /** Service time stamped on the problem (created_at / last_seen). */
  at: Date;
  /** Time compared against the live problem's match time (received_at, or occurred_at for flaps). */
  matchAt: Date;
  windowMs: number;
  liveMatchTime: (p: ProblemRow) => Date;
  /** Seed of the deterministic id of a problem this opens. */
  seed: string;
  /**
   * Rule-specific match against the live problem, replacing matchProblem: 'before' = the event belongs
   * before the live problem's window (it arrived late, see rules/rdg-flap.ts). It then extends the
   * superseded problem of the fingerprint (Needs.history) whose window it falls in ('extend' from this
   * same function), else gets its own problem, recorded as already superseded by the live one, without
   * a notification (the in-order run would have closed it the same way; the live one already notified).
   */
  match?: (live: ProblemRow) => 'extend' | 'supersede_and_open' | 'before';
  rdgFlap?: boolean;
  timeline: TimelineEvent[];
  /** New details for an opened problem, or the update of an extended one's details. */
  details?: (previous: Record<string, unknown> | null) => Record<string, unknown>;
}

/** A gateway event waiting for its partner (a connect in rdg_sessions, a disconnect in rdg_pending_disconnects). */
export type RdgRole = 'connect' | 'disconnect';
export type RdgPending = TimelineEvent;

export interface InventoryState {
  /** As read back from jsonb (null = none stored). */
  hardware: unknown;
  software: unknown;
  at: Date | null;
  changed: boolean;
}

interface Tracked {
  row: ProblemRow;
  isNew: boolean;
  /** Events taken since the row was read (existing problems). */
  countDelta: number;
  changed: boolean;
}

export interface FlapEventRow {
  event_id: string;
  problem_id: string;
  role: 'connect' | 'disconnect';
  /** The other half of the pair; null for a disconnect that is a flap by the gateway's own duration. */
  partner_event_id: string | null;
  session_id: string;
}

/** A new open problem for `s`, as its first event leaves it. */
function openedRow(id: string, fingerprint: string, s: CorrelateSpec): ProblemRow {
  return {
    id,
    status: 'open',
    fingerprint,
    host: s.host,
    type: s.type,
    rule: s.rule,
    title: s.title,
    severity: s.severity,
    count: 1,
    created_at: s.at,
    last_seen: s.at,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    resolved_by_user: null,
    rdg_flap: s.rdgFlap ?? false,
    reopened_count: 0,
    details: s.details ? s.details(null) : {},
  };
}

const sessionKey = (host: string, session: string) => `${host}\u0000${session}`;
const pendingKey = (host: string, session: string, role: RdgRole) => `${role}\u0000${host}\u0000${session}`;

/** What a batch must load (and lock) before its events run; filled by the rules' needs(). */
export class Needs {
  readonly fingerprints = new Set<string>();
  readonly inventoryHosts = new Set<string>();
  /** Fingerprints whose latest superseded problems a late event may extend (CorrelateSpec.match 'before'). */
  readonly history = new Map<string, { host: string; type: string; rule: string }>();
  historyOf(host: string, type: string, rule: string): void {
    this.history.set(fingerprintOf(host, type, rule), { host, type, rule });
  }
  readonly sessions = new Map<string, { host: string; session: string }>();
  session(host: string, session: string): void {
    this.sessions.set(sessionKey(host, session), { host, session });
  }
}

export class BatchWork {
  readonly opened: { id: string; type: string; rule: string }[] = [];
  readonly resolved: { id: string; resolved_by: 'auto' }[] = [];
  private readonly live = new Map<string, Tracked | null>();
  /** Resolved problems by fingerprint (Needs.history), newest first, plus those closed in this batch. */
  private readonly history = new Map<string, Tracked[]>();
  private readonly problems = new Map<string, Tracked>();
  private readonly timeline = new Map<string, TimelineRow>();
  private readonly outbox: OutboxEntry[] = [];
  private readonly pending = new Map<
    string,
    { host: string; session: string; role: RdgRole; row: RdgPending | null; changed: boolean }
  >();
  private readonly flapEvents = new Map<string, FlapEventRow>();
  /** Gateway events a pair consumed: a repeat of one must not wait for a partner again. */
  private readonly paired = new Set<string>();
  private readonly inventories = new Map<string, InventoryState>();

  constructor(
    needs: Needs,
    liveProblems: Map<string, ProblemRow>,
    pending: Map<string, RdgPending>,
    inventories: Map<string, { hardware: unknown; at: Date | null }>,
    history: Map<string, ProblemRow[]> = new Map(),
  ) {
    for (const fp of needs.history.keys())
      this.history.set(
        fp,
        (history.get(fp) ?? []).map((row) => ({ row, isNew: false, countDelta: 0, changed: false })),
      );
    for (const fp of needs.fingerprints) {
      const row = liveProblems.get(fp);
      this.live.set(fp, row ? { row, isNew: false, countDelta: 0, changed: false } : null);
    }
    for (const { host, session } of needs.sessions.values())
      for (const role of ['connect', 'disconnect'] as const) {
        const k = pendingKey(host, session, role);
        this.pending.set(k, { host, session, role, row: pending.get(k) ?? null, changed: false });
      }
    for (const h of needs.inventoryHosts) {
      const inv = inventories.get(h);
      this.inventories.set(h, { hardware: inv?.hardware ?? null, software: null, at: inv?.at ?? null, changed: false });
    }
  }

  static pendingKey = pendingKey;

  private liveOf(fingerprint: string): Tracked | null {
    const t = this.live.get(fingerprint);
    if (t === undefined) throw new Error(`correlate: fingerprint not loaded before the batch: ${fingerprint}`);
    return t;
  }

  /** The live (open or acknowledged) problem of a fingerprint, as it stands at this point of the batch. */
  liveProblem(fingerprint: string): ProblemRow | null {
    return this.liveOf(fingerprint)?.row ?? null;
  }

  /** Closes the live problem of the fingerprint automatically (state machine: auto_resolve). */
  autoResolve(fingerprint: string, at: Date, detailsPatch: Record<string, unknown>): boolean {
    const t = this.liveOf(fingerprint);
    if (!t) return false;
    const r = transition(t.row, { kind: 'auto_resolve' }, at);
    if (!r.ok) return false;
    t.row = { ...r.next, details: { ...t.row.details, ...detailsPatch } };
    t.changed = true;
    this.problems.set(t.row.id, t);
    this.live.set(fingerprint, null);
    this.history.get(fingerprint)?.unshift(t);
    this.resolved.push({ id: t.row.id, resolved_by: 'auto' });
    return true;
  }

  /** Opens or extends the live problem of the fingerprint (see matchProblem); its timeline grows. Returns its id. */
  correlate(s: CorrelateSpec): string {
    const fingerprint = fingerprintOf(s.host, s.type, s.rule);
    const live = this.liveOf(fingerprint);
    const decision =
      live && s.match
        ? s.match(live.row)
        : matchProblem(
            live && { status: live.row.status as 'open' | 'acknowledged', last_seen: s.liveMatchTime(live.row) },
            s.matchAt,
            s.windowMs,
          );
    let id: string;
    const earlier = decision === 'before' ? this.history.get(fingerprint)?.find((t) => s.match!(t.row) === 'extend') : undefined;
    if (decision === 'before' && earlier) {
      id = earlier.row.id;
      this.extend(earlier, s);
    } else if (decision === 'before' && live) {
      id = this.recordSuperseded(s, fingerprint, live.row.id);
    } else if (decision === 'extend' && live) {
      id = live.row.id;
      this.extend(live, s);
    } else {
      id = deterministicUuid(s.seed);
      if (live) this.autoResolve(fingerprint, s.at, { resolve_reason: 'superseded', superseded_by: id });
      const row = openedRow(id, fingerprint, s);
      const t: Tracked = { row, isNew: true, countDelta: 0, changed: true };
      this.live.set(fingerprint, t);
      this.problems.set(id, t);
      this.outbox.push(outboxEntry('problem.opened', problemPayload(row), s.at));
      this.opened.push({ id, type: s.type, rule: s.rule });
    }
    for (const ev of s.timeline) {
      const k = `${id}|${ev.event_id}`;
      if (!this.timeline.has(k)) this.timeline.set(k, { problem_id: id, ...ev });
    }
    return id;
  }

  private extend(t: Tracked, s: CorrelateSpec): void {
    const p = t.row;
    t.row = {
      ...p,
      count: p.count + 1,
      last_seen: s.at > p.last_seen ? s.at : p.last_seen,
      severity: maxSeverity(p.severity, s.severity),
      details: s.details ? s.details(p.details) : p.details,
    };
    t.countDelta++;
    t.changed = true;
    this.problems.set(p.id, t);
  }

  /**
   * A problem for an event that belongs before the live problem's window (it arrived late): inserted
   * in the state the in-order run leaves it in, resolved automatically as superseded by the live one.
   * No problem.opened message: the live problem already notified, and this one is history.
   */
  private recordSuperseded(s: CorrelateSpec, fingerprint: string, liveId: string): string {
    const id = deterministicUuid(s.seed);
    const opened = openedRow(id, fingerprint, s);
    const r = transition(opened, { kind: 'auto_resolve' }, s.at);
    const row = r.ok ? r.next : opened;
    row.details = { ...opened.details, resolve_reason: 'superseded', superseded_by: liveId };
    const t: Tracked = { row, isNew: true, countDelta: 0, changed: true };
    this.problems.set(id, t);
    this.history.get(fingerprint)?.unshift(t);
    return id;
  }

  // ---- RD Gateway pairing -------------------------------------------------------------------------

  /** The event of a pairing key waiting in the given role, if any. */
  pendingRdg(host: string, session: string, role: RdgRole): RdgPending | null {
    const s = this.pending.get(pendingKey(host, session, role));
    if (s === undefined) throw new Error('correlate: RD Gateway pairing key not loaded before the batch');
    return s.row;
  }

  /** Sets (row) or clears (null) the waiting event of a pairing key in the given role. */
  setPendingRdg(host: string, session: string, role: RdgRole, row: RdgPending | null): void {
    const s = this.pending.get(pendingKey(host, session, role));
    if (s === undefined) throw new Error('correlate: RD Gateway pairing key not loaded before the batch');
    s.row = row;
    s.changed = true;
  }

  addPaired(eventIds: string[]): void {
    for (const id of eventIds) this.paired.add(id);
  }

  addFlapEvents(rows: FlapEventRow[]): void {
    for (const r of rows) if (!this.flapEvents.has(r.event_id)) this.flapEvents.set(r.event_id, r);
  }

  // ---- inventory --------------------------------------------------------------------------------

  inventory(host: string): InventoryState {
    const s = this.inventories.get(host);
    if (!s) throw new Error('correlate: inventory not loaded before the batch');
    return s;
  }

  // ---- write --------------------------------------------------------------------------------------

  async write(c: PoolClient): Promise<void> {
    const tracked = [...this.problems.values()];
    // Existing problems first: a superseded one leaves the live index before its successor enters it.
    await updateProblems(
      c,
      tracked.filter((t) => !t.isNew && t.changed).map((t) => ({ row: t.row, countDelta: t.countDelta })),
    );
    await openProblems(
      c,
      tracked.filter((t) => t.isNew).map((t) => t.row),
      this.outbox,
    );
    await insertTimeline(c, [...this.timeline.values()]);
    if (this.flapEvents.size > 0)
      await c.query(
        `INSERT INTO rdg_flap_events (event_id, problem_id, role, partner_event_id, session_id)
         SELECT event_id, problem_id, role, partner_event_id, session_id FROM json_to_recordset($1::json)
           AS t(event_id uuid, problem_id uuid, role text, partner_event_id uuid, session_id text)
         ON CONFLICT (event_id) DO NOTHING`,
        [JSON.stringify([...this.flapEvents.values()])],
      );
    await recordApplied(c, [...this.paired]);
    const pending = [...this.pending.values()].filter((s) => s.changed);
    for (const [role, table, prefix] of [
      ['connect', 'rdg_sessions', 'connect'],
      ['disconnect', 'rdg_pending_disconnects', 'disconnect'],
    ] as const) {
      const mine = pending.filter((s) => s.role === role);
      const kept = mine.filter((s) => s.row);
      const gone = mine.filter((s) => !s.row);
      if (gone.length > 0)
        await c.query(
          `DELETE FROM ${table} r USING unnest($1::text[], $2::text[]) AS k(host, session_id)
            WHERE r.host = k.host AND r.session_id = k.session_id`,
          [gone.map((s) => s.host), gone.map((s) => s.session)],
        );
      if (kept.length > 0)
        await c.query(
          `INSERT INTO ${table} (host, session_id, ${prefix}_event_id, ${prefix}_occurred_at, ${prefix}_received_at,
                                 ${prefix}_type, ${prefix}_severity, ${prefix}_title)
           SELECT * FROM json_to_recordset($1::json) AS t(host text, session_id text, event_id uuid, occurred_at timestamptz,
             received_at timestamptz, type text, severity text, title text)
           ON CONFLICT (host, session_id) DO UPDATE SET ${prefix}_event_id = EXCLUDED.${prefix}_event_id,
             ${prefix}_occurred_at = EXCLUDED.${prefix}_occurred_at, ${prefix}_received_at = EXCLUDED.${prefix}_received_at,
             ${prefix}_type = EXCLUDED.${prefix}_type, ${prefix}_severity = EXCLUDED.${prefix}_severity,
             ${prefix}_title = EXCLUDED.${prefix}_title`,
          [JSON.stringify(kept.map((s) => ({ host: s.host, session_id: s.session, ...s.row })))],
        );
    }
    await writeHostInventories(
      c,
      [...this.inventories.entries()]
        .filter(([, s]) => s.changed)
        .map(([hostname, s]) => ({ hostname, hardware: s.hardware, software: s.software, at: s.at })),
    );
  }
}
