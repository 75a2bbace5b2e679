// Agent identity (issue 21): a host is bound to the agent that first spoke for it, its agent instance
// (source.agent_instance_id) and its agent key (the id ingest verified, carried in the Kafka header
// AGENT_KEY_HEADER). What remote actions rely on (os_family, product, fqdn, ipv4 and internal_address:
// the confirmed facts) then changes only when an admin accepts a pending change (changes.ts):
//
// - a new host is bound at its first event, whose facts are shown but wait, as a pending `facts` change,
//   for an admin: until one accepts them the host is unconfirmed and no credential goes to it (issue 33);
// - a host bound before this existed (agent_instance_id or bound_key_id null) gets the missing part
//   from the first event that carries it (no conflict);
// - an event from another instance than the bound one, or under another key than the bound one (both
//   known), is a conflict: binding and facts stay, a pending `identity` change (and, through correlate's
//   identity rule, a high `host_identity_conflict` problem) records it;
// - so is an event WITHOUT an instance id (or with an implausible one) for a host bound to an instance
//   (issue 33): an instance id is an identifier, not a secret, and not optional. Counted as the bound
//   agent, anyone holding the fleet key could pass for a host's agent by leaving the id out (its addresses
//   would wait as the bound agent's own facts change, its names and version would be taken). Its
//   proposal names `agent_instance_id: null`: accepting it binds the host to no instance (an agent that
//   sends none), so its later events are no conflict;
// - an event from the bound agent whose os_family, product, fqdn or ipv4 differ from the confirmed ones
//   (only fields the event gives: an absent one is never a change) leaves a pending `facts` change and
//   no problem: fleets on DHCP, or whose agent reports the first of several adapters, would page on
//   every lease or adapter flip; the host list shows the pending change instead. An ipv4 an admin
//   accepted before the current one (known_ipv4: a multi-homed host's other leg) is no change.
// A host bound to NO instance (ssh-monitor's e-mails carry none: ingest/src/smtp) takes any event of its
// key as its agent's, and an event with no known key (a message from before the header) is never a
// conflict by the key it lacks; the Windows agent always sends its instance id (AGENTS.md).
//
// planHosts() decides this per event, in the batch's order, against the state the batch has built so
// far (pure: the same rows whatever the batching); correlate writes the outcome with one host upsert
// (store.ts) and one upsert of the pending changes (upsertHostChanges).
import type { PoolClient } from '@watchpost/runtime';
import type { HostRefresh, HostRow } from './store.ts';

/** The problem type correlate opens for an identity conflict, and its rule. */
export const HOST_IDENTITY_CONFLICT_TYPE = 'host_identity_conflict';
export const HOST_IDENTITY_RULE = 'identity';
export const MAX_AGENT_INSTANCE_ID_LENGTH = 128;
/** The product_version of an event that does not know it (rdp-login-monitor without $ScriptVersion, ssh-monitor's e-mails). */
export const UNKNOWN_VERSION = 'unknown';

// C0 and C1 control characters and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The instance id when it is a plausible one (non-blank, at most 128 characters, no control characters), else null. */
export function plausibleInstanceId(v: string | null | undefined): string | null {
  if (typeof v !== 'string' || v.length > MAX_AGENT_INSTANCE_ID_LENGTH || v.trim() === '' || CONTROL.test(v)) return null;
  return v;
}

/** Where a pending change stands: the latest event it counted. */
export interface PendingChangeState {
  last_seen: Date;
  event_id: string;
  seen_count: number;
}

/** A known host's binding and confirmed facts, and its pending facts/identity changes, as read (locked) at the start of a batch. */
export type ConfirmedHost = Pick<
  HostRow,
  | 'hostname'
  | 'agent_instance_id'
  | 'bound_key_id'
  | 'os_family'
  | 'product'
  | 'product_version'
  | 'fqdn'
  | 'ipv4'
  | 'internal_address'
  | 'last_beat_at'
  | 'beat_gaps'
  | 'heartbeat_interval_seconds'
> & {
  pending: Partial<Record<'facts' | 'identity', PendingChangeState>>;
  /** Addresses an admin accepted before the current ipv4 (a multi-homed host's other legs): no change. */
  known_ipv4: string[];
};

/** What one event says about its host (values as Postgres holds them: pg-safe). */
export interface HostObservation {
  hostname: string;
  event_id: string;
  received_at: Date;
  /** agent.heartbeat or report.daily.*: refreshes last_heartbeat. */
  live: boolean;
  /** source.agent_instance_id as sent (plausibility is checked here). */
  agent_instance_id: string | null | undefined;
  /** The verified agent key id from the message header; null when unknown. */
  key_id: number | null;
  os_family: string;
  product: string;
  product_version: string;
  display_name: string | null;
  os_version: string | null;
  fqdn: string | null;
  ipv4: string | null;
  ipv6: string | null;
  timezone: string | null;
}

export type IdentityVerdict =
  /** A new host bound by this event, or a missing part of the binding filled by it. */
  | { kind: 'bind' }
  /** From the bound agent, nothing that remote actions rely on differs. */
  | { kind: 'bound' }
  /** From the bound agent with other facts: a pending facts change. */
  | { kind: 'facts' }
  /** From another instance or key: a pending identity change and a problem. */
  | {
      kind: 'conflict';
      bound: { agent_instance_id: string | null; key_id: number | null };
      agent_instance_id: string | null;
      key_id: number | null;
    };

/** One pending change to upsert (one per host and kind; a newer proposal replaces an older one). */
export interface HostChangeUpsert {
  hostname: string;
  kind: 'facts' | 'identity';
  /**
   * What accepting applies: only values the event gave (an absent fqdn/ipv4 or an unknown key is not
   * proposed); an identity change names agent_instance_id whenever the event or the binding has one (null:
   * the event had none, accepting unbinds the instance).
   */
  proposed: Record<string, string | number | null>;
  /** The bound values when first seen: agent_instance_id, key_id and the confirmed facts. */
  current: Record<string, string | number | null>;
  agent_instance_id: string | null;
  key_id: number | null;
  event_id: string;
  first_seen: Date;
  last_seen: Date;
  seen_count: number;
}

export interface HostBatchPlan {
  /** One refresh per host, sorted by hostname (a fixed lock order). */
  hosts: HostRefresh[];
  changes: HostChangeUpsert[];
  /** Per observation, in the order given. */
  verdicts: IdentityVerdict[];
}

const FACTS = ['os_family', 'product', 'fqdn', 'ipv4'] as const;

interface HostState {
  /** The pending changes as stored before the batch. */
  stored: ConfirmedHost['pending'];
  instance: string | null;
  key: number | null;
  facts: Pick<ConfirmedHost, 'os_family' | 'product' | 'fqdn' | 'ipv4' | 'internal_address'>;
  knownIpv4: readonly string[];
  refresh: HostRefresh;
  /** Pending changes of this batch by kind. */
  changes: Map<'facts' | 'identity', HostChangeUpsert>;
}

function currentOf(s: HostState): Record<string, string | number | null> {
  return { agent_instance_id: s.instance, key_id: s.key, ...s.facts };
}

/**
 * Counts the event toward the pending change of its kind, when it is newer than the latest event the
 * change counted: a later receive time, or the same with another event id. A message Kafka holds twice
 * (a producer retry appends the same envelope again) is therefore counted once however the batches fall,
 * and never brings back an older proposal.
 */
function pend(
  s: HostState,
  o: HostObservation,
  kind: 'facts' | 'identity',
  proposed: Record<string, string | number | null>,
): void {
  const prev = s.changes.get(kind);
  const base = prev ?? s.stored[kind];
  if (base) {
    const t = o.received_at.getTime();
    const last = base.last_seen.getTime();
    if (t < last || (t === last && o.event_id === base.event_id)) return;
  }
  s.changes.set(kind, {
    hostname: o.hostname,
    kind,
    proposed,
    // Kept as first seen (the upsert keeps a stored row's current and first_seen).
    current: prev?.current ?? currentOf(s),
    agent_instance_id: plausibleInstanceId(o.agent_instance_id),
    key_id: o.key_id,
    event_id: o.event_id,
    first_seen: prev?.first_seen ?? o.received_at,
    last_seen: o.received_at,
    seen_count: (base?.seen_count ?? 0) + 1,
  });
}

/**
 * A new host's addresses wait for an admin like any other facts change (issue 33): the host row shows what
 * the event said, but until the change is accepted the host is unconfirmed and the actions worker sends
 * it no credential. Otherwise an invented hostname, posted with the fleet key, would choose where the
 * Windows administrator's password goes. `current` is empty: nothing was confirmed before.
 */
function proposeNewHost(s: HostState, o: HostObservation): void {
  const proposed: Record<string, string | number> = { os_family: o.os_family, product: o.product };
  if (o.fqdn !== null) proposed.fqdn = o.fqdn;
  if (o.ipv4 !== null) proposed.ipv4 = proposed.internal_address = o.ipv4;
  s.changes.set('facts', {
    hostname: o.hostname,
    kind: 'facts',
    proposed,
    current: {
      agent_instance_id: s.instance,
      key_id: s.key,
      os_family: null,
      product: null,
      fqdn: null,
      ipv4: null,
      internal_address: null,
    },
    agent_instance_id: s.instance,
    key_id: o.key_id,
    event_id: o.event_id,
    first_seen: o.received_at,
    last_seen: o.received_at,
    seen_count: 1,
  });
}

/** Refreshes liveness and last_seen (every event), and the descriptive fields (events of the bound agent). */
function refreshFrom(r: HostRefresh, o: HostObservation, descriptive: boolean): void {
  if (o.received_at > r.last_seen) r.last_seen = o.received_at;
  if (o.live) {
    if (!r.last_heartbeat || o.received_at > r.last_heartbeat) r.last_heartbeat = o.received_at;
    r.first_live_at ??= o.received_at;
  }
  if (!descriptive) return;
  r.display_name = o.display_name ?? r.display_name;
  r.os_version = o.os_version ?? r.os_version;
  r.ipv6 = o.ipv6 ?? r.ipv6;
  r.timezone = o.timezone ?? r.timezone;
  // An agent that does not say its version in every event (ssh-monitor's e-mails: only the start message
  // does) sends "unknown": no version, not a downgrade.
  if (o.product_version !== UNKNOWN_VERSION) r.product_version = o.product_version;
}

/**
 * Decides every event of a batch (in the order given) against the known hosts' binding and the batch
 * so far: the host rows to upsert, the pending changes, and a verdict per event.
 */
export function planHosts(known: ReadonlyMap<string, ConfirmedHost>, observations: readonly HostObservation[]): HostBatchPlan {
  const states = new Map<string, HostState>();
  const verdicts: IdentityVerdict[] = [];
  for (const o of observations) {
    const instance = plausibleInstanceId(o.agent_instance_id);
    let s = states.get(o.hostname);
    if (!s) {
      const k = known.get(o.hostname);
      if (!k) {
        // A new host: bound by its first event; its facts are shown, and confirmed only when an admin accepts them.
        const bound = instance !== null || o.key_id !== null;
        s = {
          stored: {},
          instance,
          key: o.key_id,
          facts: { os_family: o.os_family, product: o.product, fqdn: o.fqdn, ipv4: o.ipv4, internal_address: o.ipv4 },
          knownIpv4: [],
          refresh: {
            hostname: o.hostname,
            display_name: o.display_name,
            os_family: o.os_family,
            os_version: o.os_version,
            fqdn: o.fqdn,
            ipv4: o.ipv4,
            ipv6: o.ipv6,
            timezone: o.timezone,
            product: o.product,
            product_version: o.product_version,
            agent_instance_id: instance,
            bound_key_id: o.key_id,
            bound_at: bound ? o.received_at : null,
            first_seen: o.received_at,
            last_seen: o.received_at,
            last_heartbeat: o.live ? o.received_at : null,
            first_live_at: o.live ? o.received_at : null,
          },
          changes: new Map(),
        };
        states.set(o.hostname, s);
        proposeNewHost(s, o);
        verdicts.push({ kind: 'bind' });
        continue;
      }
      s = {
        stored: k.pending,
        instance: k.agent_instance_id,
        key: k.bound_key_id,
        facts: { os_family: k.os_family, product: k.product, fqdn: k.fqdn, ipv4: k.ipv4, internal_address: k.internal_address },
        knownIpv4: k.known_ipv4,
        // Facts and binding here are what the row holds: the upsert never changes a known host's facts.
        refresh: {
          hostname: o.hostname,
          display_name: null,
          os_family: k.os_family,
          os_version: null,
          fqdn: k.fqdn,
          ipv4: k.ipv4,
          ipv6: null,
          timezone: null,
          product: k.product,
          // The stored version (read under the lock) unless an event of the bound agent brings one.
          product_version: k.product_version,
          agent_instance_id: null,
          bound_key_id: null,
          bound_at: null,
          first_seen: o.received_at,
          last_seen: o.received_at,
          last_heartbeat: null,
          first_live_at: null,
        },
        changes: new Map(),
      };
      states.set(o.hostname, s);
    }

    // Bound to an instance: another one, or none (absent or implausible), is not the bound agent.
    const otherInstance = s.instance !== null && instance !== s.instance;
    const otherKey = s.key !== null && o.key_id !== null && o.key_id !== s.key;
    if (otherInstance || otherKey) {
      const proposed: Record<string, string | number | null> = { os_family: o.os_family, product: o.product };
      // null when the event has none: accepting must unbind the instance, or the agent's next event is a conflict again.
      if (instance !== null || s.instance !== null) proposed.agent_instance_id = instance;
      if (o.key_id !== null) proposed.key_id = o.key_id;
      if (o.fqdn !== null) proposed.fqdn = o.fqdn;
      if (o.ipv4 !== null) proposed.ipv4 = proposed.internal_address = o.ipv4;
      pend(s, o, 'identity', proposed);
      // Still a sign of life for the hostname (a reinstalled agent must not page as silent meanwhile).
      refreshFrom(s.refresh, o, false);
      verdicts.push({
        kind: 'conflict',
        bound: { agent_instance_id: s.instance, key_id: s.key },
        agent_instance_id: instance,
        key_id: o.key_id,
      });
      continue;
    }

    // The bound agent (or, on a host bound to no instance or key, one that cannot be told apart): fill a missing part of the binding.
    let bound = false;
    if (s.instance === null && instance !== null) {
      s.instance = s.refresh.agent_instance_id = instance;
      bound = true;
    }
    if (s.key === null && o.key_id !== null) {
      s.key = s.refresh.bound_key_id = o.key_id;
      bound = true;
    }
    if (bound) s.refresh.bound_at ??= o.received_at;
    refreshFrom(s.refresh, o, true);

    const differing: Record<string, string> = {};
    for (const f of FACTS) {
      const v = o[f];
      if (v !== null && v !== s.facts[f]) differing[f] = v;
    }
    // Another leg of a multi-homed host an admin accepted before: the agent picks an address per event.
    if (differing.ipv4 !== undefined && s.knownIpv4.includes(differing.ipv4)) delete differing.ipv4;
    if (differing.ipv4 !== undefined) differing.internal_address = differing.ipv4;
    if (Object.keys(differing).length > 0) {
      pend(s, o, 'facts', differing);
      verdicts.push({ kind: 'facts' });
    } else verdicts.push({ kind: bound ? 'bind' : 'bound' });
  }
  const hosts = [...states.values()].map((s) => s.refresh);
  hosts.sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0));
  return { hosts, changes: [...states.values()].flatMap((s) => [...s.changes.values()]), verdicts };
}

/**
 * Hosts of the batch where planHosts() may find a conflict: two different instances (or an event without
 * one after an instance is bound), or two different keys, among the bound values and the events.
 * Correlate loads their identity problem before the batch.
 */
export function identitySuspects(
  known: ReadonlyMap<string, ConfirmedHost>,
  observations: readonly HostObservation[],
): Set<string> {
  const seen = new Map<string, { instance: string | null; key: number | null }>();
  const out = new Set<string>();
  for (const o of observations) {
    if (out.has(o.hostname)) continue;
    let s = seen.get(o.hostname);
    if (!s) {
      const k = known.get(o.hostname);
      s = { instance: k?.agent_instance_id ?? null, key: k?.bound_key_id ?? null };
      seen.set(o.hostname, s);
    }
    const instance = plausibleInstanceId(o.agent_instance_id);
    if ((s.instance !== null && s.instance !== instance) || (s.key !== null && o.key_id !== null && s.key !== o.key_id))
      out.add(o.hostname);
    s.instance ??= instance;
    s.key ??= o.key_id;
  }
  return out;
}

/**
 * Reads and locks (FOR UPDATE, in hostname order) the binding and confirmed facts of the known ones
 * among these hosts, with where their pending facts and identity changes stand. The decisions on
 * changes (changes.ts) lock the host rows first as well, so none happens while a batch runs.
 */
export async function lockConfirmedHosts(c: PoolClient, hostnames: readonly string[]): Promise<Map<string, ConfirmedHost>> {
  const out = new Map<string, ConfirmedHost>();
  if (hostnames.length === 0) return out;
  const r = await c.query<
    Omit<ConfirmedHost, 'pending'> & {
      f_last_seen: Date | null;
      f_event_id: string | null;
      f_seen_count: number | null;
      i_last_seen: Date | null;
      i_event_id: string | null;
      i_seen_count: number | null;
    }
  >(
    `SELECT h.hostname, h.agent_instance_id, h.bound_key_id, h.os_family, h.product, h.product_version, h.fqdn, h.ipv4,
            h.internal_address, h.known_ipv4, h.last_beat_at, h.beat_gaps, h.heartbeat_interval_seconds,
            f.last_seen AS f_last_seen, f.event_id::text AS f_event_id, f.seen_count AS f_seen_count,
            i.last_seen AS i_last_seen, i.event_id::text AS i_event_id, i.seen_count AS i_seen_count
       FROM hosts h
       LEFT JOIN host_changes f ON f.host_id = h.id AND f.kind = 'facts' AND f.status = 'pending'
       LEFT JOIN host_changes i ON i.host_id = h.id AND i.kind = 'identity' AND i.status = 'pending'
      WHERE h.hostname = ANY($1::text[]) ORDER BY h.hostname FOR UPDATE OF h`,
    [[...new Set(hostnames)]],
  );
  for (const { f_last_seen, f_event_id, f_seen_count, i_last_seen, i_event_id, i_seen_count, ...row } of r.rows) {
    const pending: ConfirmedHost['pending'] = {};
    if (f_last_seen) pending.facts = { last_seen: f_last_seen, event_id: f_event_id ?? '', seen_count: f_seen_count ?? 0 };
    if (i_last_seen) pending.identity = { last_seen: i_last_seen, event_id: i_event_id ?? '', seen_count: i_seen_count ?? 0 };
    out.set(row.hostname, { ...row, pending });
  }
  return out;
}

/**
 * Upserts the batch's pending changes in one statement (after the hosts upsert, which created new hosts).
 * The rows hold where each change stands after the batch (planHosts counted from the stored row): a
 * pending row of the same host and kind takes the newer proposal, the latest event, last_seen and
 * seen_count; its `current` and first_seen stay as first seen.
 */
export async function upsertHostChanges(c: PoolClient, rows: readonly HostChangeUpsert[]): Promise<void> {
  if (rows.length === 0) return;
  await c.query(
    `INSERT INTO host_changes (host_id, kind, proposed, current, agent_instance_id, key_id, event_id, first_seen, last_seen, seen_count)
     SELECT h.id, t.kind, t.proposed, t.current, t.agent_instance_id, t.key_id, t.event_id, t.first_seen, t.last_seen, t.seen_count
       FROM json_to_recordset($1::json) AS t(hostname text, kind text, proposed jsonb, current jsonb, agent_instance_id text,
              key_id bigint, event_id uuid, first_seen timestamptz, last_seen timestamptz, seen_count integer)
       JOIN hosts h ON h.hostname = t.hostname
     ON CONFLICT (host_id, kind) WHERE status = 'pending' DO UPDATE SET
       proposed = EXCLUDED.proposed,
       agent_instance_id = EXCLUDED.agent_instance_id,
       key_id = EXCLUDED.key_id,
       event_id = EXCLUDED.event_id,
       last_seen = EXCLUDED.last_seen,
       seen_count = EXCLUDED.seen_count`,
    [JSON.stringify(rows)],
  );
}
