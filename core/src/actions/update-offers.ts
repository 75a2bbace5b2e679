// The agent_update_offers table: which version the agent poll offered to which host (ingest), and whether
// the host caught up or the automatic fallback update ran (the actions worker, fallback.ts in processors).
// An offer arms the SSH/WinRM fallback, so it comes from the service's own comparison (the host's stored
// version against the latest release) for the host's bound agent, never from what a poll claims.
import type { Pool } from '@watchpost/runtime';
import { isOutdated, parseVersion } from './version.ts';

/**
 * Whether the poll offers `latest` to a host's bound agent: its stored version (from its events, or read
 * back by a remote update) is older. The version the agent claims in the poll can only hold an offer
 * back (it just updated and its agent.update event is on the way), never create one.
 */
export function shouldOfferUpdate(stored: string | null, claimed: string | undefined, latest: string | null): boolean {
  if (!isOutdated(stored, latest)) return false;
  const claimedVersion = claimed === undefined ? null : parseVersion(claimed);
  return claimedVersion === null || isOutdated(claimedVersion, latest);
}

/** Remembers that the poll offered `version` to the host (the first offer starts the fallback clock). */
export async function recordUpdateOffer(pg: Pool, hostname: string, version: string): Promise<void> {
  await pg.query(
    `INSERT INTO agent_update_offers (hostname, version) VALUES ($1, $2)
     ON CONFLICT (hostname, version) DO UPDATE SET last_offered_at = now()`,
    [hostname, version],
  );
}

/** Open offers older than `minutes` with no fallback started yet, oldest first (at most 100). */
export async function dueUpdateOffers(pg: Pool, minutes: number): Promise<{ hostname: string; version: string }[]> {
  const r = await pg.query<{ hostname: string; version: string }>(
    `SELECT hostname, version FROM agent_update_offers
      WHERE done_at IS NULL AND fallback_action_id IS NULL AND offered_at <= now() - make_interval(mins => $1)
      ORDER BY offered_at LIMIT 100`,
    [minutes],
  );
  return r.rows;
}

/** The host caught up (or is gone): the offer needs no fallback. */
export async function markUpdateOfferDone(pg: Pool, hostname: string, version: string): Promise<void> {
  await pg.query('UPDATE agent_update_offers SET done_at = now() WHERE hostname = $1 AND version = $2', [hostname, version]);
}

/** Claims the offer for this fallback action; false when another fallback claimed it first. */
export async function claimUpdateOffer(pg: Pool, hostname: string, version: string, actionId: number): Promise<boolean> {
  const r = await pg.query(
    'UPDATE agent_update_offers SET fallback_action_id = $3 WHERE hostname = $1 AND version = $2 AND fallback_action_id IS NULL',
    [hostname, version, actionId],
  );
  return r.rowCount === 1;
}
