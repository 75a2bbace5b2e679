// The login-lockout alert (authentication rule 5): the API queues one `login_rate_limited` job per
// lockout on the `notifications` queue (its job id is the lockout's, so one alert per lockout); this
// role decides it with the policy (chat), records the decision and queues its deliveries, like any
// other trigger. The deliver role only sends them.
//
// Capped: a stranger rotating usernames and addresses makes one lockout after another, and chat must
// not drown. At most NOTIFY_LOCKOUT_ALERTS_MAX alerts go out in any NOTIFY_LOCKOUT_ALERTS_WINDOW_SECONDS
// (10 an hour by default); the alert that reaches the cap says so, each lockout over it is still recorded
// as a decision that sends nothing (the counter), and the next alert says how many were not sent.
import { channelDefaults, decide, enqueueDeliveries, recordDecisions, type Decision } from '@watchpost/core/notify';
import { NO_TYPE_SETTINGS } from '@watchpost/core/type-settings';
import { pgSafeKey } from '@watchpost/core/pg-safe';
import { withTransaction, type PoolClient } from '@watchpost/runtime';
import type { LoginRateLimitedJob, NotificationSubject } from '@watchpost/schemas';
import type { DecideContext } from './decide.ts';

/** The reason of a lockout decision over the cap (how they are told apart from sent ones). */
export const CAPPED_REASON = 'lockout alert cap reached';
// One decision at a time, so concurrent lockouts cannot all slip under the cap.
const CAP_LOCK = 'watchpost:lockout-alert-cap';

interface CapState {
  /** alerts (not capped) in the window */
  inWindow: number;
  /** the oldest of them */
  oldest: Date | null;
  /** lockouts over the cap since the last alert, and the first of them */
  skipped: number;
  skippedSince: Date | null;
}

export async function notifyLockout(ctx: DecideContext, d: LoginRateLimitedJob): Promise<number> {
  const { max, windowSeconds } = channelDefaults(ctx.notify).chat.lockoutAlerts;
  const subjectKey = pgSafeKey(`lockout:${d.username}:${d.address}:${d.at}`);
  const subject: NotificationSubject & { kind: 'login_lockout' } = {
    kind: 'login_lockout',
    username: d.username,
    address: d.address,
    at: d.at,
  };
  const queued = await withTransaction(ctx.pg, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [CAP_LOCK]);
    // A retried job keeps its first decision (capped or not).
    const prior = await c.query<Pick<Decision, 'reason' | 'routes'>>(
      'SELECT reason, routes FROM notification_decisions WHERE subject_key = $1',
      [subjectKey],
    );
    let decision: Decision;
    if (prior.rows[0]) decision = { rule: 'login_lockout', ...prior.rows[0] };
    else {
      decision = decide({ kind: 'login_lockout' }, ctx.policy, ctx.targets, NO_TYPE_SETTINGS);
      const cap = await capState(c, windowSeconds);
      if (cap.inWindow >= max) {
        decision = {
          ...decision,
          reason: `${CAPPED_REASON}: ${cap.inWindow} lockout alerts in the last ${windowSeconds} s (NOTIFY_LOCKOUT_ALERTS_MAX=${max}); recorded, not sent`,
          routes: decision.routes.map((r) => (r.chosen ? { ...r, chosen: false, reason: CAPPED_REASON } : r)),
        };
      } else {
        if (cap.skipped > 0) {
          subject.not_alerted = cap.skipped;
          subject.not_alerted_since = cap.skippedSince!.toISOString();
        }
        if (cap.inWindow + 1 >= max) {
          const from = cap.oldest ?? new Date();
          subject.alerts_paused_until = new Date(from.getTime() + windowSeconds * 1000).toISOString();
        }
      }
    }
    return recordDecisions(c, [{ subjectKey, subjectKind: 'login_lockout', subjectId: d.username, decision, subject }]);
  });
  await enqueueDeliveries(ctx.queues, ctx.notify, queued, () => subject);
  return queued.length;
}

async function capState(c: PoolClient, windowSeconds: number): Promise<CapState> {
  const r = await c.query<{ in_window: number; oldest: Date | null; last_alert: Date | null }>(
    `SELECT count(*)::int AS in_window, min(created_at) AS oldest,
            (SELECT max(created_at) FROM notification_decisions
              WHERE subject_kind = 'login_lockout' AND reason NOT LIKE $2 || '%') AS last_alert
       FROM notification_decisions
      WHERE subject_kind = 'login_lockout' AND reason NOT LIKE $2 || '%' AND created_at > now() - make_interval(secs => $1)`,
    [windowSeconds, CAPPED_REASON],
  );
  const row = r.rows[0]!;
  const s = await c.query<{ n: number; since: Date | null }>(
    `SELECT count(*)::int AS n, min(created_at) AS since FROM notification_decisions
      WHERE subject_kind = 'login_lockout' AND reason LIKE $1 || '%' AND ($2::timestamptz IS NULL OR created_at > $2)`,
    [CAPPED_REASON, row.last_alert],
  );
  return { inWindow: row.in_window, oldest: row.oldest, skipped: s.rows[0]!.n, skippedSince: s.rows[0]!.since };
}
