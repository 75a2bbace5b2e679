// Provenance of an event (issue 33): which verified agent key posted it (the `agent_key_id` column the
// store writes from the message's wp-agent-key header) and which agent instance it names, judged against
// the binding of the host it names. Only an admin changes a binding (accepting an identity change), so an
// event judged `bound` came from the agent the host is bound to, or from the one an admin has since put in
// its place. Gateway and terminate actions act only on `bound` events of a confirmed host's Windows agent:
// any fleet key can name any user and internal host, the host's own agent is the only one to believe.
import type { Pool, PoolClient } from '@watchpost/runtime';
import { plausibleInstanceId } from './binding.ts';

export type ProvenanceVerdict =
  /** the host's bound key and instance, and an admin confirmed the host */
  | 'bound'
  /** the host's bound key and instance, but no admin confirmed the host yet */
  | 'unconfirmed_host'
  /** another key than the one the host is bound to */
  | 'other_key'
  /** the host's key, but another (or no) agent instance than the bound one */
  | 'other_instance'
  /** stored without a verified key (before provenance was recorded, or not through ingest) */
  | 'no_key'
  /** the host is bound to no key yet */
  | 'unbound_host'
  /** no such host (deleted since) */
  | 'unknown_host';

export interface EventProvenance {
  /** the verified agent key id ingest recorded; null when unknown */
  agent_key_id: number | null;
  verdict: ProvenanceVerdict;
  /** the verdict in words, for the refusal of an action and the event page */
  reason: string;
}

/** What provenance reads from an event. */
export interface ProvenanceEvent {
  hostname: string;
  agent_key_id: number | null;
  /** the event as the agent sent it: source.agent_instance_id */
  event: Record<string, unknown>;
}

/** What provenance reads from the host the event names. */
export interface ProvenanceHost {
  bound_key_id: number | string | null;
  agent_instance_id: string | null;
  confirmed: boolean;
}

function instanceOf(event: Record<string, unknown>): string | null {
  const source = event.source;
  if (typeof source !== 'object' || source === null) return null;
  const v = (source as Record<string, unknown>).agent_instance_id;
  return plausibleInstanceId(typeof v === 'string' ? v : null);
}

/** The verdict on an event given its host's binding (pure). */
export function judgeProvenance(e: ProvenanceEvent, host: ProvenanceHost | null): EventProvenance {
  const key = e.agent_key_id !== null && e.agent_key_id > 0 ? e.agent_key_id : null;
  const verdict = (v: ProvenanceVerdict, reason: string): EventProvenance => ({ agent_key_id: key, verdict: v, reason });
  if (key === null)
    return verdict('no_key', 'the event was stored without a verified agent key (before provenance was recorded)');
  if (!host) return verdict('unknown_host', `host ${e.hostname} is not registered`);
  if (host.bound_key_id === null) return verdict('unbound_host', `host ${e.hostname} is bound to no agent key yet`);
  if (Number(host.bound_key_id) !== key)
    return verdict('other_key', `the event was posted with agent key ${key}, not with the key host ${e.hostname} is bound to`);
  if (host.agent_instance_id !== null && instanceOf(e.event) !== host.agent_instance_id)
    return verdict('other_instance', `the event names another agent instance than the one host ${e.hostname} is bound to`);
  if (!host.confirmed)
    return verdict(
      'unconfirmed_host',
      `no admin has confirmed host ${e.hostname} yet (Hosts → ${e.hostname} → pending changes → Accept)`,
    );
  return verdict('bound', `posted by the agent host ${e.hostname} is bound to`);
}

/** The verdict on an event against its host's binding as stored now. */
export async function eventProvenance(db: Pool | PoolClient, e: ProvenanceEvent): Promise<EventProvenance> {
  const r = await db.query<ProvenanceHost>(
    `SELECT bound_key_id, agent_instance_id, confirmed_at IS NOT NULL AS confirmed FROM hosts WHERE hostname = $1`,
    [e.hostname],
  );
  return judgeProvenance(e, r.rows[0] ?? null);
}
