// The service's daily report (spec: notification rule 6): the last 24 hours of SSH and RDP activity
// aggregated in ClickHouse (each event counted once: grouped by event_id first) and the problems
// opened in Postgres, as figures, an HTML body and a text part. Built once per local day: the row in
// `daily_reports` (UNIQUE day, timezone) decides, whichever scheduler process gets there first.
import type { ClickHouseClient, Pool } from '@watchpost/runtime';
import { ident, joinSql, occurredRangeSql, queryRows, sql, type Sql } from '@watchpost/runtime';
import { escapeHtml } from '../shared/html.ts';

export interface DailyFigures {
  period: { from: string; to: string; day: string; timezone: string };
  ssh: { success: number; failed: number; banned: number; bruteforce: number; sudo: number };
  rdp: { success: number; failed: number };
  gateway: { sessions: number; disconnected: number; other: number; flaps: number };
  top_sources: { source_ip: string; failed: number }[];
  top_users: { user: string; failed: number }[];
  hosts: { hostname: string; success: number; failed: number; banned: number; events: number }[];
  problems: {
    total: number;
    by_severity: Record<string, number>;
    latest: { host: string; title: string; severity: string; created_at: string }[];
  };
  agent_reports: number;
}

const TOP = 10;
const FAILED = ['ssh.login.failed', 'rdp.login.failed'];

/** One row per event (a redelivered event is stored twice until ClickHouse merges); columns prefixed e_
 * (18.16 would read an alias named like a column inside the WHERE). */
function deduped(from: Date, to: Date, cols: string[]): Sql {
  const pick = joinSql(
    cols.map((c) => sql`any(${ident(c)}) AS ${ident(`e_${c}`)}`),
    ', ',
  );
  return sql`(SELECT event_id, ${pick} FROM events WHERE ${occurredRangeSql({ from, toExclusive: to })}
    AND (type LIKE 'ssh.%' OR type LIKE 'rdp.%' OR type LIKE 'rdg.%' OR type LIKE 'privilege.%' OR type LIKE 'report.daily.%')
    GROUP BY event_id)`;
}

export async function dailyFigures(
  ch: ClickHouseClient,
  pg: Pool,
  period: { from: Date; to: Date; day: string; timezone: string },
): Promise<DailyFigures> {
  const { from, to } = period;
  const src = deduped(from, to, ['type', 'hostname', 'actor_user', 'source_ip']);
  const [byType, sources, users, hosts, problems, flaps] = await Promise.all([
    queryRows<{ type: string; n: string }>(ch, sql`SELECT e_type AS type, count() AS n FROM ${src} GROUP BY e_type`),
    queryRows<{ source_ip: string; n: string }>(
      ch,
      sql`SELECT e_source_ip AS source_ip, count() AS n FROM ${src} WHERE has(${FAILED}, e_type) AND e_source_ip != '' GROUP BY e_source_ip ORDER BY n DESC, source_ip LIMIT ${TOP}`,
    ),
    queryRows<{ actor_user: string; n: string }>(
      ch,
      sql`SELECT e_actor_user AS actor_user, count() AS n FROM ${src} WHERE has(${FAILED}, e_type) AND e_actor_user != '' GROUP BY e_actor_user ORDER BY n DESC, actor_user LIMIT ${TOP}`,
    ),
    queryRows<{ hostname: string; s: string; f: string; b: string; n: string }>(
      ch,
      sql`SELECT e_hostname AS hostname, countIf(e_type IN ('ssh.login.success', 'rdp.login.success')) AS s, countIf(has(${FAILED}, e_type)) AS f,
                 countIf(e_type = 'ssh.ip.banned') AS b, count() AS n
            FROM ${src} GROUP BY e_hostname ORDER BY n DESC, hostname LIMIT 50`,
    ),
    pg.query<{ host: string; title: string; severity: string; created_at: Date }>(
      `SELECT host, title, severity, created_at FROM problems WHERE created_at >= $1 AND created_at < $2 ORDER BY created_at DESC`,
      [from, to],
    ),
    pg.query<{ n: string }>(`SELECT count(*) AS n FROM problems WHERE rdg_flap AND created_at >= $1 AND created_at < $2`, [
      from,
      to,
    ]),
  ]);
  const count = new Map(byType.map((r) => [r.type, Number(r.n)]));
  const c = (t: string) => count.get(t) ?? 0;
  const rdg = [...count].filter(([t]) => t.startsWith('rdg.connection.'));
  const bySeverity: Record<string, number> = {};
  for (const p of problems.rows) bySeverity[p.severity] = (bySeverity[p.severity] ?? 0) + 1;
  return {
    period: { from: from.toISOString(), to: to.toISOString(), day: period.day, timezone: period.timezone },
    ssh: {
      success: c('ssh.login.success'),
      failed: c('ssh.login.failed'),
      banned: c('ssh.ip.banned'),
      bruteforce: c('ssh.bruteforce.mass'),
      sudo: c('privilege.sudo.command'),
    },
    rdp: { success: c('rdp.login.success'), failed: c('rdp.login.failed') },
    gateway: {
      sessions: c('rdg.connection.success'),
      disconnected: c('rdg.connection.disconnected'),
      other: rdg
        .filter(([t]) => t !== 'rdg.connection.success' && t !== 'rdg.connection.disconnected')
        .reduce((a, [, n]) => a + n, 0),
      flaps: Number(flaps.rows[0]?.n ?? 0),
    },
    top_sources: sources.map((r) => ({ source_ip: r.source_ip, failed: Number(r.n) })),
    top_users: users.map((r) => ({ user: r.actor_user, failed: Number(r.n) })),
    hosts: hosts.map((r) => ({
      hostname: r.hostname,
      success: Number(r.s),
      failed: Number(r.f),
      banned: Number(r.b),
      events: Number(r.n),
    })),
    problems: {
      total: problems.rows.length,
      by_severity: bySeverity,
      latest: problems.rows
        .slice(0, TOP)
        .map((p) => ({ host: p.host, title: p.title, severity: p.severity, created_at: p.created_at.toISOString() })),
    },
    agent_reports: [...count].filter(([t]) => t.startsWith('report.daily.')).reduce((a, [, n]) => a + n, 0),
  };
}

export function reportTitle(f: DailyFigures): string {
  return `Daily security report ${f.period.day} (${f.period.timezone})`;
}

/** One line for chat. */
export function reportSummary(f: DailyFigures): string {
  return (
    `SSH ${f.ssh.success} ok / ${f.ssh.failed} failed, ${f.ssh.banned} bans · RDP ${f.rdp.success} ok / ${f.rdp.failed} failed · ` +
    `gateway ${f.gateway.sessions} sessions, ${f.gateway.flaps} flaps · ${f.problems.total} new problems`
  );
}

const table = (head: string[], rows: (string | number)[][]) =>
  `<table style="border-collapse:collapse;margin:4px 0 12px">` +
  `<tr>${head.map((h) => `<th align="left" style="border-bottom:1px solid #999;padding:2px 10px 2px 0">${escapeHtml(h)}</th>`).join('')}</tr>` +
  rows
    .map((r) => `<tr>${r.map((v) => `<td style="padding:2px 10px 2px 0">${escapeHtml(String(v))}</td>`).join('')}</tr>`)
    .join('') +
  `</table>`;

export function renderReport(f: DailyFigures): { title: string; html: string; text: string; summary: string } {
  const title = reportTitle(f);
  const none = (rows: unknown[], html: string) => (rows.length === 0 ? '<p>none</p>' : html);
  const html =
    `<div style="font-family:sans-serif"><h1 style="font-size:20px">${escapeHtml(title)}</h1>` +
    `<p>${escapeHtml(f.period.from)} – ${escapeHtml(f.period.to)}</p>` +
    `<h2 style="font-size:16px">Logins</h2>` +
    table(
      ['', 'succeeded', 'failed'],
      [
        ['SSH', f.ssh.success, f.ssh.failed],
        ['RDP', f.rdp.success, f.rdp.failed],
      ],
    ) +
    table(['SSH bans', 'mass brute force', 'sudo commands'], [[f.ssh.banned, f.ssh.bruteforce, f.ssh.sudo]]) +
    `<h2 style="font-size:16px">Remote gateway</h2>` +
    table(
      ['sessions', 'disconnected', 'other', 'flaps'],
      [[f.gateway.sessions, f.gateway.disconnected, f.gateway.other, f.gateway.flaps]],
    ) +
    `<h2 style="font-size:16px">Top sources of failed logins</h2>` +
    none(
      f.top_sources,
      table(
        ['address', 'failed'],
        f.top_sources.map((s) => [s.source_ip, s.failed]),
      ),
    ) +
    `<h2 style="font-size:16px">Top targeted users</h2>` +
    none(
      f.top_users,
      table(
        ['user', 'failed'],
        f.top_users.map((u) => [u.user, u.failed]),
      ),
    ) +
    `<h2 style="font-size:16px">Hosts</h2>` +
    none(
      f.hosts,
      table(
        ['host', 'succeeded', 'failed', 'bans', 'events'],
        f.hosts.map((h) => [h.hostname, h.success, h.failed, h.banned, h.events]),
      ),
    ) +
    `<h2 style="font-size:16px">New problems: ${f.problems.total}</h2>` +
    none(
      f.problems.latest,
      table(
        ['severity', 'host', 'problem', 'opened'],
        f.problems.latest.map((p) => [p.severity, p.host, p.title, p.created_at]),
      ),
    ) +
    `<p>Agent daily reports received: ${f.agent_reports}</p></div>`;
  const text = [
    title,
    `${f.period.from} – ${f.period.to}`,
    '',
    `SSH logins: ${f.ssh.success} succeeded, ${f.ssh.failed} failed; ${f.ssh.banned} bans, ${f.ssh.bruteforce} mass brute force, ${f.ssh.sudo} sudo`,
    `RDP logins: ${f.rdp.success} succeeded, ${f.rdp.failed} failed`,
    `Gateway: ${f.gateway.sessions} sessions, ${f.gateway.disconnected} disconnected, ${f.gateway.other} other, ${f.gateway.flaps} flaps`,
    `Top sources: ${f.top_sources.map((s) => `${s.source_ip} (${s.failed})`).join(', ') || 'none'}`,
    `Top users: ${f.top_users.map((u) => `${u.user} (${u.failed})`).join(', ') || 'none'}`,
    'Hosts:',
    ...f.hosts.map((h) => `  ${h.hostname}: ${h.success} ok, ${h.failed} failed, ${h.banned} bans, ${h.events} events`),
    `New problems: ${f.problems.total}`,
    ...f.problems.latest.map((p) => `  [${p.severity}] ${p.host}: ${p.title}`),
    `Agent daily reports received: ${f.agent_reports}`,
  ].join('\n');
  return { title, html, text, summary: reportSummary(f) };
}
