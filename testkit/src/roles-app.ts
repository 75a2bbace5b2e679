// Several roles in the test's own process, put together as the launcher (ops/src/launcher.ts) puts them
// in one service process: one shared Clients, the HTTP routes (ingest, api) on one Fastify app that the
// test drives with inject(). For the ops tests that follow events through ingest, store, correlate and
// the API without spawning processes. The role registry is ops' (nothing here imports ops or a role): the
// test passes it in.
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { Clients, createLogger, type Config, type RoleHandle, type RoleStarter, type ServiceRole } from '@watchpost/runtime';
import type { EventV1 } from '@watchpost/schemas';

/** ops/src/role-registry.ts's `roleStarters`. */
export type RoleStarters = Record<ServiceRole, () => Promise<RoleStarter>>;

export interface RolesApp {
  app: FastifyInstance;
  /** Closes the app, then the roles in reverse start order, then the clients (as the launcher does). */
  close(): Promise<void>;
  /** POST /api/v1/events as Sac-Client.ps1 Invoke-SacHttpPost sends one: Bearer key, Idempotency-Key = event_id, UTF-8 JSON. */
  postSacEvent(key: string, e: EventV1): Promise<LightMyRequestResponse>;
  /**
   * GET /api/v1<url> as the bootstrap admin (SERVICE_ADMIN_PASSWORD), logged in on the first call; expects
   * the login and the read to answer 200.
   */
  adminGet<T>(adminPassword: string, url: string): Promise<T>;
}

/** Starts `roles` in order on `config` (silent log); what started is closed again when a later role fails to start. */
export async function startRolesApp(config: Config, roles: readonly ServiceRole[], starters: RoleStarters): Promise<RolesApp> {
  const clients = new Clients(config);
  const log = createLogger('silent', 'test');
  const app = Fastify({ logger: false, bodyLimit: config.ingest.maxBodyBytes });
  const handles: RoleHandle[] = [];
  const close = async () => {
    await app.close();
    for (const h of handles.reverse()) await h.close?.();
    await clients.close();
  };
  try {
    for (const role of roles) {
      const handle = await (await starters[role]())({ config, log, clients });
      handles.push(handle);
      if (handle.routes) await app.register(handle.routes);
    }
    await app.ready();
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
  let bearer = '';
  return {
    app,
    close,
    postSacEvent: (key, e) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': e.event_id, 'content-type': 'application/json' },
        payload: Buffer.from(JSON.stringify(e), 'utf8'),
      }),
    async adminGet<T>(adminPassword: string, url: string): Promise<T> {
      if (!bearer) {
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'admin', password: adminPassword },
        });
        expect(r.statusCode).toBe(200);
        bearer = (r.json() as { access_token: string }).access_token;
      }
      const r = await app.inject({ method: 'GET', url: `/api/v1${url}`, headers: { authorization: `Bearer ${bearer}` } });
      expect([url, r.statusCode]).toEqual([url, 200]);
      return r.json() as T;
    },
  };
}
