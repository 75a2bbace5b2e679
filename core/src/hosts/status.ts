// Host liveness (spec: Host liveness), one rule for the liveness scan, the stream's host messages and
// the API's reads: a host is online while COALESCE(last_heartbeat, first_seen) is at most
// `staleMinutes` old (service receive times), stale otherwise.
import type { Pool } from '@watchpost/runtime';
import type { HostStatus } from '@watchpost/schemas';

/** SQL expression (Postgres) of the time a host last proved alive. */
export function hostLastAliveSql(alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return `COALESCE(${a}last_heartbeat, ${a}first_seen)`;
}

/** SQL expression (Postgres) of a host's status now; `param` is the parameter holding the stale minutes. */
export function hostStatusSql(param: string, alias = 'h'): string {
  return `(CASE WHEN ${hostLastAliveSql(alias)} >= now() - make_interval(mins => ${param}::int) THEN 'online' ELSE 'stale' END)`;
}

/** Every host's status now. */
export async function loadHostStatuses(pool: Pool, staleMinutes: number): Promise<Map<string, HostStatus>> {
  const r = await pool.query<{ hostname: string; status: HostStatus }>(
    `SELECT hostname, ${hostStatusSql('$1', 'h')} AS status FROM hosts h`,
    [staleMinutes],
  );
  return new Map(r.rows.map((x) => [x.hostname, x.status]));
}
