// The ingest role: bootstrap key, then the routes mounted by the launcher on its one server.
import type { RoleStarter } from '@watchpost/runtime';
import { ensureBootstrapKey } from '@watchpost/core';
import { createIngest } from './app.ts';

export { buildIngestApp, createIngest, ingestRoutes, envelopeValue, EVENTS_PATH, BATCH_PATH } from './app.ts';

export const ingestRole: RoleStarter = async ({ config, log, clients }) => {
  const bootstrap = await ensureBootstrapKey(clients.pg, {
    bootstrapApiKey: config.bootstrapApiKey,
    stateDir: config.stateDir,
    keyPrefix: config.agentKeyPrefix,
  });
  log.info({ bootstrap }, 'agent api keys ready');
  const ingest = createIngest({ config, log, redis: clients.redis, pg: clients.pg, kafka: clients.kafka });
  return {
    routes: ingest.routes,
    checks: { kafka: () => ingest.sink.ready() },
    close: () => ingest.close(),
  };
};
