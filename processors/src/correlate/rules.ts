// Pure correlation rules: which events open or extend problems, fingerprints, window matching, the
// RD Gateway flap rule and the inventory hardware diff. No I/O; times are passed in.
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson, severityRank, type Severity } from '@watchpost/schemas';
import { pgSafeText } from '@watchpost/core/pg-safe';

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
export const HEARTBEAT_TYPE = 'agent.heartbeat';

export function isLivenessType(type: string): boolean {
  return type === HEARTBEAT_TYPE || type.startsWith('report.daily.');
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

// The problem identity helpers live in core (problems/store.ts): problems opened outside correlate use them too.
export { deterministicUuid, fingerprintOf } from '@watchpost/core/problems';

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

/**
 * Accepted names, first present wins. Canonical: details.event_code and details.session_id; the Windows
 * agent (rdp-login-monitor, Login_Monitor.ps1, the RD Gateway poll) sends event_id_windows and no session.
 */
export const RDG_CODE_FIELDS = [
  'event_code',
  'event_id_code',
  'code',
  'windows_event_id',
  'EventID',
  'event_id_windows',
] as const;
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
  // The agent's Get-RdgGatewaySacEventType: a 303 with a real error code is rdg.connection.failed.
  if (type === 'rdg.connection.disconnected' || type === 'rdg.connection.failed') return 303;
  return null;
}

export function rdgSession(details: Record<string, unknown> | undefined): string | null {
  const raw = firstField(details, RDG_SESSION_FIELDS);
  if (typeof raw === 'string') return pgSafeText(raw.trim().slice(0, 256)) || null;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return null;
}

export const RDG_USER_FIELDS = ['user', 'username'] as const;
export const RDG_RESOURCE_FIELDS = ['internal_ip', 'resource', 'target'] as const;
export const RDG_CLIENT_FIELDS = ['external_ip', 'client_ip', 'ip_address', 'source_ip'] as const;

/** How a connect and a disconnect find each other: the agent's session id, else user + resource + client. */
export interface RdgPairKey {
  /** Stored as rdg_sessions.session_id / rdg_flap_events.session_id. */
  key: string;
  session_id: string | null;
  user?: string;
  resource?: string;
  client?: string;
}

/** A text field of the pairing key: trimmed, case-folded, bounded; the agent's "N/A" counts as absent. */
function keyPart(details: Record<string, unknown> | undefined, names: readonly string[]): string | null {
  const raw = firstField(details, names);
  if (typeof raw !== 'string') return null;
  const v = pgSafeText(raw.trim().slice(0, 200)).toLowerCase();
  return v === '' || v === 'n/a' || v === '-' ? null : v;
}

/**
 * The pairing key of an RD Gateway event. With a session id: the id. Without (the Windows agent sends
 * none): the user (DOMAIN\user, case-insensitive), the gateway resource (internal_ip: an address or the
 * name the client typed, case-insensitive) and the client address (external_ip; "ip:port" cut to the ip
 * as the agent does). The user is required; a missing resource or client counts as "-" (as in the agent's
 * own 302 notify dedup key, Get-Rdg302NotifyDedupKey).
 */
export function rdgPairKey(details: Record<string, unknown> | undefined): RdgPairKey | null {
  const session = rdgSession(details);
  if (session) return { key: session, session_id: session };
  const user = keyPart(details, RDG_USER_FIELDS);
  if (!user) return null;
  const resource = keyPart(details, RDG_RESOURCE_FIELDS) ?? '-';
  const rawClient = keyPart(details, RDG_CLIENT_FIELDS) ?? '-';
  const client = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(rawClient)?.[1] ?? rawClient;
  return { key: `${user}|${resource}|${client}`, session_id: null, user, resource, client };
}

/**
 * The gateway's own duration of the session a 303 ends, in whole seconds: the Windows agent's
 * details.session_duration_sec (Login_Monitor.ps1 Get-RDGatewayEventInfo, the SessionDuration of the
 * gateway log). Null when absent or 0: the agent never sends a 303 of 0 s (Test-Rdg303ShouldSkipNotify),
 * so a 0 is another sender's "unknown".
 */
export function rdgSessionSeconds(details: Record<string, unknown> | undefined): number | null {
  const raw = details?.session_duration_sec;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A session the gateway itself timed at 1 to 10 s inclusive is a flap. */
export function isFlapDuration(seconds: number): boolean {
  return seconds * 1000 >= FLAP_MIN_MS && seconds * 1000 <= FLAP_MAX_MS;
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

/**
 * The changeable hardware of the Windows agent's details.inventory (Login_Monitor.ps1,
 * Get-HostInventorySnapshot): a change here raises the warning. Everything else of the snapshot
 * (windows{product_name, version, os_hardware_abstraction_layer}, ipv4[], computer_name,
 * collected_at, schema_version) is the software/OS part, stored but never diffed.
 */
export const INVENTORY_HARDWARE_KEYS = ['processor', 'motherboard', 'memory_gb', 'disks', 'video'] as const;

/**
 * Values that move on a healthy host: never part of the hardware diff (the agent sends none of these
 * inside its hardware keys today; free space, uptime or addresses added later must not page anyone).
 */
const VOLATILE_KEY = /^(free|used|available|uptime|last_boot|boot_time|collected_at|ipv4|ipv6|ip_address|temperature)/i;

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Hardware in a comparable form: volatile keys dropped, list entries (processors, disks, video cards)
 * in a stable order, since the agent lists them in whatever order WMI answers.
 */
function stableHardware(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(stableHardware);
    return items
      .map((x) => [canonicalJson(x), x] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, x]) => x);
  }
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .filter((k) => !VOLATILE_KEY.test(k))
      .map((k) => [k, stableHardware(v[k])]),
  );
}

/**
 * The snapshot of an agent.inventory event. details.hardware / details.software when sent (missing
 * parts are null); else the Windows agent's details.inventory (Send-HostInventoryToSac): hardware =
 * processor, motherboard, memory_gb, disks, video; software = the rest (windows block, ipv4 list,
 * computer_name, collected_at, schema_version).
 */
export function inventoryOf(details: Record<string, unknown> | undefined): InventorySnapshot {
  const inv = details?.inventory;
  if (details?.hardware === undefined && details?.software === undefined && isPlainObject(inv)) {
    const hw = Object.fromEntries(INVENTORY_HARDWARE_KEYS.filter((k) => k in inv).map((k) => [k, inv[k]]));
    if (Array.isArray(hw.video)) hw.video = hw.video.filter((v) => !(isPlainObject(v) && SESSION_ADAPTER.test(String(v.name))));
    const sw = Object.fromEntries(
      Object.entries(inv).filter(([k]) => !(INVENTORY_HARDWARE_KEYS as readonly string[]).includes(k)),
    );
    return { hardware: stableHardware(hw), software: sw };
  }
  return { hardware: details?.hardware ?? null, software: details?.software ?? null };
}

/**
 * The display adapter Windows adds while an RDP session is open (Win32_VideoController lists it only
 * then): it comes and goes with sessions, it is no hardware.
 */
const SESSION_ADAPTER = /^\s*Microsoft Remote Display Adapter\s*$/i;

/** Win32_DiskDrive's media types ("Fixed hard disk media"): the agent's fallback when Get-PhysicalDisk fails. */
const DISK_DRIVE_SHAPE = (disks: unknown[]) => disks.some((d) => isPlainObject(d) && /\bmedia\b/i.test(String(d.media_type)));

/**
 * The Windows agent's snapshot with what it could not read carried over from the previous one (issue 31):
 * a WMI query that failed leaves its part null or empty (Get-HostInventorySnapshot catches and logs it),
 * and when Get-PhysicalDisk fails the disks come from Win32_DiskDrive in another shape (the model as the
 * name, "Fixed hard disk media", a geometry size). Neither is a hardware change; a part read again in
 * the same shape is compared as usual.
 */
export function carryUnreadHardware(previous: unknown, next: unknown): unknown {
  if (!isPlainObject(previous) || !isPlainObject(next)) return next;
  const out: Record<string, unknown> = { ...next };
  for (const k of INVENTORY_HARDWARE_KEYS) {
    const before = previous[k];
    const now = next[k];
    const known = (v: unknown) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0);
    if (!known(before)) continue;
    if (!known(now)) out[k] = before;
    else if (k === 'disks' && Array.isArray(before) && Array.isArray(now) && DISK_DRIVE_SHAPE(before) !== DISK_DRIVE_SHAPE(now))
      out[k] = before;
  }
  return out;
}

export interface HardwareDiff {
  added: { path: string; value: unknown }[];
  removed: { path: string; value: unknown }[];
  changed: { path: string; from: unknown; to: unknown }[];
  /** Set when the diff was cut to the caps below; `total` then counts every path of the full diff. */
  truncated?: true;
  total?: { added: number; removed: number; changed: number };
}

/** A diff keeps at most this many paths and this many bytes of JSON (problem details, outbox messages). */
export const MAX_DIFF_PATHS = 100;
export const MAX_DIFF_BYTES = 8 * 1024;

/** The diff cut to `maxPaths` entries and about `maxBytes` of JSON: changed first, then added, then removed. */
export function capDiff(diff: HardwareDiff, maxPaths = MAX_DIFF_PATHS, maxBytes = MAX_DIFF_BYTES): HardwareDiff {
  const all = diff.added.length + diff.removed.length + diff.changed.length;
  if (all <= maxPaths && Buffer.byteLength(JSON.stringify(diff)) <= maxBytes) return diff;
  const out: HardwareDiff = { added: [], removed: [], changed: [] };
  let paths = 0;
  let bytes = 200; // the envelope: keys, `truncated` and `total`
  const take = <T>(from: T[], to: T[]): boolean => {
    for (const entry of from) {
      const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (paths >= maxPaths || bytes + size > maxBytes) return false;
      to.push(entry);
      paths++;
      bytes += size;
    }
    return true;
  };
  // An entry too large for what is left ends the diff (a later small one would hide the gap).
  void (take(diff.changed, out.changed) && take(diff.added, out.added) && take(diff.removed, out.removed));
  out.truncated = true;
  out.total = { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length };
  return out;
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

/**
 * Leaf-level diff of two hardware snapshots, capped (capDiff); null when equal or when there is no
 * previous snapshot.
 */
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
  return capDiff(diff);
}
