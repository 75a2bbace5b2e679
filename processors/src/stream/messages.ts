// Live dashboard messages (Redis pub/sub channel `live.v1`, forwarded by the API as server-sent
// events named after `kind`). Pure: counting a batch, reading a problems.v1 message, diffing host
// statuses. Hidden types are left out and severities follow the per-type override, as on the dashboard.
import {
  eventKindOf,
  parseProblemMessage,
  type EventEnvelope,
  type HostStatus,
  type LiveEventsMessage,
  type LiveHostsMessage,
  type LiveProblemsMessage,
  type Severity,
} from '@watchpost/schemas';
import { effectiveSeverity, isHidden, type TypeSettings } from '@watchpost/core/type-settings';

export function countEvents(envs: readonly EventEnvelope[], rules: TypeSettings, now: Date): LiveEventsMessage | null {
  const severity: Record<Severity, number> = { info: 0, warning: 0, high: 0, critical: 0 };
  let total = 0;
  let daily = 0;
  let heartbeats = 0;
  for (const { event } of envs) {
    const kind = eventKindOf(event);
    if (isHidden(rules, kind.type)) continue;
    severity[effectiveSeverity(rules, kind.type, kind.severity)] += 1;
    total += 1;
    if (event.type.startsWith('report.daily.')) daily += 1;
    if (event.type === 'agent.heartbeat') heartbeats += 1;
  }
  if (total === 0) return null;
  return { kind: 'events', at: now.toISOString(), total, severity, daily_reports: daily, heartbeats };
}

/** A problems.v1 value -> live message (null when it is not a problem message or its type is hidden). */
export function problemMessage(value: Buffer | string | null, rules: TypeSettings): LiveProblemsMessage | null {
  const m = parseProblemMessage(value);
  if (!m || isHidden(rules, m.problem.type)) return null;
  const problem = m.problem as unknown as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    kind: 'problems',
    action: m.kind === 'problem.opened' ? 'opened' : 'reopened',
    message_id: m.message_id,
    problem: {
      id: str(problem.id),
      host: m.problem.host,
      type: m.problem.type,
      title: str(problem.title) ?? '',
      severity: rules.overrides.get(m.problem.type) ?? str(problem.severity) ?? 'info',
      rdg_flap: problem.rdg_flap === true,
      created_at: str(problem.created_at),
    },
  };
}

/** Host status changes between two snapshots (new hosts, status flips, removed hosts). */
export function hostChanges(
  prev: ReadonlyMap<string, HostStatus>,
  next: ReadonlyMap<string, HostStatus>,
  now: Date,
): LiveHostsMessage[] {
  let online = 0;
  for (const s of next.values()) if (s === 'online') online += 1;
  const counts = { total: next.size, online, stale: next.size - online };
  const at = now.toISOString();
  const out: LiveHostsMessage[] = [];
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
