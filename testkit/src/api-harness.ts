// An API app on the real local stack with its own Postgres/ClickHouse databases, Redis key prefix and
// BullMQ queue prefix. Also collects the route table (method, url, config) through an onRoute hook,
// so tests can iterate every registered route.
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import {
  createQueue,
  createRedis,
  readResentOf,
  registerHealth,
  trustProxyOption,
  type Config,
  type Redis,
} from '@watchpost/runtime';
import { NOTIFICATIONS_QUEUE, type LoginRateLimitedJob } from '@watchpost/schemas';
import { createUser, verifyApiKey, type UserRole } from '@watchpost/core';
import { authSettingsFrom, buildApiApp, createActionsQueue, type Access, type ApiDeps, type AuthSettings } from '@watchpost/api';
import { createTestStores, testConfig, type TestStores } from './stores.ts';

export interface RouteInfo {
  method: string;
  url: string;
  access: Access;
  sseToken: boolean;
}

export interface ApiHarness {
  app: FastifyInstance;
  deps: ApiDeps;
  stores: TestStores;
  config: Config;
  routes: RouteInfo[];
  redis: Redis;
  queuePrefix: string;
  close(): Promise<void>;
}

export const TEST_JWT_SECRET = new TextEncoder().encode('test-secret-test-secret-test-secret-0123456789');

export async function createApiHarness(
  name: string,
  opts: {
    auth?: Partial<AuthSettings>;
    extraRoutes?: FastifyPluginAsync[];
    env?: Record<string, string>;
    /** Requests with header `x-access-probe` stop right after the access check with status 299 (no handler runs). */
    accessProbe?: boolean;
    /** Store clients to use instead of the test's own (e.g. through a TCP proxy that a test cuts). */
    stores?: (config: Config) => Partial<Pick<ApiDeps, 'pg' | 'redis' | 'clickhouse'>>;
  } = {},
): Promise<ApiHarness> {
  // testConfig gives the test its own BullMQ prefix and Redis key prefix.
  const config = testConfig(name, opts.env);
  const stores = await createTestStores(config, { kafka: false });
  const redis = createRedis(config.redisUrl);
  const queuePrefix = config.queuePrefix;
  const notifications = createQueue<LoginRateLimitedJob>(
    config,
    NOTIFICATIONS_QUEUE,
    createRedis(config.redisUrl, { forBullmq: true }),
  );
  const actions = createActionsQueue(config, createRedis(config.redisUrl, { forBullmq: true }));
  const deps: ApiDeps = {
    config,
    pg: stores.pg,
    redis,
    redisKeyPrefix: config.redisKeyPrefix,
    clickhouse: stores.ch,
    notifications,
    actions,
    auth: { ...authSettingsFrom(config, TEST_JWT_SECRET), ...opts.auth },
    verifyAgentKey: async (key) => (await verifyApiKey(stores.pg, key)) !== null,
    resentOf: (eventId) => readResentOf(redis, config.claimKeyPrefix, eventId),
    ...opts.stores?.(config),
  };
  const app = Fastify({ logger: false, trustProxy: trustProxyOption(config.trustProxy) }); // as ops/src/launcher.ts
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (r) => {
    const cfg = (r.config ?? {}) as { access?: Access; sseToken?: boolean };
    for (const method of [r.method].flat()) {
      if (cfg.access) routes.push({ method, url: r.url, access: cfg.access, sseToken: cfg.sseToken === true });
    }
  });
  if (opts.accessProbe) {
    // preParsing runs after every onRequest hook, so after the API's access hook has let the request through.
    app.addHook('preParsing', async (req, reply) => {
      if (req.headers['x-access-probe']) return reply.code(299).send({ allowed: true });
    });
  }
  registerHealth(app, 'test');
  await app.register(buildApiApp(deps, { extraRoutes: opts.extraRoutes }));
  await app.ready();
  return {
    app,
    deps,
    stores,
    config,
    routes,
    redis,
    queuePrefix,
    async close() {
      await app.close();
      await notifications.obliterate({ force: true }).catch(() => {});
      await notifications.close();
      await actions.close();
      const keys = await redis.keys(`${deps.redisKeyPrefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await stores.drop();
    },
  };
}

/** Each user costs one scrypt hash (~0.3 s at the production parameters): keep them few per test. */
export async function addUser(h: ApiHarness, username: string, role: UserRole, password = `pw-${username}-secret`) {
  const user = await createUser(h.deps.pg, { username, password, role });
  return { ...user, password };
}

export async function login(h: ApiHarness, username: string, password: string, remoteAddress = '127.0.0.1') {
  return h.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password }, remoteAddress });
}
