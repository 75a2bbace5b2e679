// The automatic update fallback: an update the agent poll delivered, which the host did not apply within
// SERVICE_AGENT_UPDATE_FALLBACK_MINUTES (it still reports an older version, so no agent.update with the
// new version arrived), is run over SSH (Linux) or WinRM (Windows) as actor `system`. One action per
// host and offered version; a host that caught up in time is just marked done.
import type { Queue } from 'bullmq';
import type { ActionsQueueJob } from '@watchpost/schemas';
import {
  actionJob,
  actionJobOptions,
  actionTarget,
  agentKindOf,
  checkGitUrl,
  claimUpdateOffer,
  createAction,
  displayGitUrl,
  dueUpdateOffers,
  finishAction,
  isOutdated,
  loadAgentUpdateSettings,
  loadWinrmSettings,
  markUpdateOfferDone,
  validBranch,
  winrmRefusal,
} from '@watchpost/core/actions';
import { findHostsByHostname } from '@watchpost/core/hosts';
import type { ActionDeps } from './deps.ts';

export const FALLBACK_ACTOR = 'system';
/** A fallback update not started within this long is failed as expired. */
const FALLBACK_TTL_MS = 3_600_000;

export async function runUpdateFallback(
  deps: ActionDeps,
  queue: Queue<ActionsQueueJob>,
): Promise<{ started: number[]; caught_up: number }> {
  const { pg, config } = deps;
  const due = await dueUpdateOffers(pg, config.actions.agentUpdate.fallbackMinutes);
  const hosts = await findHostsByHostname(
    pg,
    due.map((o) => o.hostname),
    ['id', 'os_family', 'product', 'product_version', 'fqdn', 'ipv4', 'internal_address'],
  );
  const settings = await loadAgentUpdateSettings(pg, config.actions);
  const winrm = due.length > 0 ? await loadWinrmSettings(pg, config.actions, deps.secretsKey) : undefined;
  const started: number[] = [];
  let caughtUp = 0;
  for (const o of due) {
    const h = hosts.get(o.hostname);
    if (!h || !isOutdated(h.product_version, o.version)) {
      await markUpdateOfferDone(pg, o.hostname, o.version);
      caughtUp++;
      continue;
    }
    const agent = agentKindOf(h);
    const s = settings[agent];
    const url = checkGitUrl(s.gitUrl, { allowFile: config.actions.agentUpdate.allowFileUrls });
    const branch = validBranch(s.branch);
    const target = actionTarget(h);
    const refused = agent === 'windows' && winrm ? winrmRefusal(winrm, true) : null;
    const why = !url.ok
      ? url.reason
      : !branch
        ? `invalid branch ${s.branch}`
        : !target
          ? 'the host has no usable address'
          : refused;
    // The job is stored with the action (as recordAction does), so the requeue sweep can queue it again
    // when Redis loses it.
    const job =
      url.ok && branch && target && !why
        ? actionJob(
            'agent.update',
            { target, agent, git_url: url.url, branch },
            0,
            new Date(Date.now() + FALLBACK_TTL_MS),
            'system',
          )
        : undefined;
    const { action_id: _, ...stored } = job ?? { action_id: 0 };
    const action = await createAction(pg, {
      kind: 'agent.update',
      hostId: h.id,
      hostname: o.hostname,
      actor: FALLBACK_ACTOR,
      address: null,
      // Shown with the action: never a token a URL saved before they were refused may hold.
      params: {
        agent,
        git_url: displayGitUrl(s.gitUrl),
        branch: s.branch,
        fallback_for_version: o.version,
        address: target?.address ?? null,
      },
      job: job ? stored : undefined,
    });
    // Claimed first: a second scheduler tick never starts the same fallback twice.
    if (!(await claimUpdateOffer(pg, o.hostname, o.version, action.id))) {
      await finishAction(pg, action.id, { ok: false, error: 'superseded: another fallback was started' });
      continue;
    }
    if (!job) {
      await finishAction(pg, action.id, { ok: false, error: `fallback update not possible: ${why}` });
      continue;
    }
    await queue.add('agent.update', { ...job, action_id: action.id }, actionJobOptions(action.id));
    started.push(action.id);
  }
  return { started, caught_up: caughtUp };
}
