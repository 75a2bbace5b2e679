// Running a remote action from the UI (api/ACTIONS.md): synchronous routes answer the finished action
// or 400/504 with the reason and details.action_id; queued routes answer 202 and are polled here until
// they finish. The state keeps both the record (status, result) and the human reason. A Windows session
// action the service handed to the host's agent (transport `agent`: WinRM not configured or not
// reachable) answers 202 too and is followed more slowly: the agent polls every 60 s.
import { reactive } from 'vue';
import { api, errorText, type ActionRecord } from '../api/client';

export interface ActionState {
  running: boolean;
  action: ActionRecord | null;
  error: string;
}

export const newActionState = (): ActionState => reactive({ running: false, action: null, error: '' });

const finished = (a: ActionRecord) => a.status === 'succeeded' || a.status === 'failed';
const POLL_MS = 1000;
const AGENT_POLL_MS = 5000;
// An agent action has 10 minutes per command, two steps at most (qwinsta, then the logoffs).
const POLL_LIMIT_MS = 25 * 60_000;

async function fetchAction(id: number): Promise<ActionRecord | null> {
  const { data } = await api.GET('/api/v1/actions/{id}', { params: { path: { id } } });
  return data ?? null;
}

function actionIdOf(error: unknown): number | null {
  const id = (error as { error?: { details?: { action_id?: unknown } } } | undefined)?.error?.details?.action_id;
  return typeof id === 'number' ? id : null;
}

/** Runs one action call and follows it to its end; returns the record when it succeeded. */
export async function runAction(
  state: ActionState,
  call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<ActionRecord | null> {
  state.running = true;
  state.error = '';
  state.action = null;
  try {
    const { data, error, response } = await call();
    if (!data) {
      state.error = errorText(error, `The action failed (HTTP ${response.status})`);
      const id = actionIdOf(error);
      if (id !== null) state.action = await fetchAction(id);
      return null;
    }
    let a = data as ActionRecord;
    state.action = a;
    const until = Date.now() + POLL_LIMIT_MS;
    while (!finished(a) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, a.transport === 'agent' ? AGENT_POLL_MS : POLL_MS));
      a = (await fetchAction(a.id)) ?? a;
      state.action = a;
    }
    if (a.status === 'failed') state.error = a.error ?? 'The action failed';
    return a.status === 'succeeded' ? a : null;
  } catch {
    state.error = 'The service could not be reached';
    return null;
  } finally {
    state.running = false;
  }
}

/** Which transport ran an action, in words (null when the kind has none). */
export function transportText(a: Pick<ActionRecord, 'transport' | 'status'>): string | null {
  if (a.transport === 'winrm') return 'over WinRM';
  if (a.transport !== 'agent') return null;
  if (a.status === 'queued') return 'queued for the agent (polls every 60 s)';
  if (a.status === 'running') return 'the agent is running it';
  return 'through the agent';
}

/** Why the service used the agent instead of WinRM (set from the moment it handed the action over). */
export function transportReason(a: Pick<ActionRecord, 'transport' | 'result'>): string | null {
  const r = (a.result as { transport_reason?: unknown } | null | undefined)?.transport_reason;
  return a.transport === 'agent' && typeof r === 'string' ? r : null;
}

export interface WinSession {
  id: number;
  session_name: string;
  username: string;
  state: string;
  current?: boolean;
}

/** The sessions of a winrm.sessions result (qwinsta). */
export function sessionsOf(a: ActionRecord | null): WinSession[] {
  const s = (a?.result as { sessions?: unknown } | null | undefined)?.sessions;
  return Array.isArray(s) ? (s as WinSession[]) : [];
}

/**
 * The sessions a logoff's result says are left: over WinRM the worker runs qwinsta after the logoff on the
 * same connection (api/ACTIONS.md), so the list is shown without a second action. Null when the result has
 * none (through the host's agent, or that listing failed): list again.
 */
export function sessionsLeftOf(a: ActionRecord | null): WinSession[] | null {
  const s = (a?.result as { sessions_left?: unknown } | null | undefined)?.sessions_left;
  return Array.isArray(s) ? (s as WinSession[]) : null;
}

/** Windows host as the API decides it (core agentKindOf): the RDP agent or a Windows OS family. */
export function isWindowsHost(h: { product?: string | null; os_family?: string | null }): boolean {
  if (h.product === 'rdp-login-monitor') return true;
  if (h.product === 'ssh-monitor') return false;
  return (h.os_family ?? '').toLowerCase().startsWith('win');
}
