// Agent commands (created by admins in the API, delivered by the agent poll in ingest, answered by the
// agent) and the desired agent configuration.
import type { Pool } from '@watchpost/runtime';
import type { HostBinding } from '../hosts/store.ts';
import type { AgentKind } from './agent-kind.ts';

export const AGENT_CONFIG_KEY = 'agents.config';
/** A delivered command without a result is delivered again after this long. */
export const REDELIVER_AFTER_MINUTES = 10;
const MAX_PER_POLL = 20;

export type AgentConfig = Partial<Record<'all' | AgentKind, Record<string, unknown>>>;

export async function loadAgentConfig(pg: Pool): Promise<AgentConfig> {
  const r = await pg.query<{ value: AgentConfig }>('SELECT value FROM settings WHERE key = $1', [AGENT_CONFIG_KEY]);
  return r.rows[0]?.value ?? {};
}

export async function saveAgentConfig(pg: Pool, c: AgentConfig, by: string): Promise<void> {
  await pg.query(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2, now(), $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [AGENT_CONFIG_KEY, JSON.stringify(c), by],
  );
}

/** The configuration one agent gets: `all`, then its kind on top. */
export function configFor(c: AgentConfig, kind: AgentKind): Record<string, unknown> {
  return { ...c.all, ...c[kind] };
}

/** Who polls or answers: the request's agent key and the agent instance id it sent. */
export interface AgentIdentity {
  keyId: number;
  agentInstanceId: string | null;
}

/**
 * True when `who` is the host's bound agent: its key is the bound key (when one is bound) and its
 * instance id the bound instance (when one is bound; a request without one then fails). A host bound to
 * nothing yet, or none at all, has no agent to serve. Commands, configuration, updates and results are
 * for the bound agent only (issue 21): the fleet's key sits on every host.
 */
export function isBoundAgent(
  host: { agent_instance_id: string | null; bound_key_id: number | null } | null,
  who: AgentIdentity,
): boolean {
  if (!host || (host.bound_key_id === null && host.agent_instance_id === null)) return false;
  if (host.bound_key_id !== null && host.bound_key_id !== who.keyId) return false;
  return host.agent_instance_id === null || host.agent_instance_id === who.agentInstanceId;
}

export interface AgentCommand {
  id: number;
  hostname: string;
  kind: string;
  params: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'succeeded' | 'failed' | 'expired';
  created_by: string | null;
  created_at: string;
  delivered_at: string | null;
  finished_at: string | null;
  result: Record<string, unknown> | null;
  /** the action that queued it (a Windows session action through the agent), else null */
  action_id: number | null;
}

type Row = Omit<AgentCommand, 'created_at' | 'delivered_at' | 'finished_at'> & {
  created_at: Date;
  delivered_at: Date | null;
  finished_at: Date | null;
};
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const view = (r: Row): AgentCommand => ({
  ...r,
  id: Number(r.id),
  action_id: r.action_id === null ? null : Number(r.action_id),
  created_at: r.created_at.toISOString(),
  delivered_at: iso(r.delivered_at),
  finished_at: iso(r.finished_at),
});
const COLS = 'id, hostname, kind, params, status, created_by, created_at, delivered_at, finished_at, result, action_id';

export async function createAgentCommand(
  pg: Pool,
  c: { hostname: string; kind: string; params: Record<string, unknown>; createdBy: string; actionId?: number },
): Promise<AgentCommand> {
  const r = await pg.query<Row>(
    `INSERT INTO agent_commands (hostname, kind, params, created_by, action_id) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLS}`,
    [c.hostname, c.kind, JSON.stringify(c.params), c.createdBy, c.actionId ?? null],
  );
  return view(r.rows[0]!);
}

export async function listAgentCommands(pg: Pool, hostname: string): Promise<AgentCommand[]> {
  const r = await pg.query<Row>(`SELECT ${COLS} FROM agent_commands WHERE hostname = $1 ORDER BY id DESC LIMIT 100`, [hostname]);
  return r.rows.map(view);
}

/**
 * The id a delivery hands the Windows agent instead of the command id (issue 33): random in
 * [2^52, 2^53), so a JSON number the agent and JavaScript read exactly, never a command id (bigserial
 * ids stay far below 2^52). The agent's result names nothing but this id (no host, no instance): knowing
 * it is what shows the result comes from the agent that fetched the command. From gen_random_uuid (a
 * strong random source): its hex digits 18-30, past the version and variant digits, are random.
 */
const NEW_DELIVERY_HANDLE = `(4503599627370496 + ('x' || substr(replace(gen_random_uuid()::text, '-', ''), 18, 13))::bit(52)::bigint)`;

/** A command as a poll delivered it, with the handle the Windows agent gets as its id. */
export type DeliveredCommand = AgentCommand & { delivery_handle: number };

/**
 * Commands for this host's poll: pending ones, and delivered ones whose result is overdue; marked
 * delivered to `fetcher` (its key and instance: only its result is taken, recordAgentCommandResult).
 * Only for the host's bound agent (the caller checks isBoundAgent first). `kinds`: only these (the
 * Windows agent's poll takes only the commands it can run; the others stay pending).
 * A command of an action (a logoff through the agent) is delivered once, never again: session ids are
 * reused, and a late second logoff could end another user's session; its action expires instead.
 * Delivered again to the same agent, a command keeps its handle, so a late result of the first run still
 * counts; delivered to another (the host was bound to a new agent meanwhile), it gets a new one.
 */
export async function takeAgentCommands(
  pg: Pool,
  hostname: string,
  fetcher: AgentIdentity,
  kinds?: readonly string[],
): Promise<DeliveredCommand[]> {
  const r = await pg.query<Row & { delivery_handle: string }>(
    `UPDATE agent_commands SET status = 'delivered', delivered_at = now(),
            delivered_key_id = $5::bigint, delivered_instance_id = $6::text,
            delivery_handle = CASE WHEN delivery_handle IS NOT NULL AND delivered_key_id = $5::bigint
                                        AND delivered_instance_id IS NOT DISTINCT FROM $6::text
                                   THEN delivery_handle ELSE ${NEW_DELIVERY_HANDLE} END
      WHERE id IN (SELECT id FROM agent_commands
                    WHERE hostname = $1
                      AND (status = 'pending'
                           OR (status = 'delivered' AND action_id IS NULL AND delivered_at < now() - make_interval(mins => $2)))
                      AND ($4::text[] IS NULL OR kind = ANY($4))
                    ORDER BY id LIMIT $3)
      RETURNING ${COLS}, delivery_handle`,
    [hostname, REDELIVER_AFTER_MINUTES, MAX_PER_POLL, kinds ?? null, fetcher.keyId, fetcher.agentInstanceId],
  );
  return r.rows
    .map(({ delivery_handle, ...row }) => ({ ...view(row), delivery_handle: Number(delivery_handle) }))
    .sort((a, b) => a.id - b.id);
}

/**
 * How a result names its command. Our body (with `hostname`): the command id, the host and the agent
 * instance it polled with. The Windows agent's (no hostname, no instance): the id its poll handed out,
 * the delivery handle; an instance id, when one is sent anyway, must be the fetcher's.
 */
export type CommandResultRef =
  { id: number; hostname: string; agentInstanceId: string | null } | { handle: number; agentInstanceId: string | null };

/** The reference of a result posted to `/agent/commands/{id}/result` with this body. */
export function commandResultRef(id: number, body: { hostname?: string; agent_instance_id?: string }): CommandResultRef {
  const agentInstanceId = body.agent_instance_id ?? null;
  return body.hostname !== undefined ? { id, hostname: body.hostname, agentInstanceId } : { handle: id, agentInstanceId };
}

/**
 * Records a result from the agent that fetched the command (issue 33): the key and instance its poll
 * was delivered to, for a command of that host. 'recorded'; 'conflict' when that agent answers a
 * command already final (a retry: nothing changes); 'not_found' for everything else: an unknown id, a
 * command not delivered yet, or one delivered to another key, instance or host. So anyone but the
 * fetcher gets the same answer for every id, and cannot tell which commands exist.
 */
export async function recordAgentCommandResult(
  pg: Pool,
  keyId: number,
  ref: CommandResultRef,
  result: { status: 'succeeded' | 'failed'; exit_code?: number; output?: string; stderr?: string },
): Promise<'recorded' | 'not_found' | 'conflict'> {
  const stored: Record<string, unknown> = { exit_code: result.exit_code ?? null, output: result.output ?? '' };
  if (result.stderr !== undefined) stored.stderr = result.stderr;
  // The same rows for the update and the follow-up look-up: the fetcher's command, whatever its status.
  const [mine, params]: [string, unknown[]] =
    'handle' in ref
      ? [
          'delivery_handle = $1 AND delivered_key_id = $2::bigint AND ($3::text IS NULL OR delivered_instance_id = $3::text)',
          [ref.handle, keyId, ref.agentInstanceId],
        ]
      : [
          'id = $1 AND delivered_key_id = $2::bigint AND delivered_instance_id IS NOT DISTINCT FROM $3::text AND hostname = $4',
          [ref.id, keyId, ref.agentInstanceId, ref.hostname],
        ];
  const n = params.length;
  const r = await pg.query(
    `UPDATE agent_commands SET status = $${n + 1}, finished_at = now(), result = $${n + 2}
      WHERE ${mine} AND status = 'delivered'`,
    [...params, result.status, JSON.stringify(stored)],
  );
  if (r.rowCount === 1) return 'recorded';
  // The fetcher's command, no longer open: answered already (a retry) or expired.
  const final = await pg.query(`SELECT 1 FROM agent_commands WHERE ${mine} AND status <> 'delivered'`, params);
  return final.rowCount === 1 ? 'conflict' : 'not_found';
}

// --- the Windows agent's command channel (issue 22: rdp-login-monitor's Sac-Client.ps1) -------------

/** Our command kinds the Windows agent runs, and the `type` it knows them by (it knows no other). */
export const WINDOWS_AGENT_TYPES: Readonly<Record<string, 'qwinsta' | 'logoff'>> = { qwinsta: 'qwinsta', logoff: 'logoff' };

/**
 * A command as the Windows agent reads it. Under PowerShell strict mode it refuses a missing property,
 * so `params.session_id` and `run_as` are always there; `run_as` is always null: the agent runs as
 * SYSTEM and needs no credentials, so the service never sends any.
 */
export function windowsAgentCommand(c: DeliveredCommand): {
  id: number;
  type: 'qwinsta' | 'logoff';
  params: { session_id: number | null };
  run_as: null;
} {
  const sid = Number(c.params.session_id);
  return {
    // Its result names nothing but this id: the delivery's handle, which only the fetching agent knows.
    id: c.delivery_handle,
    type: WINDOWS_AGENT_TYPES[c.kind]!,
    // A missing or bad session id: the agent answers failed "missing session_id" (it refuses 0 as well).
    params: { session_id: Number.isSafeInteger(sid) && sid > 0 ? sid : null },
    run_as: null,
  };
}

// --- Windows session actions through the agent (issue 22) ----------------------------------------
// qwinsta/logoff run over WinRM when it is configured and reachable; otherwise, on a host whose bound
// agent runs commands (rdp-login-monitor), the actions worker queues them here with the action's id and
// completes the action from the agent's results (processors/src/actions/agent-transport.ts). The choice
// is sessions-transport.ts's, the steps sessions.ts's.

/** Minutes the agent has to answer one command of an action (it polls every 60 s); then the action expires. */
export const AGENT_ACTION_TTL_MINUTES = 10;

/** The product whose agent runs qwinsta/logoff from the command poll (Sac-Client.ps1). */
export const COMMAND_AGENT_PRODUCT = 'rdp-login-monitor';

/** True when the host has a bound agent (key or instance) that runs qwinsta/logoff commands. */
export function hasCommandAgent(host: Pick<HostBinding, 'product' | 'agent_instance_id' | 'bound_key_id'> | null): boolean {
  return !!host && host.product === COMMAND_AGENT_PRODUCT && (host.bound_key_id !== null || host.agent_instance_id !== null);
}

/** The commands an action queued for the agent, in order. */
export async function agentCommandsOfAction(pg: Pool, actionId: number): Promise<AgentCommand[]> {
  const r = await pg.query<Row>(`SELECT ${COLS} FROM agent_commands WHERE action_id = $1 ORDER BY id`, [actionId]);
  return r.rows.map(view);
}

/**
 * Expires the action's commands still without a result after AGENT_ACTION_TTL_MINUTES (so no poll
 * delivers them later); returns them with the status they had (`delivered`: the agent may have run it).
 */
export async function expireAgentCommands(
  pg: Pool,
  actionId: number,
  minutes = AGENT_ACTION_TTL_MINUTES,
): Promise<{ id: number; kind: string; was: 'pending' | 'delivered' }[]> {
  const r = await pg.query<{ id: string; kind: string; was: 'pending' | 'delivered' }>(
    `WITH old AS (SELECT id, status FROM agent_commands
                   WHERE action_id = $1 AND status IN ('pending', 'delivered') AND created_at < now() - make_interval(mins => $2)
                   FOR UPDATE)
     UPDATE agent_commands c SET status = 'expired', finished_at = now() FROM old
      WHERE c.id = old.id AND c.status IN ('pending', 'delivered')
      RETURNING c.id, c.kind, old.status AS was`,
    [actionId, minutes],
  );
  return r.rows.map((x) => ({ id: Number(x.id), kind: x.kind, was: x.was }));
}
