// Host liveness (spec: Host liveness; issues 22 and 31), one rule for the liveness scan, the stream's host
// messages and the API's reads: a host is online while COALESCE(last_heartbeat, first_seen) is at most
// its stale threshold old (service receive times), stale otherwise. The threshold follows the agent:
// `missed` heartbeat intervals plus slack, the interval being the one learned from the host's own
// heartbeats (hosts.heartbeat_interval_seconds, heartbeats.ts) or else its product's
// default (the Windows agent beats every 4 h, ssh-monitor every 12 h), so a healthy fleet never goes
// stale between heartbeats.
import type { HeartbeatPolicy, Pool } from '@watchpost/runtime';
import type { HostStatus } from '@watchpost/schemas';

/** A HeartbeatPolicy, or a flat number of minutes for every host (the rule before issue 22; tests). */
export type StaleRule = number | HeartbeatPolicy;

/** SQL expression (Postgres) of the time a host last proved alive. */
export function hostLastAliveSql(alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return `COALESCE(${a}last_heartbeat, ${a}first_seen)`;
}

/** SQL expression (Postgres, seconds) of a host's stale threshold; `param` holds the StaleRule as jsonb. */
export function hostStaleSecondsSql(param: string, alias = 'h'): string {
  const a = alias ? `${alias}.` : '';
  const p = `${param}::jsonb`;
  return `(CASE WHEN jsonb_typeof(${p}) = 'number' THEN (${p})::text::numeric * 60
     ELSE COALESCE((${p}->>'missed')::numeric
                     * COALESCE(${a}heartbeat_interval_seconds, (${p}->'defaults'->>${a}product)::numeric * 60)
                     + (${p}->>'slack_minutes')::numeric * 60,
                   (${p}->>'fallback_minutes')::numeric * 60) END)`;
}

/** SQL expression (Postgres) of a host's status now; `param` is the parameter holding the StaleRule. */
export function hostStatusSql(param: string, alias = 'h'): string {
  return `(CASE WHEN ${hostLastAliveSql(alias)} >= now() - make_interval(secs => ${hostStaleSecondsSql(param, alias)}) THEN 'online' ELSE 'stale' END)`;
}

/** Every host's status now. */
export async function loadHostStatuses(pool: Pool, rule: StaleRule): Promise<Map<string, HostStatus>> {
  const r = await pool.query<{ hostname: string; status: HostStatus }>(
    `SELECT hostname, ${hostStatusSql('$1', 'h')} AS status FROM hosts h`,
    [rule],
  );
  return new Map(r.rows.map((x) => [x.hostname, x.status]));
}
