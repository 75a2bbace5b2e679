// The Windows session actions (winrm.sessions = qwinsta, winrm.logoff = one session, winrm.logoff_user =
// every session of a user) as pure steps, the one home of their rules (issue 34 item 2). Given what is
// known so far (the qwinsta listing once run, the logoffs done and their outcomes) sessionStep answers
// what comes next: run qwinsta, log off these ids, done (the result) or failed (the reason). Two runners
// in the actions worker follow it: over WinRM on one connection (processors/src/actions/handlers/
// winrm-session-runner.ts) and through the host's agent across its polls (processors/src/actions/
// agent-transport.ts). The rules:
// - a user's session is one whose qwinsta user name is the account part of the user (DOMAIN\name and
//   name@domain alike), compared case-insensitively;
// - winrm.logoff with `owner` (a monitor's gateway logoff) lists first and logs off only a session of
//   that user;
// - winrm.logoff_user checks every id before the first logoff (never half done because of one odd line)
//   and fails without a session of the user;
// - the agent cannot log off session 0 (services): its command channel refuses id 0.
import type { ActionJobOf } from '@watchpost/schemas';
import { accountPart, parseSessionId } from './validate.ts';

/** One line of qwinsta (processors/src/actions/qwinsta.ts parses them). */
export interface WindowsSession {
  session_name: string;
  username: string;
  id: number;
  state: string;
  /** the session qwinsta ran in (marked '>') */
  current: boolean;
}

/** The session kinds, the ones the host's agent can run too. */
export type SessionActionKind = 'winrm.sessions' | 'winrm.logoff' | 'winrm.logoff_user';

/** The job of a session kind (a union: narrow it on `kind`). */
export type SessionJob = { [K in SessionActionKind]: ActionJobOf<K> }[SessionActionKind];

/** A session action as the steps read it (from its job, or from its record for the agent runner). */
export type SessionAction =
  | { kind: 'winrm.sessions'; hostname: string }
  | { kind: 'winrm.logoff'; hostname: string; session_id: number; owner?: string | undefined }
  | { kind: 'winrm.logoff_user'; hostname: string; user: string };

/** Where the commands run: over WinRM (its endpoint is in a listing's result) or through the agent. */
export type SessionVia = { transport: 'winrm'; endpoint: string } | { transport: 'agent' };

/** qwinsta's outcome: the sessions (none when qwinsta said "No session exists"), or why it failed. */
export type SessionListing = { ok: true; sessions: WindowsSession[]; raw: string } | { ok: false; error: string };

/** One logoff done: its session id, and its failure as the runner words it (exit code, agent stderr). */
export type LogoffOutcome = { id: number; ok: true } | { id: number; ok: false; error: string };

/** What a runner knows so far. */
export interface SessionProgress {
  /** qwinsta's outcome, once it ran */
  listing?: SessionListing;
  /** the logoffs done, in order (a runner stops, or the agent reports, before asking again) */
  logoffs: readonly LogoffOutcome[];
}

/** What comes next. `result` of `failed`: fields the action's result keeps besides the reason. */
export type SessionStep =
  | { next: 'qwinsta' }
  | { next: 'logoff'; ids: number[] }
  | { next: 'done'; result: Record<string, unknown> }
  | { next: 'failed'; error: string; result?: Record<string, unknown> };

/** qwinsta shows the bare account name; events may carry DOMAIN\user or user@domain. */
export const sessionOf = (s: { username: string }, user: string) => s.username.toLowerCase() === accountPart(user).toLowerCase();

/** The session of the agent's refusal (Invoke-SacAgentCommand tests `-not $sid`). */
export const AGENT_REFUSES_SESSION_0 = "the host's agent cannot log off session 0 (services)";

/** A session action from its job. */
export function sessionActionOfJob(job: SessionJob): SessionAction {
  const hostname = job.target.hostname;
  if (job.kind === 'winrm.logoff') return { kind: job.kind, hostname, session_id: job.session_id, owner: job.owner };
  if (job.kind === 'winrm.logoff_user') return { kind: job.kind, hostname, user: job.user };
  return { kind: job.kind, hostname };
}

/** A session action from an action record's kind, params and hostname; null for another kind. */
export function sessionActionOf(kind: string, params: Record<string, unknown>, hostname: string): SessionAction | null {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (kind === 'winrm.sessions') return { kind, hostname };
  if (kind === 'winrm.logoff')
    return {
      kind,
      hostname,
      session_id: Number(params.session_id),
      ...(typeof params.owner === 'string' ? { owner: params.owner } : {}),
    };
  if (kind === 'winrm.logoff_user') return { kind, hostname, user: text(params.user) };
  return null;
}

const failed = (error: string, result?: Record<string, unknown>): SessionStep =>
  result === undefined ? { next: 'failed', error } : { next: 'failed', error, result };

/** The failures of the logoffs done, joined; null when all succeeded. */
function logoffErrors(logoffs: readonly LogoffOutcome[]): string | null {
  const errors = logoffs.flatMap((l) => (l.ok ? [] : [l.error]));
  return errors.length ? errors.join('; ') : null;
}

/** The next step of a session action over `via`, from what is known so far. */
export function sessionStep(a: SessionAction, via: SessionVia, known: SessionProgress): SessionStep {
  const { listing, logoffs } = known;
  if (listing && !listing.ok) return failed(listing.error);
  const agent = via.transport === 'agent';

  if (a.kind === 'winrm.sessions') {
    if (!listing) return { next: 'qwinsta' };
    return {
      next: 'done',
      result: { endpoint: via.transport === 'winrm' ? via.endpoint : null, sessions: listing.sessions, raw: listing.raw },
    };
  }

  if (a.kind === 'winrm.logoff') {
    const sid = a.session_id;
    if (logoffs.length === 0) {
      if (parseSessionId(sid) === null) return failed(`invalid session id ${String(sid)}`);
      if (a.owner !== undefined) {
        if (!listing) return { next: 'qwinsta' };
        const s = listing.sessions.find((x) => x.id === sid);
        if (!s) return failed(`no session ${sid} on ${a.hostname}`);
        if (!sessionOf(s, a.owner)) return failed(`session ${sid} is not a session of the event's user ${a.owner}`);
      }
      if (agent && sid === 0) return failed(AGENT_REFUSES_SESSION_0);
      return { next: 'logoff', ids: [sid] };
    }
    const error = logoffErrors(logoffs);
    if (error) return failed(error);
    return { next: 'done', result: { session_id: sid, logged_off: true } };
  }

  // winrm.logoff_user
  if (!listing) return { next: 'qwinsta' };
  const mine = listing.sessions.filter((s) => sessionOf(s, a.user));
  if (logoffs.length === 0) {
    if (mine.length === 0) return failed(`no session of user ${a.user} on ${a.hostname}`);
    // all ids checked before the first logoff: never half done because of one odd line
    if (agent) {
      const bad = mine.find((s) => parseSessionId(s.id) === null || s.id === 0);
      if (bad) return failed(`qwinsta listed a session id the agent cannot log off (${bad.id}); nothing was logged off`);
    } else {
      const bad = mine.find((s) => parseSessionId(s.id) === null);
      if (bad) return failed(`qwinsta listed an invalid session id ${bad.id}; nothing was logged off`);
    }
    return { next: 'logoff', ids: mine.map((s) => s.id) };
  }
  const byId = new Map(mine.map((s) => [s.id, s]));
  const loggedOff = logoffs
    .filter((l) => l.ok)
    .map((l) => byId.get(l.id))
    .filter((s): s is WindowsSession => s !== undefined)
    .map((s) => ({ id: s.id, session_name: s.session_name, state: s.state }));
  const error = logoffErrors(logoffs);
  if (error) return failed(error, { user: a.user, logged_off: loggedOff });
  return { next: 'done', result: { user: a.user, logged_off: loggedOff } };
}
