// The ingest role: bootstrap key, then the routes mounted by the launcher on its one server.
import { createRedis, sameRedisTarget, type RoleStarter } from '@watchpost/runtime';
import { ensureBootstrapKey } from '@watchpost/core/agent-keys';
import { createIngest } from './app.ts';
import { watchRedisMemory } from './redis-memory.ts';

export { buildIngestApp, createIngest, ingestRoutes, envelopeValue, EVENTS_PATH, BATCH_PATH } from './app.ts';
export { smtpRole } from './smtp/role.ts';
export { createSmtpIntake } from './smtp/intake.ts';

export const ingestRole: RoleStarter = async ({ config, log, clients }) => {
  const bootstrap = await ensureBootstrapKey(clients.pg, {
    bootstrapApiKey: config.bootstrapApiKey,
    stateDir: config.stateDir,
    keyPrefix: config.agentKeyPrefix,
  });
  log.info({ bootstrap }, 'agent api keys ready');
  // Claims may live on a Redis of their own (SERVICE_CLAIMS_REDIS_URL or _SENTINELS), sized for them alone.
  const ownClaimsRedis = sameRedisTarget(config.claimsRedis, config.redis)
    ? null
    : createRedis(config.claimsRedis, { timeouts: config.redisTimeouts });
  const claimsRedis = ownClaimsRedis ?? clients.redis;
  const ingest = createIngest({ config, log, redis: claimsRedis, pg: clients.pg, kafka: clients.kafka });
  const memory = watchRedisMemory({
    redises: ownClaimsRedis ? { main: clients.redis, claims: ownClaimsRedis } : { main: clients.redis },
    warnRatio: config.redisMemoryWarnRatio,
    intervalMs: 15_000,
    log,
  });
  return {
    routes: ingest.routes,
    checks: {
      kafka: () => ingest.sink.ready(),
      ...(ownClaimsRedis ? { claims_redis: async () => (await ownClaimsRedis.ping()) === 'PONG' } : {}),
      ...memory.checks,
    },
    async close() {
      memory.stop();
      await ingest.close();
      await ownClaimsRedis?.quit().catch(() => ownClaimsRedis.disconnect());
    },
  };
};
