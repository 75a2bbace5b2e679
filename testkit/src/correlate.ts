// Test helpers for the correlator: envelopes with explicit times, table dumps for equality checks.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { CorrelateEnvelope, CorrelateEvent } from '@watchpost/processors';

export interface EnvOpts {
  host?: string;
  type?: string;
  severity?: string;
  title?: string;
  details?: Record<string, unknown>;
  receivedAt: Date;
  occurredAt?: Date;
  eventId?: string;
  osFamily?: 'linux' | 'windows';
}

/** A schema-v1 envelope (every required field present) with the given times. */
export function envelope(o: EnvOpts): CorrelateEnvelope & { event: CorrelateEvent & Record<string, unknown> } {
  const host = o.host ?? 'web-01';
  const windows = o.osFamily === 'windows' || (o.type ?? '').startsWith('rdg.') || (o.type ?? '').startsWith('rdp.');
  return {
    received_at: o.receivedAt.toISOString(),
    event: {
      schema_version: '1.0',
      event_id: o.eventId ?? randomUUID(),
      occurred_at: (o.occurredAt ?? o.receivedAt).toISOString(),
      source: {
        product: windows ? 'rdp-login-monitor' : 'ssh-monitor',
        product_version: '2.4.1',
        agent_instance_id: `agent-${host}`,
      },
      host: { hostname: host, os_family: windows ? 'windows' : 'linux', display_name: host.toUpperCase(), ipv4: '10.0.0.5' },
      category: 'auth',
      type: o.type ?? 'ssh.login.failed',
      severity: o.severity ?? 'warning',
      title: o.title ?? `${o.type ?? 'ssh.login.failed'} on ${host}`,
      summary: 'test event',
      ...(o.details ? { details: o.details } : {}),
    },
  };
}

/** Every correlate table, ordered, without columns that depend on wall-clock or insert order. */
export type CorrelateDump = Record<
  'hosts' | 'problems' | 'problem_events' | 'rdg_sessions' | 'rdg_flap_events' | 'problem_outbox',
  unknown[]
>;

export async function dumpCorrelateTables(pool: Pool): Promise<CorrelateDump> {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    hosts: await q(`SELECT hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
      agent_instance_id, first_seen, last_seen, last_heartbeat, status, status_changed_at, ssh_admin_ok, internal_address,
      inventory_hardware, inventory_software, inventory_at FROM hosts ORDER BY hostname`),
    problems: await q('SELECT * FROM problems ORDER BY id'),
    problem_events: await q('SELECT * FROM problem_events ORDER BY problem_id, event_id'),
    rdg_sessions: await q('SELECT * FROM rdg_sessions ORDER BY host, session_id'),
    rdg_flap_events: await q('SELECT * FROM rdg_flap_events ORDER BY event_id'),
    problem_outbox: await q('SELECT message_id, problem_id, kind, payload, created_at FROM problem_outbox ORDER BY message_id'),
  };
}

/** Small seeded PRNG (mulberry32) so a stream's shape is the same on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A mixed stream for replay and crash tests: 40 hosts (half Windows with gateway 302/303 pairs at
 * gaps around the flap edges), failed logins, privileged commands, heartbeats, inventory changes,
 * hosts that go quiet for longer than a 20 min window, and ~2% repeated messages (at-least-once).
 * received_at advances 1 s per event from `base`.
 */
export function mixedStream(n: number, seed = 1, base = new Date('2025-03-01T00:00:00.000Z')): CorrelateEnvelope[] {
  const rnd = seeded(seed);
  const out: CorrelateEnvelope[] = [];
  const hosts = Array.from({ length: 40 }, (_, k) => ({ name: `host-${String(k).padStart(2, '0')}`, windows: k % 2 === 1 }));
  let i = 0;
  let session = 0;
  const recv = () => new Date(base.getTime() + i * 1000);
  while (out.length < n) {
    const phase = Math.floor(i / 2000) % 2;
    const pool = hosts.filter((_, k) => k % 4 === 0 || k % 2 === phase); // some hosts pause for ~33 min
    const h = pool[Math.floor(rnd() * pool.length)]!;
    const r = rnd();
    const received = recv();
    const occurred = new Date(received.getTime() - 200);
    const push = (e: CorrelateEnvelope) => {
      out.push(e);
      i++;
      if (rnd() < 0.02) out.push(e); // a repeated delivery
    };
    if (r < 0.3)
      push(envelope({ host: h.name, severity: rnd() < 0.8 ? 'warning' : 'high', receivedAt: received, occurredAt: occurred }));
    else if (r < 0.45)
      push(envelope({ host: h.name, type: 'ssh.login.success', severity: 'info', receivedAt: received, occurredAt: occurred }));
    else if (r < 0.6)
      push(envelope({ host: h.name, type: 'agent.heartbeat', severity: 'info', receivedAt: received, occurredAt: occurred }));
    else if (r < 0.65)
      push(
        envelope({
          host: h.name,
          type: 'privilege.sudo.command',
          severity: 'critical',
          details: { rule: 'root_shell' },
          receivedAt: received,
          occurredAt: occurred,
        }),
      );
    else if (r < 0.7) {
      const hw = { cpu: { cores: rnd() < 0.7 ? 8 : 16 }, memory_mb: 16384 };
      push(
        envelope({
          host: h.name,
          type: 'agent.inventory',
          severity: 'info',
          details: { hardware: hw, software: [{ name: 'agent' }] },
          receivedAt: received,
          occurredAt: occurred,
        }),
      );
    } else if (!h.windows)
      push(envelope({ host: h.name, type: 'ssh.ip.banned', severity: 'warning', receivedAt: received, occurredAt: occurred }));
    else {
      const sid = `S-${++session}`;
      const gap = [500, 1000, 2000, 5000, 10_000, 12_000][Math.floor(rnd() * 6)]!;
      push(
        envelope({
          host: h.name,
          type: 'rdg.connection.success',
          severity: 'info',
          details: { event_code: 302, session_id: sid },
          receivedAt: received,
          occurredAt: occurred,
        }),
      );
      const received2 = recv();
      push(
        envelope({
          host: h.name,
          type: 'rdg.connection.disconnected',
          severity: 'info',
          details: { event_code: 303, session_id: sid },
          receivedAt: received2,
          occurredAt: new Date(occurred.getTime() + gap),
        }),
      );
    }
  }
  return out.slice(0, n);
}

/** Sum over partitions of the next offset correlate stored (= events of the topic applied or skipped). */
export async function correlatePosition(pool: Pool): Promise<number> {
  const r = await pool.query<{ n: string }>('SELECT COALESCE(sum(next_offset), 0)::text AS n FROM consumer_offsets');
  return Number(r.rows[0]!.n);
}
