// Live dashboard messages (Redis pub/sub channel `live.v1`, forwarded by the API as server-sent
// events named after `kind`). Pure: counting a batch, reading a problems.v1 message, diffing host
// statuses. Hidden types are left out and severities follow the per-type override, as on the dashboard.
import type { EventEnvelope } from '@watchpost/schemas/envelope.ts';

export const SEVERITY_NAMES = ['info', 'warning', 'high', 'critical'] as const;
export type SeverityName = (typeof SEVERITY_NAMES)[number];

export interface TypeRules {
  overrides: ReadonlyMap<string, string>;
  hidden: ReadonlySet<string>;
}

export const NO_RULES: TypeRules = { overrides: new Map(), hidden: new Set() };

/** Increments of the dashboard counters for one batch of ingested events. */
export interface EventsMessage {
  kind: 'events';
  at: string;
  total: number;
  severity: Record<SeverityName, number>;
  daily_reports: number;
  heartbeats: number;
}

export function countEvents(envs: readonly EventEnvelope[], rules: TypeRules, now: Date): EventsMessage | null {
  const severity = { info: 0, warning: 0, high: 0, critical: 0 } as Record<SeverityName, number>;
  let total = 0;
  let daily = 0;
  let heartbeats = 0;
  for (const { event } of envs) {
    if (rules.hidden.has(event.type)) continue;
    const s = (rules.overrides.get(event.type) ?? event.severity) as SeverityName;
    if (s in severity) severity[s] += 1;
    total += 1;
    if (event.type.startsWith('report.daily.')) daily += 1;
    if (event.type === 'agent.heartbeat') heartbeats += 1;
  }
  if (total === 0) return null;
  return { kind: 'events', at: now.toISOString(), total, severity, daily_reports: daily, heartbeats };
}

export interface ProblemsMessage {
  kind: 'problems';
  action: 'opened' | 'reopened';
  message_id: string;
  problem: {
    id: string | null;
    host: string;
    type: string;
    title: string;
    severity: string;
    rdg_flap: boolean;
    created_at: string | null;
  };
}

/** A problems.v1 value `{message_id, kind: 'problem.opened'|'problem.reopened', problem}` -> live message. */
export function problemMessage(value: Buffer | string | null, rules: TypeRules): ProblemsMessage | null {
  if (value === null) return null;
  let m: unknown;
  try {
    m = JSON.parse(value.toString());
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const { message_id, kind, problem } = m as { message_id?: unknown; kind?: unknown; problem?: Record<string, unknown> };
  if (kind !== 'problem.opened' && kind !== 'problem.reopened') return null;
  if (typeof problem !== 'object' || problem === null || typeof problem.type !== 'string' || typeof problem.host !== 'string')
    return null;
  if (rules.hidden.has(problem.type)) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    kind: 'problems',
    action: kind === 'problem.opened' ? 'opened' : 'reopened',
    message_id: typeof message_id === 'string' ? message_id : '',
    problem: {
      id: str(problem.id),
      host: problem.host,
      type: problem.type,
      title: str(problem.title) ?? '',
      severity: rules.overrides.get(problem.type) ?? str(problem.severity) ?? 'info',
      rdg_flap: problem.rdg_flap === true,
      created_at: str(problem.created_at),
    },
  };
}

export type HostStatus = 'online' | 'stale';

export interface HostsMessage {
  kind: 'hosts';
  at: string;
  hostname: string;
  status: HostStatus | 'removed';
  /** null for a host seen for the first time */
  previous: HostStatus | null;
  counts: { total: number; online: number; stale: number };
}

/** Host status changes between two snapshots (new hosts, status flips, removed hosts). */
export function hostChanges(
  prev: ReadonlyMap<string, HostStatus>,
  next: ReadonlyMap<string, HostStatus>,
  now: Date,
): HostsMessage[] {
  let online = 0;
  for (const s of next.values()) if (s === 'online') online += 1;
  const counts = { total: next.size, online, stale: next.size - online };
  const at = now.toISOString();
  const out: HostsMessage[] = [];
  for (const [hostname, status] of next) {
    const before = prev.get(hostname) ?? null;
    if (before !== status) out.push({ kind: 'hosts', at, hostname, status, previous: before, counts });
  }
  for (const [hostname, before] of prev) {
    if (!next.has(hostname)) out.push({ kind: 'hosts', at, hostname, status: 'removed', previous: before, counts });
  }
  return out;
}

/** Remembers the last `max` ids (the outbox relay may send a problem message twice). */
export class RecentIds {
  private readonly max: number;
  private readonly ids = new Set<string>();
  constructor(max = 10_000) {
    this.max = max;
  }
  /** true the first time an id is seen */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}
