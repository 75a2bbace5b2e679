// Host liveness at read time (spec: Host liveness), the same rule as the correlate liveness scan
// (processors/src/correlate/liveness.ts): online while COALESCE(last_heartbeat, first_seen) is at most
// `staleMinutes` old (service receive times), stale otherwise. Computed when read, so a list is right
// even between two liveness scans.

/** SQL expression (Postgres) of a host's status; `param` is the parameter holding the stale minutes. */
export function hostStatusSql(param: string, alias = 'h'): string {
  return `(CASE WHEN COALESCE(${alias}.last_heartbeat, ${alias}.first_seen) >= now() - make_interval(mins => ${param}::int) THEN 'online' ELSE 'stale' END)`;
}
