// Retention of the Postgres tables that grow with events or time. Each sweep deletes in bounded chunks
// (a few thousand rows per statement), so one run never holds a long lock or a huge transaction; the
// scheduler role runs it every hour (one BullMQ job per tick: one run cluster-wide). Only finished rows
// go: never a live problem, a pending command or offer, a queued or running action. What is kept, and
// why, is in the README (configuration, "Retention").
import type { Pool, PostgresRetention } from '@watchpost/runtime';

/** The configured ages (runtime reads them from the environment: postgresRetentionConfig). */
export interface RetentionSettings extends PostgresRetention {
  /** Rows per DELETE statement (default 5000; tests use a small one). */
  chunkRows?: number;
}

export interface RetentionResult {
  ledger: number;
  outbox: number;
  audit: number;
  refreshTokens: number;
  enrollmentCodes: number;
  notifications: number;
  problemEvents: number;
  flapEvents: number;
  problems: number;
  rdgSessions: number;
  rdgPendingDisconnects: number;
  actions: number;
  agentCommands: number;
  updateOffers: number;
  bundles: number;
  reports: number;
  hostChanges: number;
}

export const RETENTION_CHUNK_ROWS = 5000;
/** A bundle younger than this is kept whatever else: an update that is running may still download it. */
export const BUNDLE_GRACE_MS = 86_400_000;
/** Bundles are zips of a few MB: fewer per statement. */
const BUNDLE_CHUNK_ROWS = 20;

/**
 * Deletes the rows of `table` (aliased `t`) matching `where` ($1 = the cutoff, if any), `chunk` at a time.
 * The inner SELECT locks its rows with SKIP LOCKED: a row correlate (or the API) holds is left for the
 * next run instead of waiting on it or deadlocking with it; the outer condition is re-checked on the
 * row as it stands when deleted (a problem reopened meanwhile stays).
 */
async function sweep(pool: Pool, table: string, where: string, cutoff: Date | null, chunk: number): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM ${table} t
        WHERE t.ctid = ANY(ARRAY(SELECT t.ctid FROM ${table} t WHERE ${where} LIMIT ${chunk} FOR UPDATE OF t SKIP LOCKED))
          AND ${where}`,
      cutoff ? [cutoff] : [],
    );
    const n = r.rowCount ?? 0;
    total += n;
    if (n < chunk) return total;
  }
}

const RESOLVED_BEFORE = `SELECT p.id FROM problems p WHERE p.status = 'resolved' AND p.resolved_at < $1`;

export async function pruneByAge(pool: Pool, s: RetentionSettings, now = new Date()): Promise<RetentionResult> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const day = 86_400_000;
  const chunk = Math.max(1, Math.floor(s.chunkRows ?? RETENTION_CHUNK_ROWS));
  const run = (table: string, where: string, cutoff: Date | null, n = chunk) => sweep(pool, table, where, cutoff, n);
  const problemsCutoff = before(s.problemDays * day);

  const ledger = await run('processed_events', 't.processed_at < $1', before(s.ledgerHours * 3_600_000));
  const outbox = await run('problem_outbox', 't.sent_at < $1', before(s.outboxSentDays * day));
  const audit = await run('audit_log', 't.at < $1', before(s.auditDays * day));
  const refreshTokens = await run('refresh_tokens', '(t.expires_at < $1 OR t.revoked_at < $1)', before(s.refreshTokenDays * day));
  const enrollmentCodes = await run(
    'enrollment_codes',
    '(t.expires_at < $1 OR t.used_at < $1)',
    before(s.refreshTokenDays * day),
  );
  // Deliveries go with their decision (ON DELETE CASCADE: a handful per decision).
  const notifications = await run('notification_decisions', 't.created_at < $1', before(s.notificationDays * day));

  // Problems: their timeline and flap pairs first, in chunks, so deleting a problem never cascades
  // over a million timeline rows in one statement. A live problem keeps its row and count; its
  // timeline keeps the entries received within the retention (older events are gone from ClickHouse
  // too at the default SERVICE_RETENTION_DAYS, and Kafka can no longer redeliver them).
  const problemEvents =
    (await run('problem_events', `t.problem_id IN (${RESOLVED_BEFORE})`, problemsCutoff)) +
    (await run('problem_events', 't.received_at < $1', problemsCutoff));
  // A flap badge whose event left its problem's timeline (both halves of a pair are on it).
  const flapEvents =
    (await run('rdg_flap_events', `t.problem_id IN (${RESOLVED_BEFORE})`, problemsCutoff)) +
    (await run(
      'rdg_flap_events',
      'NOT EXISTS (SELECT 1 FROM problem_events pe WHERE pe.problem_id = t.problem_id AND pe.event_id = t.event_id)',
      null,
    ));
  const problems = await run('problems', `t.status = 'resolved' AND t.resolved_at < $1`, problemsCutoff);
  // A gateway half waiting that long for its partner (lost, or its host gone): by receive time, not the host's clock.
  const rdgSessions = await run('rdg_sessions', 't.connect_received_at < $1', problemsCutoff);
  const rdgPendingDisconnects = await run('rdg_pending_disconnects', 't.disconnect_received_at < $1', problemsCutoff);

  // created_at <= finished_at: the created_at bound only lets the index on created_at find the rows.
  const actionsCutoff = before(s.actionDays * day);
  const actions = await run(
    'actions',
    `t.created_at < $1 AND t.status IN ('succeeded', 'failed') AND t.finished_at < $1`,
    actionsCutoff,
  );
  const commandsCutoff = before(s.agentCommandDays * day);
  const agentCommands = await run(
    'agent_commands',
    `t.status IN ('succeeded', 'failed', 'expired') AND t.finished_at < $1`,
    commandsCutoff,
  );
  // An offer the poll still makes (last_offered_at recent) stays, or deleting it would restart its
  // fallback clock; an open offer (neither done nor a fallback started) always stays.
  const updateOffers = await run(
    'agent_update_offers',
    `t.last_offered_at < $1 AND (t.done_at IS NOT NULL OR (t.fallback_action_id IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM actions a WHERE a.id = t.fallback_action_id AND a.status IN ('queued', 'running'))))`,
    commandsCutoff,
  );
  // Bundles are a cache keyed by commit: the newest per kind, repository and branch stays, and so
  // does any of a version an offer still waits for (its fallback may be serving it).
  const bundles = await run(
    'agent_bundles',
    `t.created_at < $1
       AND EXISTS (SELECT 1 FROM agent_bundles n WHERE n.kind = t.kind AND n.git_url = t.git_url AND n.branch = t.branch AND n.id > t.id)
       AND NOT EXISTS (SELECT 1 FROM agent_update_offers o WHERE o.version = t.version AND o.done_at IS NULL)`,
    before(BUNDLE_GRACE_MS),
    Math.min(chunk, BUNDLE_CHUNK_ROWS),
  );
  const reports = await run(
    'daily_reports',
    't.created_at < $1 AND EXISTS (SELECT 1 FROM daily_reports n WHERE n.timezone = t.timezone AND n.day > t.day)',
    before(s.reportDays * day),
  );
  // A decided change is an admin's decision: kept as long as the audit log. Pending ones always stay.
  const hostChanges = await run(
    'host_changes',
    `t.status IN ('accepted', 'rejected') AND t.decided_at < $1`,
    before(s.auditDays * day),
  );

  return {
    ledger,
    outbox,
    audit,
    refreshTokens,
    enrollmentCodes,
    notifications,
    problemEvents,
    flapEvents,
    problems,
    rdgSessions,
    rdgPendingDisconnects,
    actions,
    agentCommands,
    updateOffers,
    bundles,
    reports,
    hostChanges,
  };
}
