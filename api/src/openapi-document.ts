// The OpenAPI document without any store: the API app is built with inert dependencies (no route runs,
// no client connects) and its document read through inject(). Used by the web client generator and
// its drift check (api/scripts/web-client.ts).
import Fastify from 'fastify';
import { loadConfig } from '@watchpost/runtime';
import { buildApiApp, OPENAPI_PATH } from './app.ts';
import type { ApiDeps } from './types.ts';
import { authSettingsFrom } from './auth/settings.ts';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const unused = () => {
    throw new Error('the OpenAPI document builder has no stores');
  };
  const inert = new Proxy({}, { get: unused }) as never;
  const config = loadConfig({}, 'api');
  const deps: ApiDeps = {
    config,
    pg: inert,
    redis: inert,
    redisKeyPrefix: 'openapi:',
    clickhouse: inert,
    notifications: inert,
    actions: inert,
    auth: authSettingsFrom(config, new Uint8Array(32)),
    verifyAgentKey: unused,
    resentOf: unused,
  };
  const app = Fastify({ logger: false });
  await app.register(buildApiApp(deps));
  await app.ready();
  try {
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    if (res.statusCode !== 200) throw new Error(`${OPENAPI_PATH} answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
  }
}
