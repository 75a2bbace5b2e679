// `npm run bench:claims`: Redis memory per committed event_id claim, measured on a Redis of its own
// (redis-server, noeviction, nothing else in it), and what that means for a Redis of a given size:
// events per day = maxmemory / (bytes per claim x SERVICE_INGEST_CLAIM_TTL_DAYS).
// CLAIMS (default 200000) claims are made through ingest's own ClaimStore (claim, then commit with
// the committed TTL), in groups of 1000 as the micro-batcher makes them; then as many Windows events'
// resend keys (resend.ts: claimed and committed with their event_id, TTL SERVICE_INGEST_RESEND_WINDOW_HOURS)
// to price content deduplication: what one rdp-login-monitor event holds beyond its claim.
import { createHash, randomUUID } from 'node:crypto';
import { createRedis, loadConfig } from '@watchpost/runtime';
import { startRedisServer } from '@watchpost/testkit';
import { ClaimStore } from '../src/claims.ts';

const CLAIMS = Number(process.env.CLAIMS ?? 200_000);
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const server = await startRedisServer();
const redis = createRedis(server.url);

async function usedMemory(): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

try {
  const claims = new ClaimStore(redis, {
    prefix: config.claimKeyPrefix,
    provisionalMs: config.ingest.claimProvisionalMs,
    committedMs: config.ingest.claimTtlDays * 86_400_000,
    resendMs: config.ingest.resendWindowHours * 3_600_000,
  });
  const before = await usedMemory();
  for (let i = 0; i < CLAIMS; i += 1000) {
    const ids = Array.from({ length: Math.min(1000, CLAIMS - i) }, () => randomUUID());
    await claims.claim(ids, 'bench');
    await claims.commit(ids, 'bench');
  }
  const after = await usedMemory();
  const perClaim = (after - before) / CLAIMS;
  const keys = await redis.dbsize();
  console.log(
    `claim-memory: ${keys} committed claims (key ${config.claimKeyPrefix}<uuid>) took ${((after - before) / 1e6).toFixed(1)} MB: ${perClaim.toFixed(1)} bytes per claim (Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)![1]}, used_memory)`,
  );
  const beforeResend = await usedMemory();
  const resendKey = () => createHash('sha256').update(randomUUID()).digest('base64url').slice(0, 22);
  for (let i = 0; i < CLAIMS; i += 1000) {
    const items = Array.from({ length: Math.min(1000, CLAIMS - i) }, () => ({ eventId: randomUUID(), resendKey: resendKey() }));
    await claims.claim(items, 'bench');
    await claims.commit(
      items.map((x) => x.eventId),
      'bench',
      items.map((x) => x.resendKey),
    );
  }
  const perWindows = ((await usedMemory()) - beforeResend) / CLAIMS;
  console.log(
    `claim-memory: ${CLAIMS} Windows events (claim + resend key ${config.claimKeyPrefix}r:<22 chars>) took ${perWindows.toFixed(1)} bytes each: the resend key ${(perWindows - perClaim).toFixed(1)} bytes, held ${config.ingest.resendWindowHours} h (the claim ${config.ingest.claimTtlDays} d): ${((((perWindows - perClaim) * config.ingest.resendWindowHours) / (perClaim * config.ingest.claimTtlDays * 24)) * 100).toFixed(0)}% more memory per Windows event at the defaults`,
  );
  const gb = 1024 ** 3;
  console.log('\nevents per day a Redis holds (claims only) = maxmemory / (bytes per claim x claim TTL days)');
  console.log(`${'maxmemory'.padEnd(12)}${[1, 7, 30, 90].map((d) => `TTL ${d} d`.padStart(22)).join('')}`);
  for (const size of [0.25, 1, 4, 16]) {
    const row = [1, 7, 30, 90].map((d) => {
      const perDay = (size * gb) / (perClaim * d);
      return `${Math.round(perDay).toLocaleString('en')} (${(perDay / 86_400).toFixed(1)}/s)`.padStart(22);
    });
    console.log(`${`${size} GB`.padEnd(12)}${row.join('')}`);
  }
} finally {
  redis.disconnect();
  await server.stop();
}
