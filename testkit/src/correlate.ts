// Test helpers for the correlator: envelopes with explicit times, table dumps for equality checks, an
// ingest app and a reader of the events topic with its headers (the agent key travels in one).
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Pool } from 'pg';
import type { CorrelateEnvelope, CorrelateEvent } from '@watchpost/processors';
import { buildIngestApp } from '@watchpost/ingest';
import { createKafka, createRedis, type Config } from '@watchpost/runtime';
import type { EventV1 } from '@watchpost/schemas';
import { memoryLogger } from './logger.ts';

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
  /** source.agent_instance_id (default `agent-<host>`; null leaves it out). */
  instance?: string | null;
  /** host.ipv4 (default 10.0.0.5; null leaves it out). */
  ipv4?: string | null;
  fqdn?: string;
  /** The verified agent key id ingest put in the message header (absent: unknown). */
  keyId?: number;
}

/** A schema-v1 envelope (every required field present) with the given times. */
export function envelope(o: EnvOpts): CorrelateEnvelope & { event: CorrelateEvent & Record<string, unknown> } {
  const host = o.host ?? 'web-01';
  const windows = o.osFamily === 'windows' || (o.type ?? '').startsWith('rdg.') || (o.type ?? '').startsWith('rdp.');
  const instance = o.instance === undefined ? `agent-${host}` : o.instance;
  const ipv4 = o.ipv4 === undefined ? '10.0.0.5' : o.ipv4;
  return {
    received_at: o.receivedAt.toISOString(),
    ...(o.keyId !== undefined ? { agent_key_id: o.keyId } : {}),
    event: {
      schema_version: '1.0',
      event_id: o.eventId ?? randomUUID(),
      occurred_at: (o.occurredAt ?? o.receivedAt).toISOString(),
      source: {
        product: windows ? 'rdp-login-monitor' : 'ssh-monitor',
        product_version: '2.4.1',
        ...(instance === null ? {} : { agent_instance_id: instance }),
      },
      host: {
        hostname: host,
        os_family: windows ? 'windows' : 'linux',
        display_name: host.toUpperCase(),
        ...(ipv4 === null ? {} : { ipv4 }),
        ...(o.fqdn === undefined ? {} : { fqdn: o.fqdn }),
      },
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
  | 'hosts'
  | 'host_changes'
  | 'problems'
  | 'problem_events'
  | 'rdg_sessions'
  | 'rdg_pending_disconnects'
  | 'rdg_flap_events'
  | 'problem_outbox',
  unknown[]
>;

export async function dumpCorrelateTables(pool: Pool): Promise<CorrelateDump> {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    hosts: await q(`SELECT hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
      agent_instance_id, bound_key_id, bound_at, first_seen, last_seen, last_heartbeat, status, status_changed_at, ssh_admin_ok,
      internal_address, inventory_hardware, inventory_software, inventory_at FROM hosts ORDER BY hostname`),
    host_changes:
      await q(`SELECT h.hostname, c.kind, c.proposed, c.current, c.agent_instance_id, c.key_id, c.event_id, c.first_seen,
      c.last_seen, c.seen_count, c.status FROM host_changes c JOIN hosts h ON h.id = c.host_id
      ORDER BY h.hostname, c.kind, c.first_seen, c.status`),
    problems: await q('SELECT * FROM problems ORDER BY id'),
    problem_events: await q('SELECT * FROM problem_events ORDER BY problem_id, event_id'),
    rdg_sessions: await q('SELECT * FROM rdg_sessions ORDER BY host, session_id'),
    rdg_pending_disconnects: await q('SELECT * FROM rdg_pending_disconnects ORDER BY host, session_id'),
    rdg_flap_events: await q('SELECT * FROM rdg_flap_events ORDER BY event_id'),
    problem_outbox: await q('SELECT message_id, problem_id, kind, payload, created_at FROM problem_outbox ORDER BY message_id'),
  };
}

/**
 * The tables of two dumps that differ: row counts and the first rows that differ, side by side.
 * `expect(tableDifferences(got, want)).toEqual({})` names what differs; a plain toEqual of whole dumps
 * prints nothing useful (the printer stops at 1 MB per depth, and a dump of 30,000 events is larger).
 */
export function tableDifferences(got: CorrelateDump, want: CorrelateDump, show = 3): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const table of Object.keys(want) as (keyof CorrelateDump)[]) {
    const a = got[table];
    const b = want[table];
    const rows: unknown[] = [];
    for (let i = 0; i < Math.max(a.length, b.length) && rows.length < show; i++)
      if (!isDeepStrictEqual(a[i], b[i])) rows.push({ row: i, got: a[i], want: b[i] });
    if (rows.length > 0 || a.length !== b.length) out[table] = { rows: `${a.length} (want ${b.length})`, first: rows };
  }
  return out;
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

/** An ingest app on the test stores' Redis, Postgres and Kafka: post() sends one event with an agent key. */
export async function startTestIngest(config: Config, pg: Pool) {
  const redis = createRedis(config.redisUrl);
  const kafka = createKafka(config.kafkaBrokers, 'test-ingest');
  const { app } = await buildIngestApp({ config, log: memoryLogger().log, redis, pg, kafka });
  return {
    /** POST /api/v1/events; the status code. */
    async post(key: string, event: EventV1): Promise<number> {
      const r = await app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: { 'x-api-key': key },
        payload: JSON.stringify(event),
      });
      return r.statusCode;
    },
    async close() {
      await app.close();
      await redis.quit();
    },
  };
}

/** Every message of a topic with its headers (values as text), read with a throwaway group. */
export async function readWithHeaders(
  config: Config,
  topic: string,
  expected: number,
  timeoutMs = 20_000,
): Promise<{ key: string; value: string; headers: Record<string, string> }[]> {
  const consumer = createKafka(config.kafkaBrokers, 'test-header-reader').consumer({
    groupId: `headers-${topic}-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  const out = new Map<string, { key: string; value: string; headers: Record<string, string> }>();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(v);
      out.set(`${partition}:${message.offset}`, {
        key: message.key?.toString() ?? '',
        value: message.value?.toString() ?? '',
        headers,
      });
    },
  });
  const deadline = Date.now() + timeoutMs;
  while (out.size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  return [...out.values()];
}
