// A known dataset for the read-side tests (events list, hosts, problems, dashboard): events written to
// ClickHouse exactly as the store processor writes them, hosts and the RD Gateway flap pair created by
// the real correlate processor, and problems with chosen statuses and ages inserted directly.
import { randomUUID } from 'node:crypto';
import type { Pool } from '@watchpost/runtime';
import type { ClickHouseClient } from '@watchpost/runtime';
import type { EventEnvelope } from '@watchpost/schemas';
import type { EventV1 } from '@watchpost/schemas';
import { envelopeToRow, insertEventRows, processBatch } from '@watchpost/processors';

const MIN = 60_000;
const HOUR = 60 * MIN;

export interface FixtureEvent {
  key: string;
  host: 'alpha' | 'beta' | 'gamma';
  type: string;
  severity: EventV1['severity'];
  /** ms before the base time */
  ago: number;
  details?: Record<string, unknown>;
  /** also fed to the correlate processor (hosts, flap pair) */
  correlate?: boolean;
}

const HOSTS = {
  alpha: { os: 'linux', display: 'Alpha Web', product: 'ssh-monitor' },
  beta: { os: 'windows', display: 'Beta DC', product: 'rdp-login-monitor' },
  gamma: { os: 'linux', display: 'Gamma Db', product: 'ssh-monitor' },
} as const;

export const FIXTURE_EVENTS: FixtureEvent[] = [
  {
    key: 'E1',
    host: 'alpha',
    type: 'ssh.login.failed',
    severity: 'warning',
    ago: 1 * HOUR,
    details: { user: 'root', source_ip: '203.0.113.7' },
  },
  { key: 'E2', host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 2 * HOUR },
  { key: 'E3', host: 'alpha', type: 'agent.heartbeat', severity: 'info', ago: 10 * MIN, correlate: true },
  { key: 'E4', host: 'alpha', type: 'report.daily.ssh', severity: 'info', ago: 3 * HOUR },
  {
    key: 'E5',
    host: 'beta',
    type: 'rdg.connection.success',
    severity: 'info',
    ago: 30 * MIN,
    details: { event_code: 302, session_id: 'S1', user: 'carol' },
    correlate: true,
  },
  {
    key: 'E6',
    host: 'beta',
    type: 'rdg.connection.disconnected',
    severity: 'info',
    ago: 30 * MIN - 5000,
    details: { event_code: 303, session_id: 'S1' },
    correlate: true,
  },
  { key: 'E7', host: 'beta', type: 'rdp.login.success', severity: 'high', ago: 5 * HOUR, details: { username: 'bob' } },
  { key: 'E8', host: 'beta', type: 'agent.heartbeat', severity: 'info', ago: 20 * MIN, correlate: true },
  { key: 'E9', host: 'beta', type: 'noisy.debug', severity: 'info', ago: 1 * HOUR },
  { key: 'E10', host: 'gamma', type: 'privilege.sudo.command', severity: 'critical', ago: 30 * HOUR, correlate: true },
  { key: 'E11', host: 'alpha', type: 'ssh.bruteforce.mass', severity: 'high', ago: 6 * HOUR },
  { key: 'E12', host: 'beta', type: 'rdg.connections.other', severity: 'info', ago: 40 * MIN },
  { key: 'E13', host: 'beta', type: 'ssh.login.failed', severity: 'warning', ago: 23 * HOUR + 30 * MIN },
  { key: 'E14', host: 'alpha', type: 'ssh.login.failed', severity: 'warning', ago: 25 * HOUR + 5 * MIN },
  { key: 'E15', host: 'beta', type: 'rdg.connection', severity: 'info', ago: 45 * MIN },
];

/** Settings of the dataset: one hidden type, one override. */
export const FIXTURE_SETTINGS = [
  { type: 'noisy.debug', severity_override: null, visible: false },
  { type: 'ssh.bruteforce.mass', severity_override: 'critical', visible: true },
];

export interface FixtureProblem {
  key: string;
  host: string;
  type: string;
  severity: string;
  status: 'open' | 'acknowledged' | 'resolved';
  resolvedBy?: 'manual' | 'auto';
  ago: number;
}

export const FIXTURE_PROBLEMS: FixtureProblem[] = [
  { key: 'PA', host: 'alpha', type: 'ssh.login.failed', severity: 'warning', status: 'open', ago: 2 * HOUR },
  { key: 'PB', host: 'alpha', type: 'ssh.bruteforce.mass', severity: 'high', status: 'acknowledged', ago: 6 * HOUR },
  {
    key: 'PC',
    host: 'beta',
    type: 'rdp.login.success',
    severity: 'high',
    status: 'resolved',
    resolvedBy: 'manual',
    ago: 5 * HOUR,
  },
  { key: 'PD', host: 'beta', type: 'noisy.debug', severity: 'warning', status: 'open', ago: 1 * HOUR },
  {
    key: 'PE',
    host: 'alpha',
    type: 'ssh.login.failed',
    severity: 'warning',
    status: 'resolved',
    resolvedBy: 'auto',
    ago: 30 * HOUR,
  },
];

export interface Fixture {
  base: Date;
  ids: Record<string, string>;
  envelopes: Record<string, EventEnvelope>;
  problemIds: Record<string, string>;
  at(ago: number): Date;
}

export function fixtureEnvelope(e: FixtureEvent, base: Date, id = randomUUID()): EventEnvelope {
  const h = HOSTS[e.host];
  const occurred = new Date(base.getTime() - e.ago);
  return {
    // The service receives it a second later.
    received_at: new Date(occurred.getTime() + 1000).toISOString(),
    event: {
      schema_version: '1.0',
      event_id: id,
      occurred_at: occurred.toISOString(),
      source: { product: h.product, product_version: '2.4.1' },
      host: { hostname: e.host, os_family: h.os, display_name: h.display },
      category: 'auth',
      type: e.type,
      severity: e.severity,
      title: `${e.key} ${e.type} on ${e.host}`,
      summary: `fixture event ${e.key}`,
      ...(e.details ? { details: e.details } : {}),
    },
  };
}

/** `agentKeyId`: the verified agent key the store records for each (as ingest's header; default unknown). */
export async function insertEnvelopes(
  ch: ClickHouseClient,
  envs: EventEnvelope[],
  opts: { agentKeyId?: number } = {},
): Promise<void> {
  await insertEventRows(
    ch,
    envs.map((e) => envelopeToRow(e, undefined, opts.agentKeyId ?? 0)),
  );
}

export async function correlate(pg: Pool, envs: EventEnvelope[]): Promise<void> {
  await processBatch(pg, envs, { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' }, () => new Date());
}

/** Loads the dataset; `base` is a whole second (the stored precision). */
export async function loadFixture(
  pg: Pool,
  ch: ClickHouseClient,
  base = new Date(Math.floor(Date.now() / 1000) * 1000),
): Promise<Fixture> {
  const ids: Record<string, string> = {};
  const envelopes: Record<string, EventEnvelope> = {};
  for (const e of FIXTURE_EVENTS) {
    envelopes[e.key] = fixtureEnvelope(e, base);
    ids[e.key] = envelopes[e.key]!.event.event_id;
  }
  await insertEnvelopes(ch, Object.values(envelopes));
  const toCorrelate = FIXTURE_EVENTS.filter((e) => e.correlate)
    .sort((a, b) => b.ago - a.ago)
    .map((e) => envelopes[e.key]!);
  await correlate(pg, toCorrelate);
  for (const s of FIXTURE_SETTINGS) {
    await pg.query('INSERT INTO event_type_settings (type, severity_override, visible, updated_by) VALUES ($1, $2, $3, $4)', [
      s.type,
      s.severity_override,
      s.visible,
      'fixture',
    ]);
  }
  const problemIds: Record<string, string> = {};
  for (const p of FIXTURE_PROBLEMS) {
    const id = randomUUID();
    problemIds[p.key] = id;
    const created = new Date(base.getTime() - p.ago);
    const resolved = p.status === 'resolved' ? new Date(created.getTime() + 10 * MIN) : null;
    await pg.query(
      `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen,
         acknowledged_at, acknowledged_by, resolved_at, resolved_by, resolved_by_user)
       VALUES ($1, $2, $13, $3, $4, 'severity', $5, $6, 1, $7, $7, $8, $9, $10, $11, $12)`,
      [
        id,
        p.status,
        p.host,
        p.type,
        `${p.key} on ${p.host}`,
        p.severity,
        created,
        p.status === 'acknowledged' ? created : null,
        p.status === 'acknowledged' ? 'fixture' : null,
        resolved,
        p.status === 'resolved' ? p.resolvedBy : null,
        p.resolvedBy === 'manual' ? 'fixture' : null,
        `${p.host}|${p.type}|fixture-${p.key}`,
      ],
    );
  }
  return { base, ids, envelopes, problemIds, at: (ago) => new Date(base.getTime() - ago) };
}
