// The login-lockout alert (authentication rule 5): the API queues one `login_rate_limited` job per
// lockout on the `notifications` queue (its job id is the lockout's, so one alert per lockout); this
// role decides it with the policy (chat), records the decision and queues its deliveries, like any
// other trigger. The deliver role only sends them.
import { decide, NO_TYPE_SETTINGS, pgSafeKey } from '@watchpost/core';
import type { LoginRateLimitedJob } from '@watchpost/schemas';
import { record, type DecideContext } from './decide.ts';

export async function notifyLockout(ctx: DecideContext, d: LoginRateLimitedJob): Promise<number> {
  const decision = decide({ kind: 'login_lockout' }, ctx.policy, ctx.targets, NO_TYPE_SETTINGS);
  const subjectKey = pgSafeKey(`lockout:${d.username}:${d.address}:${d.at}`);
  return record(
    ctx,
    [{ subjectKey, subjectKind: 'login_lockout', subjectId: d.username, decision }],
    new Map([[subjectKey, { kind: 'login_lockout' as const, username: d.username, address: d.address, at: d.at }]]),
  );
}
