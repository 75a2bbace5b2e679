// Pending host changes (api/ACTIONS.md, "Host changes"): what each kind means, the "from → to" lines of
// a change, and the decisions (one change, the selected ones, or a rejection of all under a filter).
// Decisions send the proposal the admin saw, so a proposal replaced meanwhile is refused (409 CHANGED)
// rather than applied; a bulk accept takes only those, and never an identity or certificate change (the
// API refuses them, ONE_BY_ONE: each is accepted on its own). Agent instance ids reach admins only.
import { api, errorText, type Ok } from '../api/client';

export type HostChange = Ok<'listHostChanges'>['items'][number];
export type ChangeKind = HostChange['kind'];
export type Decision = 'accept' | 'reject';
type BulkAnswer = Ok<'acceptHostChanges'>;

export const KIND_LABELS: Record<ChangeKind, string> = {
  facts: 'Pending change',
  identity: 'Identity conflict',
  winrm_certificate: 'Certificate change',
};

/** The accept button of each kind: what accepting does. */
export const ACCEPT_LABELS: Record<ChangeKind, string> = {
  facts: 'Accept new facts',
  identity: 'Accept new agent',
  winrm_certificate: 'Accept certificate',
};

export const KIND_HELP: Record<ChangeKind, string> = {
  facts:
    'The agent reports other addresses, FQDN, OS or product than the confirmed ones; for a new host, its first addresses: ' +
    'no credentials go to it until an admin accepts them.',
  identity:
    'Another agent instance or key speaks for this host, or an agent that sends no instance id where the bound one does ' +
    '(a reinstalled agent, or an impostor). Accepted one by one only.',
  winrm_certificate:
    "The host's WinRM certificate differs from the accepted one (or none is accepted yet): compare its fingerprint with " +
    "the host's (Get-ChildItem Cert:\\LocalMachine\\My) before accepting. Accepted one by one only.",
};

/** Kinds the API never accepts in bulk (ONE_BY_ONE): each is accepted on its own, after a look. */
export const ONE_BY_ONE_KINDS: readonly ChangeKind[] = ['identity', 'winrm_certificate'];
export const acceptsInBulk = (c: HostChange): boolean => !ONE_BY_ONE_KINDS.includes(c.kind);

const FIELD_LABELS: Record<string, string> = {
  os_family: 'OS',
  product: 'Agent',
  fqdn: 'FQDN',
  ipv4: 'IPv4',
  internal_address: 'Internal address',
  agent_instance_id: 'Agent instance',
  key_id: 'Agent key',
  cert_sha256: 'WinRM certificate (SHA-256)',
  cert_subject: 'Certificate subject',
  cert_issuer: 'Certificate issuer',
  cert_valid_from: 'Valid from',
  cert_valid_to: 'Valid to',
};

export interface ChangeLine {
  field: string;
  label: string;
  from: string;
  to: string;
}

const show = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v));

/** One line per proposed field: its label, the confirmed value when first seen and the proposed one. */
export function changeLines(c: HostChange): ChangeLine[] {
  const proposed = c.proposed as Record<string, unknown>;
  const current = c.current as Record<string, unknown>;
  return Object.keys(proposed).map((field) => {
    let from = show(current[field]);
    let to = show(proposed[field]);
    if (field === 'key_id') {
      if (c.current_key_name) from = `${c.current_key_name} (#${from})`;
      if (c.key_name) to = `${c.key_name} (#${to})`;
    }
    // An identity proposal's null instance: the reporting agent sends none (accepting unbinds the instance).
    if (field === 'agent_instance_id' && proposed[field] === null) to = 'none sent';
    return { field, label: FIELD_LABELS[field] ?? field, from, to };
  });
}

export interface DecisionReport {
  ok: boolean;
  text: string;
}

function bulkText(decision: Decision, a: BulkAnswer): DecisionReport {
  const verb = decision === 'accept' ? 'Accepted' : 'Rejected';
  const parts = [`${verb} ${a.decided} change(s)`];
  if (a.conflicts) parts.push(`${a.conflicts} no longer pending or changed meanwhile (reload to see them)`);
  if (a.refused) parts.push(`${a.refused} identity or certificate change(s) left pending: accept those one by one`);
  if (a.not_found) parts.push(`${a.not_found} gone`);
  return { ok: a.conflicts === 0 && a.refused === 0 && a.not_found === 0, text: parts.join('; ') };
}

/** Accepts or rejects one change as the admin saw it. */
export async function decideOne(c: HostChange, decision: Decision): Promise<DecisionReport> {
  const path = decision === 'accept' ? '/api/v1/host-changes/{id}/accept' : '/api/v1/host-changes/{id}/reject';
  const { data, error } = await api.POST(path, {
    params: { path: { id: c.id } },
    body: { proposed: c.proposed as Record<string, unknown> },
  });
  if (data) return { ok: true, text: `${decision === 'accept' ? 'Accepted' : 'Rejected'} the change of ${c.hostname}` };
  return { ok: false, text: errorText(error, 'The decision failed') };
}

/**
 * Accepts or rejects the given changes in one call, each with the proposal the admin saw. An accept
 * sends only the kinds accepted in bulk (the caller says so beforehand: acceptsInBulk).
 */
export async function decideSelected(changes: HostChange[], decision: Decision): Promise<DecisionReport> {
  const path = decision === 'accept' ? '/api/v1/host-changes/accept' : '/api/v1/host-changes/reject';
  const sent = decision === 'accept' ? changes.filter(acceptsInBulk) : changes;
  if (!sent.length) return { ok: false, text: 'Identity and certificate changes are accepted one by one' };
  const { data, error } = await api.POST(path, {
    body: { changes: sent.map((c) => ({ id: c.id, proposed: c.proposed as Record<string, unknown> })) },
  });
  return data ? bulkText(decision, data) : { ok: false, text: errorText(error, 'The decision failed') };
}

/**
 * Rejects every pending change under the filter, call after call until none is left. Rejecting changes
 * nothing on a host, so it may take what is pending when it runs; there is no accept-all: an accept
 * applies only proposals the admin saw.
 */
export async function rejectAll(filter: { kind?: ChangeKind; search?: string; host_id?: number }): Promise<DecisionReport> {
  const decision = 'reject';
  const path = '/api/v1/host-changes/reject';
  const sum: BulkAnswer = { decided: 0, conflicts: 0, refused: 0, not_found: 0, remaining: 0, items: [] };
  // Each call decides up to the API's bulk limit and says how many are left; a bound guards against a
  // fleet that keeps proposing faster than we decide.
  for (let i = 0; i < 100; i++) {
    const { data, error } = await api.POST(path, { body: { all: true, ...filter } });
    if (!data) return { ok: false, text: `${bulkText(decision, sum).text}; then: ${errorText(error, 'the decision failed')}` };
    sum.decided += data.decided;
    sum.conflicts += data.conflicts;
    sum.not_found += data.not_found;
    if (data.remaining === 0 || data.decided === 0) break;
  }
  return bulkText(decision, sum);
}
