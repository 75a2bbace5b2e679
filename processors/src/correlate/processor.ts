// Postgres adapter of the correlator: applies a batch of events in ONE transaction, set-based.
//
// 1. Exactly once without a per-event ledger: the consumer's position (group, topic, partition ->
//    next offset) is read and locked, and stored again, in the transaction of the effects. Messages
//    below it were applied before (a redelivery after a crash or a rebalance, a replay of the topic)
//    and are skipped; Kafka's committed offset is only a hint where to start reading. An event id
//    seen twice in the batch, already on a problem's timeline, or in the processed_events ledger (a
//    gateway event a pair consumed) is skipped too: an agent's retry that reached Kafka twice. Other
//    repeats (heartbeats, logins) are idempotent host refreshes.
// 2. The batch's known hosts are locked and their binding read (core/src/hosts/binding.ts); the rules
//    (rules/*.ts) say what the batch must read; every event is decided against its host's binding in
//    offset order (bind, bound agent, changed facts, identity conflict), the hosts are upserted (one row
//    per host) with the pending changes, then live problems, sessions and inventories are loaded and
//    locked once.
// 3. The events run in offset order against that in-memory state (work.ts), which is then written
//    with one statement per table.
//
// Times: every event-driven timestamp (host last_seen/last_heartbeat, problem created_at/last_seen,
// correlation window, automatic resolve) is the service's receive time `received_at` from the
// envelope, so agents' drifting clocks do not matter and a replay reproduces the same rows. The flap
// rule pairs and spaces 302 -> 303 on the host's own clock (`occurred_at` as sent: an interval on one
// clock is right whatever its offset, and pairs form in host-time order whatever the arrival order);
// where a flap, a timeline entry or an inventory snapshot sits in time is the window time (core's
// windowTime: `occurred_at` while plausible, else `received_at`), as in ClickHouse.
import type { Pool, PoolClient } from 'pg';
import { DEFAULT_HEARTBEAT_MINUTES, withTransaction } from '@watchpost/runtime';
import { eventKindOf } from '@watchpost/schemas';
import { effectiveSeverity, loadTypeSettings } from '@watchpost/core/type-settings';
import { eventsApplied, lockLiveProblems, problemColumns, type ProblemRow } from '@watchpost/core/problems';
import {
  findHostsByHostname,
  identitySuspects,
  lockConfirmedHosts,
  planHeartbeats,
  planHosts,
  plausibleInstanceId,
  upsertHostChanges,
  upsertHosts,
  type HostObservation,
  type HostRefresh,
} from '@watchpost/core/hosts';
import { pgSafeJson, pgSafeKey, pgSafeText } from '@watchpost/core/pg-safe';
import { windowTime } from '@watchpost/core/window-time';
import { HEARTBEAT_TYPE, INVENTORY_TYPE, isLivenessType, type CorrelateEnvelope } from './rules.ts';
import { RULES, type CorrelateSettings, type EventCtx } from './rules/index.ts';
import { BatchWork, Needs, type RdgPending } from './work.ts';

export type { CorrelateSettings } from './rules/index.ts';
export type Clock = () => Date;

/** Where the batch's messages come from: offsets[i] is the Kafka offset of envelopes[i]. */
export interface SourcePosition {
  group: string;
  topic: string;
  partition: number;
  offsets: readonly string[];
}

export interface BatchOutcome {
  /** Events applied now. */
  applied: number;
  /** Events skipped: below the stored position, repeated in the batch, or already on a timeline. */
  skipped: number;
  opened: { id: string; type: string; rule: string }[];
  resolved: { id: string; resolved_by: 'auto' }[];
  /** Latest received_at among applied events (for the processing-lag metric). */
  latestReceivedAt: Date | null;
}

/** An event id the ledgers can key on (a uuid column); events without one are skipped. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

const optText = (s: string | undefined) => (s === undefined ? undefined : pgSafeText(s));

/** The host part of an event as Postgres can hold it (see pgSafeEnvelope): the address and name keys bounded. */
export function pgSafeHost(h: CorrelateEnvelope['event']['host']): CorrelateEnvelope['event']['host'] {
  return {
    hostname: pgSafeKey(h.hostname),
    os_family: pgSafeText(h.os_family),
    display_name: optText(h.display_name),
    fqdn: optText(h.fqdn),
    os_version: optText(h.os_version),
    ipv4: h.ipv4 === undefined ? undefined : pgSafeKey(h.ipv4),
    ipv6: optText(h.ipv6),
    timezone: optText(h.timezone),
  };
}

/**
 * The event as Postgres can hold it (core/src/pg-safe.ts): NUL and lone surrogates replaced, keys of
 * indexed columns (hostname, type, address) bounded by a hash. Only what reaches Postgres is copied:
 * details are read for the rule name and the RD Gateway session (made safe where read) and stored
 * only for inventory snapshots.
 */
export function pgSafeEnvelope(env: CorrelateEnvelope): CorrelateEnvelope {
  const e = env.event;
  // An implausible instance id (blank, over 128 characters, control characters) counts as absent.
  const instance = plausibleInstanceId(e.source.agent_instance_id);
  // Correlated as what it is (a 4625 labelled agent.notification is a failed login: schemas' eventKindOf).
  const kind = eventKindOf(e);
  return {
    received_at: env.received_at,
    agent_key_id: env.agent_key_id ?? null,
    event: {
      ...e,
      event_id: e.event_id.toLowerCase(),
      type: pgSafeKey(kind.type),
      severity: kind.severity,
      title: pgSafeText(e.title),
      source: {
        product: pgSafeText(e.source.product),
        product_version: pgSafeText(e.source.product_version),
        agent_instance_id: optText(instance ?? undefined),
      },
      host: pgSafeHost(e.host),
      details: e.type === INVENTORY_TYPE && e.details ? pgSafeJson(e.details) : e.details,
    },
  };
}

/** Applies the batch exactly once (see the head of this file); retries the whole transaction on deadlock. */
export async function processBatch(
  pool: Pool,
  envelopes: readonly CorrelateEnvelope[],
  settings: CorrelateSettings,
  clock: Clock,
  position?: SourcePosition,
): Promise<BatchOutcome> {
  const safe = envelopes.map(pgSafeEnvelope);
  return withRetriedTransaction(pool, (c) => applyBatch(c, safe, settings, clock, position));
}

/** `fn` in one transaction, run again from the start on a serialization failure or a deadlock (5 tries at most). */
export async function withRetriedTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, fn);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= 5) throw err;
    }
  }
}

/** Locks the stored position of the partition and returns the next offset to apply. */
async function lockPosition(c: PoolClient, p: SourcePosition): Promise<bigint> {
  const r = await c.query<{ next_offset: string }>(
    `INSERT INTO consumer_offsets (consumer_group, topic, partition, next_offset) VALUES ($1, $2, $3, 0)
     ON CONFLICT (consumer_group, topic, partition) DO UPDATE SET next_offset = consumer_offsets.next_offset
     RETURNING next_offset::text`,
    [p.group, p.topic, p.partition],
  );
  return BigInt(r.rows[0]!.next_offset);
}

async function applyBatch(
  c: PoolClient,
  envelopes: CorrelateEnvelope[],
  settings: CorrelateSettings,
  clock: Clock,
  position: SourcePosition | undefined,
): Promise<BatchOutcome> {
  const out: BatchOutcome = { applied: 0, skipped: 0, opened: [], resolved: [], latestReceivedAt: null };
  let candidates = envelopes;
  let nextOffset: bigint | null = null;
  if (position) {
    const from = await lockPosition(c, position);
    candidates = envelopes.filter((_, i) => BigInt(position.offsets[i]!) >= from);
    let last = from - 1n;
    for (const o of position.offsets) if (BigInt(o) > last) last = BigInt(o);
    nextOffset = last + 1n > from ? last + 1n : null;
  }
  const seen = new Set<string>();
  const fresh: CorrelateEnvelope[] = [];
  for (const env of candidates) {
    const id = env.event.event_id;
    if (!UUID_RE.test(id) || seen.has(id)) continue;
    seen.add(id);
    fresh.push(env);
  }

  const typeSettings = await loadTypeSettings(c);
  // Hosts first (the same lock order as the liveness scan and the API's change decisions: host rows
  // by hostname, then problems): their binding decides what each event may change.
  const observations = fresh.map(observationOf);
  const known = await lockConfirmedHosts(
    c,
    observations.map((o) => o.hostname),
  );
  const suspects = identitySuspects(known, observations);
  const observed = new Map<EventCtx, HostObservation>();
  const needs = new Needs();
  const maybeApplied: string[] = [];
  const events: EventCtx[] = fresh.map((env, i) => {
    const e = env.event;
    const receivedAt = new Date(env.received_at);
    const windowAt = windowTime(e.occurred_at, receivedAt).at;
    const severity = effectiveSeverity(typeSettings, e.type, e.severity);
    const ev: EventCtx = {
      env,
      e,
      host: e.host.hostname,
      receivedAt,
      occurredAt: new Date(e.occurred_at),
      windowAt,
      severity,
      self: {
        event_id: e.event_id,
        occurred_at: windowAt,
        received_at: receivedAt,
        type: e.type,
        severity,
        title: e.title,
      },
      settings,
      identitySuspect: suspects.has(e.host.hostname),
      identity: { kind: 'bound' },
    };
    observed.set(ev, observations[i]!);
    let timeline = false;
    for (const rule of RULES) timeline = rule.needs(ev, needs).timeline || timeline;
    if (timeline) maybeApplied.push(e.event_id);
    return ev;
  });
  const done = await eventsApplied(c, maybeApplied);
  const todo = done.size > 0 ? events.filter((ev) => !done.has(ev.self.event_id)) : events;

  if (todo.length > 0) {
    const plan = planHosts(
      known,
      todo.map((ev) => observed.get(ev)!),
    );
    todo.forEach((ev, i) => (ev.identity = plan.verdicts[i]!));
    const beats = planHeartbeats(
      known,
      todo.filter((ev) => ev.e.type === HEARTBEAT_TYPE).map((ev) => observed.get(ev)!),
      settings.heartbeatDefaults ?? DEFAULT_HEARTBEAT_MINUTES,
    );
    for (const h of plan.hosts) {
      const beat = beats.get(h.hostname);
      if (beat) h.beat = { ...beat, stored: known.has(h.hostname) };
    }
    await upsertHosts(c, plan.hosts);
    await upsertHostChanges(c, plan.changes);
    const live = await lockLiveProblems(c, [...needs.fingerprints]);
    const pending = await loadPending(c, needs);
    const history = await loadHistory(c, needs);
    const inventories = await loadInventories(c, needs);
    const work = new BatchWork(needs, live, pending, inventories, history);
    for (const ev of todo) {
      for (const rule of RULES) rule.apply(ev, work);
      if (!out.latestReceivedAt || ev.receivedAt > out.latestReceivedAt) out.latestReceivedAt = ev.receivedAt;
    }
    await work.write(c);
    out.opened = work.opened;
    out.resolved = work.resolved;
  }
  if (position && nextOffset !== null)
    await c.query(
      `UPDATE consumer_offsets SET next_offset = $4, updated_at = $5 WHERE consumer_group = $1 AND topic = $2 AND partition = $3`,
      [position.group, position.topic, position.partition, nextOffset.toString(), clock()],
    );
  out.applied = todo.length;
  out.skipped = envelopes.length - todo.length;
  return out;
}

/** What an event (made safe) says about its host. */
function observationOf(env: CorrelateEnvelope): HostObservation {
  const e = env.event;
  const h = e.host;
  return {
    hostname: h.hostname,
    event_id: e.event_id,
    received_at: new Date(env.received_at),
    live: isLivenessType(e.type),
    agent_instance_id: e.source.agent_instance_id,
    key_id: env.agent_key_id ?? null,
    os_family: h.os_family,
    product: e.source.product,
    product_version: e.source.product_version,
    display_name: h.display_name ?? null,
    os_version: h.os_version ?? null,
    fqdn: h.fqdn ?? null,
    ipv4: h.ipv4 ?? null,
    ipv6: h.ipv6 ?? null,
    timezone: h.timezone ?? null,
  };
}

/** The host rows a batch of safe envelopes upserts into an empty table (bench:correlate's floor writes the same rows). */
export function hostRowsOf(envelopes: readonly CorrelateEnvelope[]): HostRefresh[] {
  return planHosts(new Map(), envelopes.map(observationOf)).hosts;
}

/** The latest superseded problems (20) of the fingerprints a late event may extend, locked, newest first. */
async function loadHistory(c: PoolClient, needs: Needs): Promise<Map<string, ProblemRow[]>> {
  const out = new Map<string, ProblemRow[]>();
  if (needs.history.size === 0) return out;
  const keys = [...needs.history.values()];
  const r = await c.query<ProblemRow>(
    // problems_host_type_idx (host, type, created_at DESC) finds them.
    `SELECT ${problemColumns('p')} FROM unnest($1::text[], $2::text[], $3::text[]) AS f(host, type, rule)
       CROSS JOIN LATERAL (SELECT * FROM problems q WHERE q.host = f.host AND q.type = f.type AND q.rule = f.rule
                             AND q.status = 'resolved' AND q.resolved_by = 'auto'
                           ORDER BY q.created_at DESC, q.id LIMIT 20 FOR UPDATE) p
      ORDER BY p.fingerprint, p.created_at DESC, p.id`,
    [keys.map((k) => k.host), keys.map((k) => k.type), keys.map((k) => k.rule)],
  );
  for (const p of r.rows) out.set(p.fingerprint, [...(out.get(p.fingerprint) ?? []), p]);
  return out;
}

/** The waiting connects and disconnects of the batch's pairing keys, locked. */
async function loadPending(c: PoolClient, needs: Needs): Promise<Map<string, RdgPending>> {
  const out = new Map<string, RdgPending>();
  if (needs.sessions.size === 0) return out;
  const keys = [...needs.sessions.values()];
  const params = [keys.map((k) => k.host), keys.map((k) => k.session)];
  for (const [role, table, prefix] of [
    ['connect', 'rdg_sessions', 'connect'],
    ['disconnect', 'rdg_pending_disconnects', 'disconnect'],
  ] as const) {
    const r = await c.query<RdgPending & { host: string; session_id: string }>(
      `SELECT r.host, r.session_id, ${prefix}_event_id::text AS event_id, ${prefix}_occurred_at AS occurred_at,
              ${prefix}_received_at AS received_at, ${prefix}_type AS type, ${prefix}_severity AS severity,
              ${prefix}_title AS title
         FROM ${table} r JOIN unnest($1::text[], $2::text[]) AS k(host, session_id)
           ON r.host = k.host AND r.session_id = k.session_id
        FOR UPDATE OF r`,
      params,
    );
    for (const { host, session_id, ...row } of r.rows) out.set(BatchWork.pendingKey(host, session_id, role), row);
  }
  return out;
}

async function loadInventories(c: PoolClient, needs: Needs): Promise<Map<string, { hardware: unknown; at: Date | null }>> {
  const rows = await findHostsByHostname(c, [...needs.inventoryHosts], ['inventory_hardware', 'inventory_at']);
  const out = new Map<string, { hardware: unknown; at: Date | null }>();
  for (const [hostname, row] of rows) out.set(hostname, { hardware: row.inventory_hardware, at: row.inventory_at });
  return out;
}
