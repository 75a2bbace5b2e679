// The layout of ingest's idempotency claims in Redis, shared by their writer (ingest/src/claims.ts) and
// their one reader outside ingest (the API's explain view: why a posted event_id is not stored).
import type { Redis } from 'ioredis';

/** The Redis key of the claim of one event_id (`config.claimKeyPrefix` + the id in lower case). */
export function claimKeyOf(prefix: string, eventId: string): string {
  return prefix + eventId.toLowerCase();
}

/** Value of a claim whose event_id was a re-send of another stored event: this prefix + that id. */
export const RESENT_CLAIM_MARK = 'd';

/** The stored event_id the claim of `eventId` names as the one it re-sent, else null. */
export async function readResentOf(redis: Redis, prefix: string, eventId: string): Promise<string | null> {
  const v = await redis.get(claimKeyOf(prefix, eventId));
  return v?.startsWith(RESENT_CLAIM_MARK) ? v.slice(RESENT_CLAIM_MARK.length) : null;
}
