// Inventory: agent.inventory stores its snapshot on the host (details.hardware/software, or the Windows
// agent's details.inventory: see inventoryOf); a hardware change opens or extends a warning problem with
// the diff. Snapshots are ordered by their own time (occurred_at, never later than received_at, so a
// host clock running ahead cannot pin an old snapshot): after an outage the agent re-sends its spool
// newest first, and an older snapshot arriving later neither overwrites the newer one nor is diffed
// against it (which would report the change reversed).
import {
  carryUnreadHardware,
  fingerprintOf,
  hardwareDiff,
  inventoryOf,
  INVENTORY_RULE,
  INVENTORY_TYPE,
  type HardwareDiff,
} from '../rules.ts';
import type { EventCtx, Rule } from './rule.ts';

/** UTF-8 bytes compared as jsonb orders object keys: shorter first, then bytewise. */
function jsonbKeyOrder(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length - bb.length || Buffer.compare(ba, bb);
}

function normalize(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(normalize);
  const o = v as Record<string, unknown>;
  // fromEntries, not assignment: a "__proto__" key stays an own property, as JSON.parse makes it.
  return Object.fromEntries(
    Object.keys(o)
      .sort(jsonbKeyOrder)
      .map((k) => [k, normalize(o[k])]),
  );
}

/**
 * A value as it reads back from a jsonb column (JSON round trip, keys in jsonb's order), so that a
 * snapshot kept in memory within a batch diffs exactly like one read back from Postgres.
 */
export function asStoredJson(value: unknown): unknown {
  return value === undefined ? null : normalize(JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * When the snapshot was taken: its window time (the receive time for a clock far off, so a clock reset
 * to 1970 cannot make every later snapshot look older), capped at the receive time (a clock ahead).
 */
function snapshotTime(ev: EventCtx): Date {
  return ev.windowAt > ev.receivedAt ? ev.receivedAt : ev.windowAt;
}

export const inventoryRule: Rule = {
  name: 'inventory',
  needs(ev, needs) {
    if (ev.e.type !== INVENTORY_TYPE) return { timeline: false };
    needs.inventoryHosts.add(ev.host);
    needs.fingerprints.add(fingerprintOf(ev.host, INVENTORY_TYPE, INVENTORY_RULE));
    return { timeline: true };
  },
  apply(ev, work) {
    if (ev.e.type !== INVENTORY_TYPE) return;
    const inv = work.inventory(ev.host);
    const takenAt = snapshotTime(ev);
    if (inv.at && inv.at > takenAt) return; // an older snapshot never overwrites a newer one
    const snap = inventoryOf(ev.e.details);
    const hardware = carryUnreadHardware(inv.hardware, snap.hardware);
    const diff = hardwareDiff(inv.hardware, hardware);
    inv.hardware = asStoredJson(hardware);
    inv.software = snap.software;
    inv.at = takenAt;
    inv.changed = true;
    if (!diff) return;
    // The latest diff is stored once, as details.diff; its `changes` entry carries no copy. When the
    // next change comes, the entry that was latest takes its diff from details.diff.
    const entry = { event_id: ev.self.event_id, received_at: ev.receivedAt.toISOString() };
    work.correlate({
      host: ev.host,
      type: INVENTORY_TYPE,
      rule: INVENTORY_RULE,
      severity: 'warning',
      title: `Hardware changed on ${ev.host}`,
      at: ev.receivedAt,
      matchAt: ev.receivedAt,
      windowMs: ev.settings.problemCorrelationWindowMinutes * 60_000,
      liveMatchTime: (p) => p.last_seen,
      seed: `${ev.self.event_id}:${INVENTORY_TYPE}:${INVENTORY_RULE}`,
      timeline: [{ ...ev.self, severity: 'warning' }],
      details: (previous) => {
        const changes = ((previous?.changes as Record<string, unknown>[] | undefined) ?? []).slice(-19);
        const last = changes.at(-1);
        if (last && !('diff' in last) && previous?.diff) changes[changes.length - 1] = { ...last, diff: previous.diff };
        return { ...(previous ?? {}), diff, changes: [...changes, entry] } satisfies Record<string, unknown> & {
          diff: HardwareDiff;
        };
      },
    });
  },
};
