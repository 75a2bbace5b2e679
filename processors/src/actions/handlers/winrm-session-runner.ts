// The session kinds (winrm.sessions, winrm.logoff, winrm.logoff_user) in the actions worker, one handler
// for the three. The transport is chosen once (core's chooseSessionTransport: WinRM settings read and
// checked, the host's address resolved and checked once here, target.ts); when the host's bound agent
// could take over, a reachability probe of the WinRM port comes second and may still hand the action to
// the agent (../agent-transport.ts). A failure after connecting (TLS, certificate pin, authentication,
// a command) stays a WinRM failure: something may have run. Over WinRM the steps of core's sessionStep
// (the rules: core/src/actions/sessions.ts) run on ONE client, with the address and settings chosen.
import { connect } from 'node:net';
import {
  chooseSessionTransport,
  parseSessionId,
  sessionActionOfJob,
  sessionStep,
  type LogoffOutcome,
  type SessionAction,
  type SessionJob,
  type SessionListing,
} from '@watchpost/core/actions';
import { RemoteError } from '../errors.ts';
import { parseQwinsta } from '../qwinsta.ts';
import type { WinrmClient } from '../winrm.ts';
import type { ActionDeps } from '../deps.ts';
import { handOverToAgent } from '../agent-transport.ts';
import { checkedAddress } from './target.ts';
import { commandFailure, winrmClient } from './winrm-host.ts';

/** Runs a session action over WinRM, or hands it to the host's agent (HandedToAgent is thrown). */
export async function runSessionAction(deps: ActionDeps, job: SessionJob, signal: AbortSignal): Promise<Record<string, unknown>> {
  const t = await chooseSessionTransport(deps.pg, deps.config.actions, job.target.hostname, {
    secretsKey: deps.secretsKey,
    checkAddress: async () => {
      try {
        return { ok: true, address: await checkedAddress(deps, job.target, signal) };
      } catch (err) {
        if (err instanceof RemoteError) return { ok: false, reason: err.message };
        throw err;
      }
    },
  });
  if (t.via === 'none') throw new RemoteError(t.error);
  if (t.via === 'agent') return handOverToAgent(deps, job, t.reason);
  if (t.agent) {
    const unreachable = await probe(t.address, t.settings.port, signal);
    if (unreachable)
      return handOverToAgent(deps, job, `WinRM at ${job.target.address}:${t.settings.port} is not reachable (${unreachable})`);
  }
  return runOnWinrm(winrmClient(deps, job, t.settings, t.address, signal), sessionActionOfJob(job));
}

/** How long the reachability probe before a session action waits for the WinRM port to accept. */
const PROBE_MS = 5_000;

/** Null when the port accepts a TCP connection (closed at once, nothing sent), else why not. */
function probe(ip: string, port: number, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port });
    const done = (why: string | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(why);
    };
    const onAbort = () => done('timed out');
    const timer = setTimeout(() => done(`no answer within ${PROBE_MS / 1000} s`), PROBE_MS);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/** qwinsta's outcome; it exits 1 with "No session exists" when nothing matches (an empty list). */
async function qwinsta(client: WinrmClient): Promise<SessionListing> {
  const r = await client.run('qwinsta');
  if (r.exitCode !== 0 && !/no session/i.test(r.stderr)) return { ok: false, error: commandFailure('qwinsta', r) };
  return { ok: true, sessions: parseQwinsta(r.stdout), raw: r.stdout };
}

/** The steps on one client: qwinsta and logoffs as asked, in order, stopping at the first failed logoff. */
async function runOnWinrm(client: WinrmClient, a: SessionAction): Promise<Record<string, unknown>> {
  const via = { transport: 'winrm', endpoint: client.url } as const;
  let listing: SessionListing | undefined;
  const logoffs: LogoffOutcome[] = [];
  // qwinsta at most once, the logoffs at most once: three steps and the answer
  for (let i = 0; i < 4; i++) {
    const step = sessionStep(a, via, { ...(listing ? { listing } : {}), logoffs });
    if (step.next === 'done')
      return a.kind === 'winrm.sessions' ? step.result : { ...step.result, ...(await sessionsLeft(client)) };
    if (step.next === 'failed') throw new RemoteError(step.error);
    if (step.next === 'qwinsta') {
      if (listing) break;
      listing = await qwinsta(client);
      continue;
    }
    if (logoffs.length) break;
    for (const id of step.ids) {
      // integers by type, checked again before they reach a command line
      const safe = parseSessionId(id);
      if (safe === null) throw new RemoteError(`invalid session id ${String(id)}`);
      const r = await client.run('logoff', [String(safe)]);
      if (r.exitCode === 0) logoffs.push({ id: safe, ok: true });
      else {
        logoffs.push({ id: safe, ok: false, error: commandFailure(`logoff ${safe}`, r) });
        break;
      }
    }
  }
  throw new Error(`the steps of ${a.kind} did not finish`);
}

/**
 * After a logoff, qwinsta once more on the same connection: the result carries the sessions left, so the
 * UI shows them without a second action (and a second WinRM connection). The logoff is done whatever
 * this says: a failed listing is kept beside it, never turned into a failure.
 */
async function sessionsLeft(client: WinrmClient): Promise<Record<string, unknown>> {
  try {
    const after = await qwinsta(client);
    return after.ok ? { sessions_left: after.sessions } : { sessions_left_error: after.error };
  } catch (err) {
    return { sessions_left_error: err instanceof Error ? err.message : String(err) };
  }
}
