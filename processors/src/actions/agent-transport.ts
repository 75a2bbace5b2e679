// Windows session actions through the host's agent (issue 22): when WinRM is not configured or not
// reachable and the host has a bound rdp-login-monitor agent, the actions worker queues `qwinsta` /
// `logoff` agent commands linked to the action (agent_commands.action_id) instead of connecting. The
// agent fetches them on its command poll (every 60 s, Sac-Client.ps1 Invoke-SacProcessPendingCommands),
// runs `qwinsta.exe` or `logoff.exe <id> /v` as SYSTEM (no credentials) and posts stdout/stderr back
// (ingest). A maintenance job (every AGENT_ACTIONS_SCAN_MS) moves each such action on from the results:
// - winrm.sessions: qwinsta -> the parsed sessions;
// - winrm.logoff: logoff <session_id>; for a monitor's gateway logoff (`owner`) qwinsta first, and the
//   logoff only when that session is the owner's;
// - winrm.logoff_user: qwinsta, then one logoff per session of the user (all queued at once).
// A command without a result AGENT_ACTION_TTL_MINUTES after it was queued expires, and so does its action.
import type { ActionJobOf, ActionKind } from '@watchpost/schemas';
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
  parseSessionId,
  type ActionRecord,
  type AgentCommand,
} from '@watchpost/core';
import { RemoteError } from './errors.ts';
import { parseQwinsta, repairOemText, type WindowsSession } from './qwinsta.ts';
import type { ActionDeps } from './deps.ts';
import { sessionOf } from './handlers/winrm-host.ts';

/** How often the worker reads the agents' results (the agent itself polls every 60 s). */
export const AGENT_ACTIONS_SCAN_MS = 5_000;

/** The kinds the agent can run. */
export type AgentActionKind = Extract<ActionKind, 'winrm.sessions' | 'winrm.logoff' | 'winrm.logoff_user'>;

/** Thrown by a handler whose action now waits for the agent: the worker leaves the action open. */
export class HandedToAgent extends Error {
  readonly actionId: number;
  constructor(actionId: number) {
    super(`action ${actionId} handed to the host's agent`);
    this.actionId = actionId;
    this.name = 'HandedToAgent';
  }
}

/** The job of one of those kinds (a union: narrow it on `kind`). */
export type AgentJob = { [K in AgentActionKind]: ActionJobOf<K> }[AgentActionKind];

/**
 * Queues the action's first command for the host's agent and throws HandedToAgent (or a RemoteError
 * when the agent cannot run it). `reason`: why not WinRM, kept in the action's result.
 */
export async function handOverToAgent(deps: ActionDeps, job: AgentJob, reason: string): Promise<never> {
  const { pg } = deps;
  let first: { kind: 'qwinsta' } | { kind: 'logoff'; session_id: number };
  if (job.kind === 'winrm.logoff' && job.owner === undefined) {
    // The agent refuses session 0 ("missing session_id": Invoke-SacAgentCommand tests `-not $sid`).
    if (job.session_id === 0) throw new RemoteError(`${reason}, and the host's agent cannot log off session 0 (services)`);
    first = { kind: 'logoff', session_id: job.session_id };
  } else first = { kind: 'qwinsta' };
  const action = await getAction(pg, job.action_id);
  if (!action || !(await handToAgent(pg, job.action_id, reason))) throw new HandedToAgent(job.action_id);
  const { kind, ...params } = first;
  await createAgentCommand(pg, { hostname: job.target.hostname, kind, params, createdBy: action.actor, actionId: action.id });
  deps.log.info({ action_id: action.id, hostname: job.target.hostname, command: kind, reason }, 'action handed to the agent');
  throw new HandedToAgent(action.id);
}

/** A stored string field, '' when absent or not a string. */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const tail = (c: AgentCommand) => {
  const r = c.result ?? {};
  const t = text(r.stderr).trim() || text(r.output).trim();
  return t.split(/\r?\n/).slice(-5).join(' | ').slice(0, 500) || 'no output';
};

/** The sessions of a finished qwinsta command, or why there are none. */
function qwinstaOutcome(c: AgentCommand): { ok: true; sessions: WindowsSession[]; raw: string } | { ok: false; error: string } {
  // As the agent read it: on a ru-RU host, OEM bytes taken for ANSI (repairOemText turns them back).
  const raw = repairOemText(text(c.result?.output));
  if (c.status === 'succeeded') return { ok: true, sessions: parseQwinsta(raw), raw };
  // qwinsta exits 1 with "No session exists" when nothing matches (as over WinRM, winrm-host.ts sessions()).
  if (c.status === 'failed' && /no session/i.test(text(c.result?.stderr))) return { ok: true, sessions: [], raw };
  return { ok: false, error: `qwinsta on the agent failed: ${tail(c)}` };
}

type Step = { done: true; outcome: Parameters<typeof finishAction>[2] } | { done: false; queue?: number[] };

/** What the finished commands of an agent action mean: its outcome, or the logoffs to queue next. */
function nextStep(a: ActionRecord, cmds: AgentCommand[]): Step {
  const reason = a.result?.transport_reason;
  const base = { transport_reason: reason ?? null, agent_command_ids: cmds.map((c) => c.id) };
  const q = cmds.find((c) => c.kind === 'qwinsta');
  const logoffs = cmds.filter((c) => c.kind === 'logoff');
  const hostname = a.hostname ?? '?';
  const fail = (error: string, extra: object = {}): Step => ({
    done: true,
    outcome: { ok: false, error, result: { ...base, ...extra } },
  });
  const sessions = q ? qwinstaOutcome(q) : undefined;
  if (sessions && !sessions.ok && logoffs.length === 0) return fail(sessions.error);

  if (a.kind === 'winrm.sessions') {
    if (!sessions?.ok) return fail('the agent ran no qwinsta');
    return {
      done: true,
      outcome: { ok: true, result: { endpoint: null, sessions: sessions.sessions, raw: sessions.raw, ...base } },
    };
  }
  if (a.kind === 'winrm.logoff') {
    const sid = Number(a.params.session_id);
    if (logoffs.length === 0) {
      const owner = typeof a.params.owner === 'string' ? a.params.owner : null;
      if (!sessions?.ok || owner === null) return fail('the agent ran no logoff');
      const s = sessions.sessions.find((x) => x.id === sid);
      if (!s) return fail(`no session ${sid} on ${hostname}`);
      if (!sessionOf(s, owner)) return fail(`session ${sid} is not a session of the event's user ${owner}`);
      if (sid === 0) return fail("the host's agent cannot log off session 0 (services)");
      return { done: false, queue: [sid] };
    }
    const l = logoffs[0]!;
    if (l.status !== 'succeeded') return fail(`logoff ${sid} on the agent failed: ${tail(l)}`);
    return { done: true, outcome: { ok: true, result: { session_id: sid, logged_off: true, ...base } } };
  }
  // winrm.logoff_user
  const user = text(a.params.user);
  if (!sessions?.ok) return fail('the agent ran no qwinsta');
  const mine = sessions.sessions.filter((s) => sessionOf(s, user));
  if (logoffs.length === 0) {
    if (mine.length === 0) return fail(`no session of user ${user} on ${hostname}`);
    // all ids checked before the first logoff: never half done because of one odd line
    const bad = mine.find((s) => parseSessionId(s.id) === null || s.id === 0);
    if (bad) return fail(`qwinsta listed a session id the agent cannot log off (${bad.id}); nothing was logged off`);
    return { done: false, queue: mine.map((s) => s.id) };
  }
  const byId = new Map(mine.map((s) => [s.id, s]));
  const loggedOff = logoffs
    .filter((c) => c.status === 'succeeded')
    .map((c) => byId.get(Number(c.params.session_id)))
    .filter((s): s is WindowsSession => s !== undefined)
    .map((s) => ({ id: s.id, session_name: s.session_name, state: s.state }));
  const failed = logoffs.filter((c) => c.status !== 'succeeded');
  if (failed.length)
    return fail(failed.map((c) => `logoff ${String(c.params.session_id)} on the agent failed: ${tail(c)}`).join('; '), {
      user,
      logged_off: loggedOff,
    });
  return { done: true, outcome: { ok: true, result: { user, logged_off: loggedOff, ...base } } };
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
  const step = nextStep(a, cmds);
  if (step.done) {
    await finishAction(pg, a.id, step.outcome);
    return;
  }
  for (const sid of step.queue ?? [])
    await createAgentCommand(pg, {
      hostname: a.hostname!,
      kind: 'logoff',
      params: { session_id: sid },
      createdBy: a.actor,
      actionId: a.id,
    });
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
