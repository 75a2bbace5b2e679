// Pure correlation rules: which events open or extend problems, fingerprints, window matching, the
// RD Gateway flap rule and the inventory hardware diff. No I/O; times are passed in.
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { severityRank, type Severity } from '@watchpost/schemas';
import { pgSafeText } from '@watchpost/core';

/** The subset of an Event v1 the correlator reads (structurally compatible with schemas' EventV1). */
export interface CorrelateEvent {
  event_id: string;
  occurred_at: string;
  source: { product: string; product_version: string; agent_instance_id?: string };
  host: {
    hostname: string;
    os_family: string;
    display_name?: string;
    fqdn?: string;
    os_version?: string;
    ipv4?: string;
    ipv6?: string;
    timezone?: string;
  };
  category: string;
  type: string;
  severity: string;
  title: string;
  details?: Record<string, unknown>;
}

export interface CorrelateEnvelope {
  received_at: string;
  event: CorrelateEvent;
  /** The verified agent key id from the message's AGENT_KEY_HEADER (not in the value); absent = unknown. */
  agent_key_id?: number | null;
}

// ---- event classes -------------------------------------------------------------------------------

/** Liveness types update last_heartbeat (spec: agent.heartbeat and report.daily.*). */
export function isLivenessType(type: string): boolean {
  return type === 'agent.heartbeat' || type.startsWith('report.daily.');
}

/** Types with their own rules: they never open a problem through the severity rule. */
export function hasOwnRules(type: string): boolean {
  return isLivenessType(type) || type.startsWith('report.') || type === 'agent.inventory';
}

export function isRdgType(type: string): boolean {
  return type.startsWith('rdg.connection.');
}

export const GENERIC_RULE = 'severity';
export const FLAP_RULE = 'rdg_flap';
export const FLAP_TYPE = 'rdg.connection.flap';
export const INVENTORY_RULE = 'hardware_change';
export const INVENTORY_TYPE = 'agent.inventory';
export const SILENCE_RULE = 'heartbeat_stale';

/** The generic rule name: details.rule when the agent names one (short string), else "severity". */
export function ruleOf(details: Record<string, unknown> | undefined): string {
  const r = details?.rule;
  return typeof r === 'string' && r.length > 0 && r.length <= 128 ? pgSafeText(r) : GENERIC_RULE;
}

/** Does this event open or extend a problem through the severity rule? */
export function opensSeverityProblem(type: string, effective: Severity, minSeverity: Severity): boolean {
  return !hasOwnRules(type) && severityRank(effective) >= severityRank(minSeverity);
}

export function fingerprintOf(host: string, type: string, rule: string): string {
  return `${host}|${type}|${rule}`;
}

/** Deterministic problem id (UUID layout) from a seed, e.g. the opening event id and the rule. */
export function deterministicUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version nibble 5 (name-based)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

// ---- window matching -----------------------------------------------------------------------------

export interface LiveProblem {
  status: 'open' | 'acknowledged';
  last_seen: Date;
}

export type MatchDecision = 'extend' | 'supersede_and_open' | 'open';

/**
 * A live problem with the same fingerprint takes the event when `at - last_seen <= windowMs` (the edge
 * is inclusive). A live problem outside the window is closed automatically (superseded) and a new one
 * opens: only one live problem per fingerprint may exist. Resolved problems are never passed here.
 */
export function matchProblem(live: LiveProblem | null, at: Date, windowMs: number): MatchDecision {
  if (!live) return 'open';
  return at.getTime() - live.last_seen.getTime() <= windowMs ? 'extend' : 'supersede_and_open';
}

// ---- RD Gateway flap ------------------------------------------------------------------------------

export const FLAP_MIN_MS = 1000;
export const FLAP_MAX_MS = 10_000;
export const FLAP_DEDUP_MS = 30_000;

/** Accepted names, first present wins. Canonical: details.event_code and details.session_id. */
export const RDG_CODE_FIELDS = ['event_code', 'event_id_code', 'code', 'windows_event_id', 'EventID'] as const;
export const RDG_SESSION_FIELDS = ['session_id', 'connection_id', 'session', 'session_guid', 'tunnel_id'] as const;

function firstField(details: Record<string, unknown> | undefined, names: readonly string[]): unknown {
  if (!details) return undefined;
  for (const n of names) if (details[n] !== undefined && details[n] !== null && details[n] !== '') return details[n];
  return undefined;
}

/** 302 (connect) or 303 (disconnect), from details or, when absent, from the well-known type names. */
export function rdgCode(type: string, details: Record<string, unknown> | undefined): 302 | 303 | null {
  const raw = firstField(details, RDG_CODE_FIELDS);
  if (raw !== undefined) {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    return n === 302 || n === 303 ? n : null;
  }
  if (type === 'rdg.connection.success' || type === 'rdg.connection.connected') return 302;
  if (type === 'rdg.connection.disconnected') return 303;
  return null;
}

export function rdgSession(details: Record<string, unknown> | undefined): string | null {
  const raw = firstField(details, RDG_SESSION_FIELDS);
  if (typeof raw === 'string') return pgSafeText(raw.trim().slice(0, 256)) || null;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return null;
}

/** Flap when the disconnect follows the connect by 1 to 10 seconds inclusive (host clock, occurred_at). */
export function isFlap(connectAt: Date, disconnectAt: Date): boolean {
  const d = disconnectAt.getTime() - connectAt.getTime();
  return d >= FLAP_MIN_MS && d <= FLAP_MAX_MS;
}

// ---- inventory -----------------------------------------------------------------------------------

export interface InventorySnapshot {
  hardware: unknown;
  software: unknown;
}

/** details.hardware / details.software of an agent.inventory event (missing parts are null). */
export function inventoryOf(details: Record<string, unknown> | undefined): InventorySnapshot {
  return { hardware: details?.hardware ?? null, software: details?.software ?? null };
}

export interface HardwareDiff {
  added: { path: string; value: unknown }[];
  removed: { path: string; value: unknown }[];
  changed: { path: string; from: unknown; to: unknown }[];
}

function flatten(x: unknown, path: string, out: Map<string, unknown>): void {
  if (x !== null && typeof x === 'object') {
    const entries = Array.isArray(x) ? x.map((v, i) => [String(i), v] as const) : Object.entries(x as Record<string, unknown>);
    if (entries.length === 0) out.set(path || '$', x);
    for (const [k, v] of entries) flatten(v, path ? `${path}.${k}` : k, out);
    return;
  }
  out.set(path || '$', x);
}

/** Leaf-level diff of two hardware snapshots; null when equal or when there is no previous snapshot. */
export function hardwareDiff(previous: unknown, next: unknown): HardwareDiff | null {
  if (previous === null || previous === undefined || isDeepStrictEqual(previous, next)) return null;
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  flatten(previous, '', a);
  flatten(next ?? null, '', b);
  const diff: HardwareDiff = { added: [], removed: [], changed: [] };
  for (const [k, v] of b) {
    if (!a.has(k)) diff.added.push({ path: k, value: v });
    else if (!isDeepStrictEqual(a.get(k), v)) diff.changed.push({ path: k, from: a.get(k), to: v });
  }
  for (const [k, v] of a) if (!b.has(k)) diff.removed.push({ path: k, value: v });
  if (diff.added.length + diff.removed.length + diff.changed.length === 0) return null;
  return diff;
}
