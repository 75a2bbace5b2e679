// Postgres adapter of the correlator: applies a batch of events in ONE transaction together with their
// processed_events rows (a replayed event is skipped whole), using the pure rules of rules.ts and the
// state machine of core (core/src/problems/state.ts).
//
// Times: every event-driven timestamp (host last_seen/last_heartbeat, problem created_at/last_seen,
// correlation window, automatic resolve) is the service's receive time `received_at` from the
// envelope, so agents' drifting clocks do not matter and a replay reproduces the same rows. The flap
// rule and its 30 s deduplication use the host's `occurred_at` (302 -> 303 timing is host-side).
// The injectable clock only stamps processed_at / the outbox created_at.
import type { Pool, PoolClient } from 'pg';
import { maxSeverity } from '@watchpost/schemas';
import {
  effectiveSeverity,
  enqueueProblemMessage,
  loadTypeSettings,
  problemColumns,
  pgSafeJson,
  pgSafeKey,
  pgSafeText,
  problemPayload,
  transition,
  HOST_SILENCE_TYPE,
  type ProblemRow,
  type TimelineEvent,
  type TypeSettings,
} from '@watchpost/core';
import {
  FLAP_DEDUP_MS,
  FLAP_RULE,
  FLAP_TYPE,
  INVENTORY_RULE,
  INVENTORY_TYPE,
  SILENCE_RULE,
  deterministicUuid,
  fingerprintOf,
  hardwareDiff,
  inventoryOf,
  isFlap,
  isLivenessType,
  isRdgType,
  matchProblem,
  opensSeverityProblem,
  rdgCode,
  rdgSession,
  ruleOf,
  type CorrelateEnvelope,
  type HardwareDiff,
} from '../src/correlate/rules.ts';
// The outcome, settings, event-id check, host sanitising and retry are production's (the set-based
// correlator's), so that the comparison differs only in how events are applied.
import {
  UUID_RE,
  pgSafeHost,
  withRetriedTransaction,
  type BatchOutcome,
  type Clock,
  type CorrelateSettings,
} from '../src/correlate/processor.ts';
import type { CorrelateSpec } from '../src/correlate/work.ts';

const optText = (s: string | undefined) => (s === undefined ? undefined : pgSafeText(s));

/**
 * The event as Postgres can hold it, as the per-event correlator made it (the set-based one reads the
 * instance id and the event's kind besides): NUL and lone surrogates replaced, keys of indexed columns
 * bounded by a hash, details stored only for inventory snapshots.
 */
export function pgSafeEnvelope(env: CorrelateEnvelope): CorrelateEnvelope {
  const e = env.event;
  return {
    received_at: env.received_at,
    event: {
      ...e,
      type: pgSafeKey(e.type),
      title: pgSafeText(e.title),
      source: {
        product: pgSafeText(e.source.product),
        product_version: pgSafeText(e.source.product_version),
        agent_instance_id: optText(e.source.agent_instance_id),
      },
      host: pgSafeHost(e.host),
      details: e.type === INVENTORY_TYPE && e.details ? pgSafeJson(e.details) : e.details,
    },
  };
}

/** Applies the batch exactly once per event_id; retries the whole transaction on deadlock. */
export async function processBatch(
  pool: Pool,
  envelopes: CorrelateEnvelope[],
  settings: CorrelateSettings,
  clock: Clock,
): Promise<BatchOutcome> {
  const safe = envelopes.map(pgSafeEnvelope);
  return withRetriedTransaction(pool, (c) => applyBatch(c, safe, settings, clock));
}

async function applyBatch(
  c: PoolClient,
  envelopes: CorrelateEnvelope[],
  settings: CorrelateSettings,
  clock: Clock,
): Promise<BatchOutcome> {
  const out: BatchOutcome = { applied: 0, skipped: 0, opened: [], resolved: [], latestReceivedAt: null };
  const valid = envelopes.filter((e) => UUID_RE.test(e.event.event_id));
  out.skipped += envelopes.length - valid.length;
  if (valid.length === 0) return out;
  const now = clock();
  const ids = valid.map((e) => e.event.event_id.toLowerCase());
  const fresh = await c.query<{ event_id: string }>(
    `INSERT INTO processed_events (event_id, processed_at) SELECT unnest($1::uuid[]), $2
     ON CONFLICT (event_id) DO NOTHING RETURNING event_id::text`,
    [ids, now],
  );
  const todo = new Set(fresh.rows.map((r) => r.event_id));
  const typeSettings = await loadTypeSettings(c);
  const ctx: Ctx = { c, settings, typeSettings, now, out };
  for (const env of valid) {
    const id = env.event.event_id.toLowerCase();
    if (!todo.delete(id)) {
      out.skipped++;
      continue;
    }
    await applyEvent(ctx, env);
    out.applied++;
    const r = new Date(env.received_at);
    if (!out.latestReceivedAt || r > out.latestReceivedAt) out.latestReceivedAt = r;
  }
  return out;
}

interface Ctx {
  c: PoolClient;
  settings: CorrelateSettings;
  typeSettings: TypeSettings;
  now: Date;
  out: BatchOutcome;
}

async function applyEvent(ctx: Ctx, env: CorrelateEnvelope): Promise<void> {
  const e = env.event;
  const receivedAt = new Date(env.received_at);
  const occurredAt = new Date(e.occurred_at);
  const host = e.host.hostname;
  const liveness = isLivenessType(e.type);
  await upsertHost(ctx.c, env, receivedAt, liveness);
  const sev = effectiveSeverity(ctx.typeSettings, e.type, e.severity);
  const self: TimelineEvent = {
    event_id: e.event_id.toLowerCase(),
    occurred_at: occurredAt,
    received_at: receivedAt,
    type: e.type,
    severity: sev,
    title: e.title,
  };

  if (liveness) await autoResolveSilence(ctx, host, receivedAt);
  if (e.type === INVENTORY_TYPE) await applyInventory(ctx, env, receivedAt, self);
  if (isRdgType(e.type)) await applyRdg(ctx, env, occurredAt, receivedAt, self);

  if (opensSeverityProblem(e.type, sev, ctx.settings.problemMinSeverity)) {
    const rule = ruleOf(e.details);
    await correlate(ctx, {
      host,
      type: e.type,
      rule,
      severity: sev,
      title: e.title,
      at: receivedAt,
      matchAt: receivedAt,
      windowMs: ctx.settings.problemCorrelationWindowMinutes * 60_000,
      liveMatchTime: (p) => p.last_seen,
      seed: `${self.event_id}:${e.type}:${rule}`,
      timeline: [self],
    });
  }
}

async function upsertHost(c: PoolClient, env: CorrelateEnvelope, receivedAt: Date, liveness: boolean): Promise<void> {
  const e = env.event;
  const h = e.host;
  await c.query(
    `INSERT INTO hosts (hostname, display_name, os_family, os_version, fqdn, ipv4, ipv6, timezone, product, product_version,
                        agent_instance_id, first_seen, last_seen, last_heartbeat, status, status_changed_at, internal_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, 'online', $12, $6)
     ON CONFLICT (hostname) DO UPDATE SET
       display_name = COALESCE(EXCLUDED.display_name, hosts.display_name),
       os_family = EXCLUDED.os_family,
       os_version = COALESCE(EXCLUDED.os_version, hosts.os_version),
       fqdn = COALESCE(EXCLUDED.fqdn, hosts.fqdn),
       ipv4 = COALESCE(EXCLUDED.ipv4, hosts.ipv4),
       ipv6 = COALESCE(EXCLUDED.ipv6, hosts.ipv6),
       timezone = COALESCE(EXCLUDED.timezone, hosts.timezone),
       product = EXCLUDED.product,
       product_version = EXCLUDED.product_version,
       agent_instance_id = COALESCE(EXCLUDED.agent_instance_id, hosts.agent_instance_id),
       last_seen = GREATEST(hosts.last_seen, EXCLUDED.last_seen),
       last_heartbeat = CASE WHEN EXCLUDED.last_heartbeat IS NULL THEN hosts.last_heartbeat
                             ELSE GREATEST(hosts.last_heartbeat, EXCLUDED.last_heartbeat) END,
       status = CASE WHEN EXCLUDED.last_heartbeat IS NULL THEN hosts.status ELSE 'online' END,
       status_changed_at = CASE WHEN EXCLUDED.last_heartbeat IS NOT NULL AND hosts.status <> 'online'
                                THEN EXCLUDED.last_heartbeat ELSE hosts.status_changed_at END,
       internal_address = COALESCE(EXCLUDED.ipv4, hosts.internal_address)`,
    [
      h.hostname,
      h.display_name ?? null,
      h.os_family,
      h.os_version ?? null,
      h.fqdn ?? null,
      h.ipv4 ?? null,
      h.ipv6 ?? null,
      h.timezone ?? null,
      e.source.product,
      e.source.product_version,
      e.source.agent_instance_id ?? null,
      receivedAt,
      liveness ? receivedAt : null,
    ],
  );
}

const PROBLEM_COLUMNS = problemColumns();

/** A heartbeat (or daily report) closes the host's live host_silence problem automatically. */
async function autoResolveSilence(ctx: Ctx, host: string, at: Date): Promise<void> {
  const r = await ctx.c.query<ProblemRow>(
    `SELECT ${PROBLEM_COLUMNS} FROM problems WHERE fingerprint = $1 AND status IN ('open', 'acknowledged') FOR UPDATE`,
    [fingerprintOf(host, HOST_SILENCE_TYPE, SILENCE_RULE)],
  );
  const p = r.rows[0];
  if (!p) return;
  const t = transition(p, { kind: 'auto_resolve' }, at);
  if (!t.ok) return;
  await writeResolution(ctx, t.next, { resolve_reason: 'heartbeat' });
}

async function writeResolution(ctx: Ctx, p: ProblemRow, detailsPatch: Record<string, unknown>): Promise<void> {
  await ctx.c.query(
    `UPDATE problems SET status = $2, resolved_at = $3, resolved_by = $4, resolved_by_user = $5, details = details || $6::jsonb WHERE id = $1`,
    [p.id, p.status, p.resolved_at, p.resolved_by, p.resolved_by_user, JSON.stringify(detailsPatch)],
  );
  ctx.out.resolved.push({ id: p.id, resolved_by: 'auto' });
}

/** What a rule asks of correlate(): production's, without its late-arrival match (events apply in arrival order here). */
type PerEventSpec = Omit<CorrelateSpec, 'match'>;

/** Opens or extends the live problem of the fingerprint (see matchProblem). Returns its id. */
async function correlate(ctx: Ctx, s: PerEventSpec): Promise<string> {
  const fingerprint = fingerprintOf(s.host, s.type, s.rule);
  const r = await ctx.c.query<ProblemRow>(
    `SELECT ${PROBLEM_COLUMNS} FROM problems WHERE fingerprint = $1 AND status IN ('open', 'acknowledged') FOR UPDATE`,
    [fingerprint],
  );
  const live = r.rows[0] ?? null;
  const decision = matchProblem(
    live && { status: live.status as 'open' | 'acknowledged', last_seen: s.liveMatchTime(live) },
    s.matchAt,
    s.windowMs,
  );
  let id: string;
  if (decision === 'extend' && live) {
    id = live.id;
    await ctx.c.query(
      `UPDATE problems SET count = count + 1, last_seen = GREATEST(last_seen, $2), severity = $3, details = $4::jsonb WHERE id = $1`,
      [id, s.at, maxSeverity(live.severity, s.severity), JSON.stringify(s.details ? s.details(live.details) : live.details)],
    );
  } else {
    id = deterministicUuid(s.seed);
    if (live) {
      const t = transition(live, { kind: 'auto_resolve' }, s.at);
      if (t.ok) await writeResolution(ctx, t.next, { resolve_reason: 'superseded', superseded_by: id });
    }
    const details = s.details ? s.details(null) : {};
    await ctx.c.query(
      `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen, rdg_flap, details)
       VALUES ($1, 'open', $2, $3, $4, $5, $6, $7, 1, $8, $8, $9, $10::jsonb)`,
      [id, fingerprint, s.host, s.type, s.rule, s.title, s.severity, s.at, s.rdgFlap ?? false, JSON.stringify(details)],
    );
    const opened = { id, fingerprint, host: s.host, type: s.type, rule: s.rule, title: s.title, severity: s.severity };
    await enqueueProblemMessage(
      ctx.c,
      'problem.opened',
      problemPayload({ ...opened, rdg_flap: s.rdgFlap ?? false, created_at: s.at, details }),
      s.at,
    );
    ctx.out.opened.push({ id, type: s.type, rule: s.rule });
  }
  for (const ev of s.timeline) {
    await ctx.c.query(
      `INSERT INTO problem_events (problem_id, event_id, occurred_at, received_at, type, severity, title)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [id, ev.event_id, ev.occurred_at, ev.received_at, ev.type, ev.severity, ev.title],
    );
  }
  return id;
}

async function applyInventory(ctx: Ctx, env: CorrelateEnvelope, receivedAt: Date, self: TimelineEvent): Promise<void> {
  const host = env.event.host.hostname;
  const r = await ctx.c.query<{ inventory_hardware: unknown; inventory_at: Date | null }>(
    'SELECT inventory_hardware, inventory_at FROM hosts WHERE hostname = $1 FOR UPDATE',
    [host],
  );
  const prev = r.rows[0];
  if (prev?.inventory_at && prev.inventory_at > receivedAt) return; // an older snapshot never overwrites a newer one
  const snap = inventoryOf(env.event.details);
  await ctx.c.query(
    'UPDATE hosts SET inventory_hardware = $2::jsonb, inventory_software = $3::jsonb, inventory_at = $4 WHERE hostname = $1',
    [host, JSON.stringify(snap.hardware), JSON.stringify(snap.software), receivedAt],
  );
  const diff = hardwareDiff(prev?.inventory_hardware ?? null, snap.hardware);
  if (!diff) return;
  const entry = { event_id: self.event_id, received_at: receivedAt.toISOString(), diff };
  await correlate(ctx, {
    host,
    type: INVENTORY_TYPE,
    rule: INVENTORY_RULE,
    severity: 'warning',
    title: `Hardware changed on ${host}`,
    at: receivedAt,
    matchAt: receivedAt,
    windowMs: ctx.settings.problemCorrelationWindowMinutes * 60_000,
    liveMatchTime: (p) => p.last_seen,
    seed: `${self.event_id}:${INVENTORY_TYPE}:${INVENTORY_RULE}`,
    timeline: [{ ...self, severity: 'warning' }],
    details: (previous) => {
      const changes = ((previous?.changes as unknown[]) ?? []).slice(-19);
      return { ...(previous ?? {}), diff, changes: [...changes, entry] } satisfies Record<string, unknown> & {
        diff: HardwareDiff;
      };
    },
  });
}

async function applyRdg(
  ctx: Ctx,
  env: CorrelateEnvelope,
  occurredAt: Date,
  receivedAt: Date,
  self: TimelineEvent,
): Promise<void> {
  const e = env.event;
  const code = rdgCode(e.type, e.details);
  const session = rdgSession(e.details);
  if (!code || !session) return;
  const host = e.host.hostname;
  if (code === 302) {
    await ctx.c.query(
      `INSERT INTO rdg_sessions (host, session_id, connect_event_id, connect_occurred_at, connect_received_at, connect_type, connect_severity, connect_title)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (host, session_id) DO UPDATE SET connect_event_id = EXCLUDED.connect_event_id,
         connect_occurred_at = EXCLUDED.connect_occurred_at, connect_received_at = EXCLUDED.connect_received_at,
         connect_type = EXCLUDED.connect_type, connect_severity = EXCLUDED.connect_severity, connect_title = EXCLUDED.connect_title`,
      [host, session, self.event_id, occurredAt, receivedAt, e.type, self.severity, e.title],
    );
    return;
  }
  const r = await ctx.c.query<{
    connect_event_id: string;
    connect_occurred_at: Date;
    connect_received_at: Date;
    connect_type: string;
    connect_severity: string;
    connect_title: string;
  }>(
    `DELETE FROM rdg_sessions WHERE host = $1 AND session_id = $2
     RETURNING connect_event_id::text, connect_occurred_at, connect_received_at, connect_type, connect_severity, connect_title`,
    [host, session],
  );
  const conn = r.rows[0];
  if (!conn || !isFlap(conn.connect_occurred_at, occurredAt)) return;
  const pair = {
    connect_event_id: conn.connect_event_id,
    disconnect_event_id: self.event_id,
    session_id: session,
    seconds: (occurredAt.getTime() - conn.connect_occurred_at.getTime()) / 1000,
    disconnect_occurred_at: occurredAt.toISOString(),
  };
  const problemId = await correlate(ctx, {
    host,
    type: FLAP_TYPE,
    rule: FLAP_RULE,
    severity: 'warning',
    title: `RD Gateway session flap on ${host}`,
    at: receivedAt,
    // Deduplication window of 30 s on the host's clock, from the previous flap's disconnect.
    matchAt: occurredAt,
    windowMs: FLAP_DEDUP_MS,
    liveMatchTime: (p) =>
      new Date(typeof p.details.last_flap_at === 'string' ? p.details.last_flap_at : p.created_at.toISOString()),
    seed: `${self.event_id}:${FLAP_TYPE}:${FLAP_RULE}`,
    rdgFlap: true,
    timeline: [
      {
        event_id: conn.connect_event_id,
        occurred_at: conn.connect_occurred_at,
        received_at: conn.connect_received_at,
        type: conn.connect_type,
        severity: conn.connect_severity,
        title: conn.connect_title,
      },
      self,
    ],
    details: (previous) => {
      const pairs = ((previous?.pairs as unknown[]) ?? []).slice(-49);
      return { ...(previous ?? {}), last_flap_at: occurredAt.toISOString(), pairs: [...pairs, pair] };
    },
  });
  await ctx.c.query(
    `INSERT INTO rdg_flap_events (event_id, problem_id, role, partner_event_id, session_id)
     VALUES ($1, $3, 'connect', $2, $4), ($2, $3, 'disconnect', $1, $4) ON CONFLICT (event_id) DO NOTHING`,
    [conn.connect_event_id, self.event_id, problemId, session],
  );
}
