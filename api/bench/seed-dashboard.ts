// The dashboard benches' data set: N events over the last 24 h in ClickHouse (INSERT … SELECT FROM
// numbers(), types per OS with realistic weights, severity mostly given by the type) and hosts,
// problems and type settings in Postgres. Shared by bench:dashboard and bench:web.
import { sql, type ClickHouseClient, type Pool } from '@watchpost/runtime';

/** Seeds `N` events ending at `now` (unix seconds) across `HOSTS` hosts, 70 % Linux. */
export async function seedBenchEvents(ch: ClickHouseClient, N: number, HOSTS: number, now: number): Promise<void> {
  const LINUX = Math.round(HOSTS * 0.7);
  await ch.command({
    query: sql`INSERT INTO events
      SELECT
        toString(generateUUIDv4()) AS event_id,
        toDateTime(${now} - intDiv(number * 86399, ${N}) - (intHash32(number) % 5)) AS occurred_at,
        occurred_at + 1 + (number % 3) AS received_at,
        concat('host-', toString(number % ${HOSTS})) AS hostname,
        concat('Host ', toString(number % ${HOSTS})) AS display_name,
        if(number % ${HOSTS} < ${LINUX}, 'linux', 'windows') AS os_family,
        if(os_family = 'linux', 'ssh-monitor', 'rdp-login-monitor') AS product,
        concat('2.', toString(number % ${HOSTS} % 4), '.1') AS product_version,
        'auth' AS category,
        multiIf(
          number % 50000 = 7, if(os_family = 'linux', 'report.daily.ssh', 'report.daily.rdp'),
          os_family = 'linux',
            arrayElement(['ssh.login.failed', 'ssh.login.failed', 'ssh.login.failed', 'ssh.login.failed', 'ssh.login.success',
              'agent.heartbeat', 'agent.heartbeat', 'privilege.sudo.command', 'session.logind.new', 'ssh.ip.banned',
              'ssh.bruteforce.mass', 'agent.lifecycle'], intHash32(number) % 12 + 1),
          arrayElement(['rdp.login.failed', 'rdp.login.failed', 'rdp.login.success', 'agent.heartbeat', 'agent.heartbeat',
            'rdg.connection.success', 'rdg.connection.disconnected', 'rdg.connection.failed', 'agent.inventory', 'agent.lifecycle'],
            intHash32(number) % 10 + 1)) AS type,
        multiIf(
          type IN ('ssh.login.failed', 'rdp.login.failed'), if(intHash32(number + 1) % 10 = 0, 'high', 'warning'),
          type = 'ssh.bruteforce.mass', 'critical',
          type IN ('privilege.sudo.command', 'ssh.ip.banned', 'rdg.connection.failed'), 'high',
          'info') AS severity,
        concat(type, ' on ', hostname) AS title,
        concat('Synthetic benchmark event ', toString(number), ' of type ', type, ' for user user', toString(number % 97)) AS summary,
        ['bench'] AS tags,
        '' AS dedup_key,
        '' AS correlation_id,
        '' AS fingerprint,
        concat('user', toString(number % 97)) AS actor_user,
        concat('203.0.113.', toString(number % 250)) AS source_ip,
        concat('{"schema_version":"1.0","event_id":"', event_id, '","type":"', type, '","title":"', title, '","summary":"', summary,
          '","details":{"user":"', actor_user, '","source_ip":"', source_ip, '","session_id":"', hex(intHash64(number)), '"}}') AS event_json
      FROM numbers(${N})`.text,
  });
}

/** Hosts (10 % stale), 5,000 problems over 7 days, one hidden type and one severity override. */
export async function seedBenchPostgres(pg: Pool, HOSTS: number): Promise<void> {
  const LINUX = Math.round(HOSTS * 0.7);
  await pg.query(
    `INSERT INTO hosts (hostname, display_name, os_family, product, product_version, first_seen, last_seen, last_heartbeat)
     SELECT 'host-' || i, 'Host ' || i, CASE WHEN i < $2 THEN 'linux' ELSE 'windows' END,
            CASE WHEN i < $2 THEN 'ssh-monitor' ELSE 'rdp-login-monitor' END, '2.' || (i % 4) || '.1',
            now() - interval '30 days', now(), CASE WHEN i % 10 = 9 THEN now() - interval '2 hours' ELSE now() - interval '1 minute' END
       FROM generate_series(0, $1 - 1) i`,
    [HOSTS, LINUX],
  );
  await pg.query(
    `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen, acknowledged_at, resolved_at, resolved_by)
     SELECT gen_random_uuid(), st, 'host-' || (i % $1) || '|' || ty || '|severity|' || i, 'host-' || (i % $1), ty, 'severity', ty || ' problem',
            CASE WHEN i % 7 = 0 THEN 'high' ELSE 'warning' END, 1 + i % 20, c, c,
            CASE WHEN st = 'acknowledged' THEN c END, CASE WHEN st = 'resolved' THEN c + interval '5 minutes' END,
            CASE WHEN st = 'resolved' THEN 'auto' END
       FROM (SELECT i, now() - (i * interval '2 minutes') AS c,
                    (ARRAY['ssh.login.failed', 'rdp.login.failed', 'privilege.sudo.command', 'session.logind.new'])[1 + i % 4] AS ty,
                    CASE WHEN i % 10 < 6 THEN 'resolved' WHEN i % 10 < 8 THEN 'acknowledged' ELSE 'open' END AS st
               FROM generate_series(0, 4999) i) x`,
    [HOSTS],
  );
  await pg.query(
    `INSERT INTO event_type_settings (type, severity_override, visible) VALUES ('session.logind.new', NULL, false), ('ssh.login.success', 'warning', true)`,
  );
}
