// An agent update that is not followed by the agent's own events (issue 31): the deploy says it installed
// the new version, but the host's version (which only the agent's events set) does not follow. One live
// problem per host (type agent_update_stalled), opened or extended by the update action, paged like any
// new problem (problems.v1), naming the likely cause:
// - nothing at all from the host since the deploy: the monitor does not start. rdp-login-monitor's deploy
//   (Deploy-LoginMonitor.ps1) keeps login_monitor.settings.ps1's SAC block only when its key is a quoted
//   'sac_…' literal, forces $UseSAC to fallback on every version upgrade, and Login_Monitor.ps1 exits at
//   start without a key (AGENTS.md, "Updates");
// - events, but of the old version: the monitor that runs was not restarted on the new files.
import { withTransaction, type Pool } from '@watchpost/runtime';
import type { Severity } from '@watchpost/schemas';
import {
  deterministicUuid,
  fingerprintOf,
  lockLiveProblems,
  newProblemRow,
  openProblems,
  outboxEntry,
  problemPayload,
  updateProblems,
} from '../problems/store.ts';

export const AGENT_UPDATE_STALLED_TYPE = 'agent_update_stalled';
export const AGENT_UPDATE_RULE = 'agent_update';

export interface StalledUpdate {
  hostname: string;
  /** The version the agent should report ($ScriptVersion of the bundle). */
  version: string;
  /** What the deploy wrote (deployed_version.txt). */
  deployed: string;
  /** When the deploy finished on the host (as the service saw it). */
  deployedAt: Date;
  /** The host's last event (receive time) and last reported version, when the wait ended. */
  lastSeen: Date | null;
  reported: string | null;
  actionId: number;
}

/** The problem's severity, title and likely cause for what the host did after the deploy. */
export function stalledUpdateFinding(u: StalledUpdate): { severity: Severity; title: string; cause: string; silent: boolean } {
  const silent = u.lastSeen === null || u.lastSeen < u.deployedAt;
  if (silent)
    return {
      silent,
      severity: 'high',
      title: `${u.hostname}: no event from the agent since its update to ${u.version}`,
      cause:
        'the monitor does not start after the deploy: the deploy keeps the SAC block of login_monitor.settings.ps1 only when ' +
        "$SacApiKey is a quoted 'sac_…' literal and forces $UseSAC to fallback on a version upgrade; without a key " +
        'Login_Monitor.ps1 exits at every start. Check the settings file and Logs\\deploy.log under C:\\ProgramData\\RDP-login-monitor',
    };
  return {
    silent,
    severity: 'warning',
    title: `${u.hostname}: the agent still reports ${u.reported ?? 'an older version'} after its update to ${u.version}`,
    cause:
      `the deploy installed ${u.deployed}, but the monitor that sends events was not restarted on the new files ` +
      '(its scheduled task still runs the old process): restart it (Restart-RdpLoginMonitor.ps1) or the host',
  };
}

/** Opens the host's agent_update_stalled problem, or extends the live one. Returns its id and whether it was new. */
export async function raiseStalledUpdate(pg: Pool, u: StalledUpdate, now = new Date()): Promise<{ id: string; opened: boolean }> {
  const f = stalledUpdateFinding(u);
  const fingerprint = fingerprintOf(u.hostname, AGENT_UPDATE_STALLED_TYPE, AGENT_UPDATE_RULE);
  const details = {
    version: u.version,
    deployed_version: u.deployed,
    deployed_at: u.deployedAt.toISOString(),
    last_event_at: u.lastSeen?.toISOString() ?? null,
    reported_version: u.reported,
    silent_since_deploy: f.silent,
    likely_cause: f.cause,
    action_id: u.actionId,
  };
  return withTransaction(pg, async (c) => {
    const live = (await lockLiveProblems(c, [fingerprint])).get(fingerprint);
    if (live) {
      const sev = f.severity === 'high' ? 'high' : live.severity;
      await updateProblems(c, [{ row: { ...live, severity: sev, last_seen: now, details }, countDelta: 1 }]);
      return { id: live.id, opened: false };
    }
    const row = newProblemRow({
      id: deterministicUuid(`${AGENT_UPDATE_STALLED_TYPE}:${u.hostname}:${u.actionId}`),
      fingerprint,
      host: u.hostname,
      type: AGENT_UPDATE_STALLED_TYPE,
      rule: AGENT_UPDATE_RULE,
      title: f.title,
      severity: f.severity,
      at: now,
      details,
    });
    const inserted = await openProblems(c, [row], [outboxEntry('problem.opened', problemPayload(row), now)], {
      onConflictDoNothing: true,
    });
    return { id: row.id, opened: inserted.has(row.id) };
  });
}
