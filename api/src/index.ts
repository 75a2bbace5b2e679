// The `api` role: wires clients into the API plugin and creates the first admin at first start.
import {
  createQueue,
  createRedis,
  readResentOf,
  sameRedisTarget,
  type Clients,
  type Config,
  type RoleStarter,
} from '@watchpost/runtime';
import { NOTIFICATIONS_QUEUE, type LoginRateLimitedJob } from '@watchpost/schemas';
import { verifyApiKey } from '@watchpost/core/agent-keys';
import { buildApiApp } from './app.ts';
import { loadJwtSecret } from './auth/secret.ts';
import { authSettingsFrom } from './auth/settings.ts';
import { ensureFirstAdmin } from './auth/first-admin.ts';
import type { ApiDeps, AuthSettings } from './types.ts';
import { createActionsQueue } from './routes/actions/queue.ts';

export { buildApiApp } from './app.ts';
export { createActionsQueue, type ActionsQueue } from './routes/actions/queue.ts';
export type { ApiDeps, ApiUser, Access, AuthSettings } from './types.ts';
// The read queries the routes answer with, for the checks that run them elsewhere (the ClickHouse
// cluster's equality with one server: ops/src/clickhouse-shards.int.test.ts)
export { dashboardSummary } from './queries/dashboard.ts';
export { eventFacets, eventHistogram, listEvents } from './queries/events.ts';
export { deleteHost } from './queries/hosts.ts';

export { authSettingsFrom };

export async function authSettings(config: Config): Promise<AuthSettings> {
  return authSettingsFrom(config, await loadJwtSecret(config.jwtSecret, config.stateDir));
}

export async function createApiDeps(config: Config, clients: Clients): Promise<ApiDeps & { close(): Promise<void> }> {
  // Ingest's claims may live on a Redis of their own (SERVICE_CLAIMS_REDIS_URL): the explain view reads
  // there why an event_id was not stored.
  const ownClaimsRedis = sameRedisTarget(config.claimsRedis, config.redis)
    ? null
    : createRedis(config.claimsRedis, { timeouts: config.redisTimeouts });
  const claimsRedis = ownClaimsRedis ?? clients.redis;
  const notifications = createQueue<LoginRateLimitedJob>(config, NOTIFICATIONS_QUEUE, clients.bullmqConnection());
  const actions = createActionsQueue(config, clients.bullmqConnection());
  return {
    config,
    pg: clients.pg,
    redis: clients.redis,
    redisKeyPrefix: config.redisKeyPrefix,
    clickhouse: clients.clickhouse,
    notifications,
    actions,
    auth: await authSettings(config),
    verifyAgentKey: async (key) => (await verifyApiKey(clients.pg, key)) !== null,
    resentOf: (eventId) => readResentOf(claimsRedis, config.claimKeyPrefix, eventId),
    async close() {
      await notifications.close();
      await actions.close();
      await ownClaimsRedis?.quit().catch(() => ownClaimsRedis.disconnect());
    },
  };
}

export const apiRole: RoleStarter = async ({ config, log, clients }) => {
  const deps = await createApiDeps(config, clients);
  await ensureFirstAdmin(deps.pg, config, log);
  return {
    routes: buildApiApp(deps),
    checks: clients.checks(),
    close: () => deps.close(),
  };
};
