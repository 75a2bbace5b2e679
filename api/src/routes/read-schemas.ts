// JSON schemas shared by the read routes (events, hosts, problems, dashboards). Response schemas list
// every property: fastify's serializer drops anything a schema does not name.
import { SEVERITIES } from '@watchpost/schemas';
import { ADMIN_ONLY_INSTANCE } from '../instance-ids.ts';

const SEV = `(${SEVERITIES.join('|')})`;
export const SEVERITY_LIST_PATTERN = `^${SEV}(,${SEV})*$`;
export const TYPE_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9._:-]{0,127}$';

const str = { type: 'string' } as const;
const nstr = { type: 'string', nullable: true } as const;
const dt = { type: 'string', format: 'date-time' } as const;
const ndt = { type: 'string', format: 'date-time', nullable: true } as const;
const int = { type: 'integer' } as const;

export const pagingQuery = {
  page: { type: 'integer', minimum: 1, maximum: 100_000, default: 1, description: '1-based page number' },
  page_size: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'rows per page (max 500)' },
} as const;

export const pageFields = {
  total: { type: 'integer', description: 'rows matching the filters (all pages)' },
  page: int,
  page_size: int,
} as const;

/** The answer of a paged list (`pagingQuery`): the page fields and the rows of the page. */
export const pageOf = <T extends object>(row: T) =>
  ({
    type: 'object',
    required: ['total', 'page', 'page_size', 'items'],
    properties: { ...pageFields, items: { type: 'array', items: row } },
  }) as const;

export const eventRowSchema = {
  type: 'object',
  required: ['event_id', 'occurred_at', 'received_at', 'hostname', 'type', 'severity', 'title', 'flap'],
  properties: {
    event_id: { type: 'string', format: 'uuid' },
    occurred_at: {
      ...dt,
      description:
        "time on the host (UTC, second precision); the receive time when the host's clock was off (clock_skew): every window and order uses this",
    },
    received_at: { ...dt, description: 'time the service received it (UTC, second precision)' },
    agent_occurred_at: { ...dt, description: 'occurred_at as the agent sent it (UTC, second precision)' },
    clock_skew: {
      type: 'boolean',
      description:
        "the agent's time was more than 5 minutes ahead of the receive time or more than 7 days behind it: occurred_at is the receive time",
    },
    hostname: str,
    display_name: str,
    os_family: str,
    product: { type: 'string', description: 'agent product: ssh-monitor or rdp-login-monitor' },
    agent_version: { type: 'string', description: 'source.product_version of the event' },
    category: str,
    type: str,
    severity: { type: 'string', enum: [...SEVERITIES], description: 'severity after the per-type override' },
    stored_severity: { type: 'string', description: 'severity as the agent sent it' },
    title: str,
    summary: str,
    tags: { type: 'array', items: str },
    actor_user: { type: 'string', description: 'user the event is about, taken from `details` at store time (empty when none)' },
    source_ip: { type: 'string', description: 'remote address named in `details` (empty when none)' },
    flap: { type: 'boolean', description: 'true on the 302 and 303 events of an RD Gateway flap pair' },
  },
} as const;

export const eventDetailSchema = {
  ...eventRowSchema,
  required: [...eventRowSchema.required, 'hidden', 'event'],
  properties: {
    ...eventRowSchema.properties,
    hidden: { type: 'boolean', description: 'the type is hidden from lists by the visibility setting' },
    event: {
      type: 'object',
      additionalProperties: true,
      description: `the full event as sent by the agent (schema v1); source.agent_instance_id: ${ADMIN_ONLY_INSTANCE}`,
    },
    provenance: {
      type: 'object',
      required: ['agent_key_id', 'verdict', 'reason'],
      description:
        'Who posted the event, judged against the binding of the host it names (issue 33). Gateway and terminate actions act ' +
        'only on `bound` events of a Windows agent (rdp-login-monitor).',
      properties: {
        agent_key_id: { type: 'integer', nullable: true, description: 'the agent key ingest verified (null: not recorded)' },
        verdict: {
          type: 'string',
          enum: ['bound', 'unconfirmed_host', 'other_key', 'other_instance', 'no_key', 'unbound_host', 'unknown_host'],
          description:
            "bound: the host's bound key and agent instance, and an admin confirmed the host; unconfirmed_host: bound, not confirmed yet; " +
            'other_key / other_instance: not the agent the host is bound to; no_key: stored without a verified key (before provenance ' +
            'was recorded); unbound_host: the host is bound to no key yet; unknown_host: no such host',
        },
        reason: { type: 'string', description: 'the verdict in words' },
      },
    },
  },
} as const;

export const hostRowSchema = {
  type: 'object',
  required: ['id', 'hostname', 'status', 'agent_version', 'last_seen', 'pending_changes', 'pending_change_kinds', 'confirmed'],
  properties: {
    id: int,
    hostname: str,
    display_name: nstr,
    status: { type: 'string', enum: ['online', 'stale'], description: 'computed when read from the last heartbeat' },
    os_family: str,
    os_version: nstr,
    fqdn: nstr,
    ipv4: nstr,
    product: str,
    agent_version: str,
    first_seen: dt,
    last_seen: { ...dt, description: 'receive time of the latest event of any type' },
    last_heartbeat: { ...ndt, description: 'receive time of the latest agent.heartbeat or report.daily.* event' },
    ssh_admin_ok: { type: 'boolean' },
    live_problems: { type: 'integer', description: 'open and acknowledged problems of visible types' },
    pending_changes: {
      type: 'integer',
      description: 'pending changes (GET /host-changes?host_id=) an admin accepts or rejects before remote actions use them',
    },
    pending_change_kinds: {
      type: 'array',
      items: { type: 'string', enum: ['facts', 'identity', 'winrm_certificate'] },
      description:
        'kinds of the pending changes: identity = another agent instance or key speaks for the host (an identity conflict)',
    },
    confirmed: {
      type: 'boolean',
      description:
        "an admin accepted the host's addresses (its first facts change); until then no WinRM, SSH or update action sends credentials to it",
    },
    latest_version: {
      ...nstr,
      description:
        "latest version of the agent kind's update repository: what its branch head states (version.txt, …), else its newest tag (api/ACTIONS.md)",
    },
    outdated: { type: 'boolean', description: 'agent_version is older than latest_version' },
  },
} as const;

export const hostDetailSchema = {
  ...hostRowSchema,
  properties: {
    ...hostRowSchema.properties,
    ipv6: nstr,
    timezone: nstr,
    agent_instance_id: {
      ...nstr,
      description: `the bound agent instance (set by the first events, changed only by an accepted identity change); ${ADMIN_ONLY_INSTANCE}`,
    },
    internal_address: nstr,
    known_ipv4: {
      type: 'array',
      items: str,
      description:
        'addresses an admin accepted before ipv4 (a multi-homed host, e.g. a gateway with a LAN and a DMZ leg): an event carrying one is no change',
    },
    bound_key_id: { type: 'integer', nullable: true, description: 'id of the agent key the host is bound to' },
    bound_key_name: { ...nstr, description: 'name of that agent key' },
    bound_at: { ...ndt, description: 'when the binding was made or last accepted' },
    winrm_cert_sha256: {
      ...nstr,
      description: 'SHA-256 (hex) of the WinRM HTTPS certificate an admin accepted (pinned); null: none accepted yet',
    },
    confirmed_at: { ...ndt, description: "when an admin confirmed the host's addresses; null: not confirmed" },
    confirmed_by: { ...nstr, description: 'the admin who confirmed them' },
    status_changed_at: ndt,
    inventory: {
      type: 'object',
      properties: {
        hardware: { description: 'latest hardware snapshot (agent.inventory): any JSON, null when none' },
        software: { description: 'latest software snapshot (agent.inventory): any JSON, null when none' },
        at: ndt,
      },
    },
  },
} as const;

export const problemRowSchema = {
  type: 'object',
  required: ['id', 'status', 'host', 'type', 'severity', 'count', 'created_at', 'last_seen', 'rdg_flap'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['open', 'acknowledged', 'resolved'] },
    fingerprint: { type: 'string', description: 'host|type|rule' },
    host: { type: 'string', description: 'hostname' },
    host_id: { type: 'integer', nullable: true, description: 'id of the host record (null once the host was deleted)' },
    display_name: nstr,
    type: str,
    rule: str,
    title: str,
    severity: { type: 'string', enum: [...SEVERITIES], description: 'after the per-type override' },
    stored_severity: str,
    count: { type: 'integer', description: 'correlated events' },
    created_at: dt,
    last_seen: dt,
    acknowledged_at: ndt,
    acknowledged_by: nstr,
    resolved_at: ndt,
    resolved_by: { type: 'string', enum: ['manual', 'auto', null], nullable: true },
    resolved_by_user: nstr,
    acknowledged_message: { ...nstr, description: "the operator's message on the current acknowledgement" },
    resolved_message: { ...nstr, description: "the operator's message on the current manual resolution" },
    reopened_count: int,
    rdg_flap: { type: 'boolean' },
    details: {
      type: 'object',
      additionalProperties: true,
      description: `what the rule recorded; agent_instance_id keys (a host_identity_conflict's bound, latest, recent): ${ADMIN_ONLY_INSTANCE}`,
    },
  },
} as const;

export const problemDetailSchema = {
  ...problemRowSchema,
  required: [...problemRowSchema.required, 'timeline'],
  properties: {
    ...problemRowSchema.properties,
    timeline: {
      type: 'array',
      description: 'events of the problem, oldest first',
      items: {
        type: 'object',
        required: ['event_id', 'occurred_at', 'type', 'severity', 'title', 'flap'],
        properties: {
          event_id: { type: 'string', format: 'uuid' },
          occurred_at: dt,
          received_at: dt,
          type: str,
          severity: str,
          title: str,
          flap: { type: 'boolean' },
        },
      },
    },
  },
} as const;

export const errorRef = (description: string) => ({
  description,
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str, details: {} } } },
});
