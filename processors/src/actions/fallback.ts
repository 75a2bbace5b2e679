// The automatic update fallback: an update the agent poll delivered, which the host did not apply within
// SERVICE_AGENT_UPDATE_FALLBACK_MINUTES (it still reports an older version, so no agent.update with the
// new version arrived), is run over SSH (Linux) or WinRM (Windows) as actor `system`. One action per
// host and offered version; a host that caught up in time is just marked done.
import type { Queue } from 'bullmq';
import type { ActionJob, ActionsQueueJob } from '@watchpost/schemas';
import {
  actionTarget,
  agentKindOf,
  checkGitUrl,
  createAction,
  finishAction,
  isOutdated,
  loadAgentUpdateSettings,
  loadWinrmSettings,
  validBranch,
  winrmRefusal,
} from '@watchpost/core';
import type { ActionDeps } from './handlers.ts';

export const FALLBACK_ACTOR = 'system';
/** A fallback update not started within this long is failed as expired. */
const FALLBACK_TTL_MS = 3_600_000;

interface Due {
  hostname: string;
  version: string;
  id: number | null;
  os_family: string;
  product: string;
  product_version: string | null;
  fqdn: string | null;
  ipv4: string | null;
  internal_address: string | null;
}

export async function runUpdateFallback(
  deps: ActionDeps,
  queue: Queue<ActionsQueueJob>,
): Promise<{ started: number[]; caught_up: number }> {
  const { pg, config } = deps;
  const due = await pg.query<Due>(
    `SELECT o.hostname, o.version, h.id, h.os_family, h.product, h.product_version, h.fqdn, h.ipv4, h.internal_address
       FROM agent_update_offers o LEFT JOIN hosts h ON h.hostname = o.hostname
      WHERE o.done_at IS NULL AND o.fallback_action_id IS NULL AND o.offered_at <= now() - make_interval(mins => $1)
      ORDER BY o.offered_at LIMIT 100`,
    [config.actions.agentUpdate.fallbackMinutes],
  );
  const settings = await loadAgentUpdateSettings(pg, config.actions);
  const winrm = due.rows.length > 0 ? await loadWinrmSettings(pg, config.actions, deps.secretsKey) : undefined;
  const started: number[] = [];
  let caughtUp = 0;
  for (const o of due.rows) {
    if (o.id === null || !isOutdated(o.product_version, o.version)) {
      await pg.query('UPDATE agent_update_offers SET done_at = now() WHERE hostname = $1 AND version = $2', [
        o.hostname,
        o.version,
      ]);
      caughtUp++;
      continue;
    }
    const agent = agentKindOf({ product: o.product, os_family: o.os_family });
    const s = settings[agent];
    const url = checkGitUrl(s.gitUrl, { allowFile: config.actions.agentUpdate.allowFileUrls });
    const branch = validBranch(s.branch);
    const target = actionTarget({ ...o, id: o.id });
    const action = await createAction(pg, {
      kind: 'agent.update',
      hostId: o.id,
      hostname: o.hostname,
      actor: FALLBACK_ACTOR,
      address: null,
      params: { agent, git_url: s.gitUrl, branch: s.branch, fallback_for_version: o.version, address: target?.address ?? null },
    });
    // Claimed first: a second scheduler tick never starts the same fallback twice.
    const claimed = await pg.query(
      'UPDATE agent_update_offers SET fallback_action_id = $3 WHERE hostname = $1 AND version = $2 AND fallback_action_id IS NULL',
      [o.hostname, o.version, action.id],
    );
    if (claimed.rowCount !== 1) {
      await finishAction(pg, action.id, { ok: false, error: 'superseded: another fallback was started' });
      continue;
    }
    const refused = agent === 'windows' && winrm ? winrmRefusal(winrm, true) : null;
    if (!url.ok || !branch || !target || refused) {
      const why = !url.ok
        ? url.reason
        : !branch
          ? `invalid branch ${s.branch}`
          : !target
            ? 'the host has no usable address'
            : refused!;
      await finishAction(pg, action.id, { ok: false, error: `fallback update not possible: ${why}` });
      continue;
    }
    const job: ActionJob = {
      kind: 'agent.update',
      action_id: action.id,
      target,
      agent,
      git_url: url.url,
      branch,
      deadline: new Date(Date.now() + FALLBACK_TTL_MS).toISOString(),
    };
    await queue.add('agent.update', job, {
      jobId: `action-${action.id}`,
      attempts: 1,
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: 86_400 },
    });
    started.push(action.id);
  }
  return { started, caught_up: caughtUp };
}
