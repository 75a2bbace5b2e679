// Windows session actions through the host's agent (issue 22): when WinRM cannot run them (core's
// chooseSessionTransport; the WinRM port probe, handlers/winrm-session-runner.ts) and the host has a
// bound rdp-login-monitor agent, the actions worker queues `qwinsta` / `logoff` agent commands linked to
// the action (agent_commands.action_id) instead of connecting. The agent fetches them on its command
// poll (every 60 s, Sac-Client.ps1 Invoke-SacProcessPendingCommands), runs `qwinsta.exe` or
// `logoff.exe <id> /v` as SYSTEM (no credentials) and posts stdout/stderr back (ingest). A maintenance
// job (every AGENT_ACTIONS_SCAN_MS) moves each such action on from the results, following the same steps
// as over WinRM (core's sessionStep, core/src/actions/sessions.ts: the rules live there):
// - winrm.sessions: qwinsta -> the parsed sessions;
// - winrm.logoff: logoff <session_id>; for a monitor's gateway logoff (`owner`) qwinsta first, and the
//   logoff only when that session is the owner's;
// - winrm.logoff_user: qwinsta, then one logoff per session of the user (all queued at once).
// A command without a result AGENT_ACTION_TTL_MINUTES after it was queued expires, and so does its action.
// Nothing here imports the WinRM handlers (they import this file to hand an action over).
import {
  AGENT_ACTION_TTL_MINUTES,
  agentCommandsOfAction,
  createAgentCommand,
  expireAgentCommands,
  finishAction,
  getAction,
  handToAgent,
  markAgentActionRunning,
  openAgentActions,
  sessionActionOf,
  sessionActionOfJob,
  sessionStep,
  type ActionRecord,
  type AgentCommand,
  type SessionJob,
  type SessionListing,
  type SessionProgress,
  type SessionStep,
} from '@watchpost/core/actions';
import { RemoteError } from './errors.ts';
import { parseQwinsta, repairOemText } from './qwinsta.ts';
import type { ActionDeps } from './deps.ts';

/** How often the worker reads the agents' results (the agent itself polls every 60 s). */
export const AGENT_ACTIONS_SCAN_MS = 5_000;

/** Thrown by a handler whose action now waits for the agent: the worker leaves the action open. */
export class HandedToAgent extends Error {
  readonly actionId: number;
  constructor(actionId: number) {
    super(`action ${actionId} handed to the host's agent`);
    this.actionId = actionId;
    this.name = 'HandedToAgent';
  }
}

const AGENT = { transport: 'agent' } as const;

/**
 * Queues the action's first command for the host's agent and throws HandedToAgent (or a RemoteError
 * when the agent cannot run it). `reason`: why not WinRM, kept in the action's result.
 */
export async function handOverToAgent(deps: ActionDeps, job: SessionJob, reason: string): Promise<never> {
  const { pg } = deps;
  const first = sessionStep(sessionActionOfJob(job), AGENT, { logoffs: [] });
  // e.g. session 0, which the agent refuses ("missing session_id": Invoke-SacAgentCommand tests `-not $sid`)
  if (first.next === 'failed') throw new RemoteError(`${reason}, and ${first.error}`);
  if (first.next === 'done') throw new Error(`${job.kind} finished before its first command`);
  const action = await getAction(pg, job.action_id);
  if (!action || !(await handToAgent(pg, job.action_id, reason))) throw new HandedToAgent(job.action_id);
  await queueCommands(deps, action, job.target.hostname, first);
  deps.log.info(
    { action_id: action.id, hostname: job.target.hostname, command: first.next, reason },
    'action handed to the agent',
  );
  throw new HandedToAgent(action.id);
}

/** Queues the commands a step asks for: one qwinsta, or one logoff per session id (all at once). */
async function queueCommands(
  deps: ActionDeps,
  a: Pick<ActionRecord, 'id' | 'actor'>,
  hostname: string,
  step: Extract<SessionStep, { next: 'qwinsta' | 'logoff' }>,
): Promise<void> {
  const commands =
    step.next === 'qwinsta'
      ? [{ kind: 'qwinsta', params: {} }]
      : step.ids.map((sid) => ({ kind: 'logoff', params: { session_id: sid } }));
  for (const c of commands) await createAgentCommand(deps.pg, { hostname, ...c, createdBy: a.actor, actionId: a.id });
}

/** A stored string field, '' when absent or not a string. */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const tail = (c: AgentCommand) => {
  const r = c.result ?? {};
  const t = text(r.stderr).trim() || text(r.output).trim();
  return t.split(/\r?\n/).slice(-5).join(' | ').slice(0, 500) || 'no output';
};

/** The sessions of a finished qwinsta command, or why there are none. */
function qwinstaOutcome(c: AgentCommand): SessionListing {
  // As the agent read it: on a ru-RU host, OEM bytes taken for ANSI (repairOemText turns them back).
  const raw = repairOemText(text(c.result?.output));
  if (c.status === 'succeeded') return { ok: true, sessions: parseQwinsta(raw), raw };
  // qwinsta exits 1 with "No session exists" when nothing matches (as over WinRM, winrm-session-runner.ts).
  if (c.status === 'failed' && /no session/i.test(text(c.result?.stderr))) return { ok: true, sessions: [], raw };
  return { ok: false, error: `qwinsta on the agent failed: ${tail(c)}` };
}

/** What the finished commands of an agent action tell the steps. */
function progressOf(cmds: readonly AgentCommand[]): SessionProgress {
  const q = cmds.find((c) => c.kind === 'qwinsta');
  return {
    ...(q ? { listing: qwinstaOutcome(q) } : {}),
    logoffs: cmds
      .filter((c) => c.kind === 'logoff')
      .map((c) => {
        const id = Number(c.params.session_id);
        return c.status === 'succeeded'
          ? { id, ok: true as const }
          : { id, ok: false as const, error: `logoff ${String(c.params.session_id)} on the agent failed: ${tail(c)}` };
      }),
  };
}

/** Moves one agent action on: expiry, running once the agent fetched a command, the next step, the outcome. */
async function advance(deps: ActionDeps, a: ActionRecord): Promise<void> {
  const { pg } = deps;
  const expired = await expireAgentCommands(pg, a.id);
  const cmds = await agentCommandsOfAction(pg, a.id);
  if (expired.length) {
    const e = expired[0]!;
    const error =
      e.was === 'delivered'
        ? `expired: the agent fetched the ${e.kind} command but sent no result within ${AGENT_ACTION_TTL_MINUTES} minutes; it may have run it, or be stuck in it (the agent reads a command's output to its end before its own 60 s timeout applies, and meanwhile sends no events or heartbeats): check the host`
        : `expired: the host's agent did not fetch the ${e.kind} command within ${AGENT_ACTION_TTL_MINUTES} minutes (it polls every 60 s: is it running, and is it the agent the host is bound to?)`;
    await finishAction(pg, a.id, {
      ok: false,
      error,
      result: { transport_reason: a.result?.transport_reason ?? null, agent_command_ids: cmds.map((c) => c.id) },
    });
    return;
  }
  const open = cmds.filter((c) => c.status === 'pending' || c.status === 'delivered');
  if (open.length) {
    if (a.status === 'queued' && open.some((c) => c.status === 'delivered')) await markAgentActionRunning(pg, a.id);
    return;
  }
  const base = { transport_reason: a.result?.transport_reason ?? null, agent_command_ids: cmds.map((c) => c.id) };
  const sa = sessionActionOf(a.kind, a.params, a.hostname ?? '?');
  const step: SessionStep = sa
    ? sessionStep(sa, AGENT, progressOf(cmds))
    : { next: 'failed', error: `${a.kind} cannot run through the host's agent` };
  if (step.next === 'done') {
    await finishAction(pg, a.id, { ok: true, result: { ...step.result, ...base } });
    return;
  }
  if (step.next === 'failed') {
    await finishAction(pg, a.id, { ok: false, error: step.error, result: { ...base, ...step.result } });
    return;
  }
  // Handed over without its first command (the worker stopped in between), or a step asked for twice:
  // never queued here, so two scans or a late hand-over cannot queue a command twice.
  if (cmds.length === 0 || cmds.some((c) => c.kind === step.next)) {
    await finishAction(pg, a.id, { ok: false, error: `the agent ran no ${step.next}`, result: base });
    return;
  }
  await queueCommands(deps, a, a.hostname!, step);
}

// One scan at a time cluster-wide (two at once could queue a second logoff step).
const SCAN_LOCK = "hashtext('watchpost.actions.agent-transport')";

/** The maintenance job: moves every open agent action on. Returns how many it looked at. */
export async function advanceAgentActions(deps: ActionDeps): Promise<{ actions: number }> {
  const client = await deps.pg.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${SCAN_LOCK})`);
    try {
      const open = await openAgentActions(deps.pg);
      for (const a of open) {
        try {
          await advance(deps, a);
        } catch (err) {
          // one action's trouble never holds up the others
          deps.log.error({ err, action_id: a.id }, 'agent action could not be moved on');
        }
      }
      return { actions: open.length };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${SCAN_LOCK})`);
    }
  } finally {
    client.release();
  }
}
