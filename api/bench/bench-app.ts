// The API as the benches time it: the real app (inject, real auth) on the bench's own stores, and the
// login of the bench's monitor user. Agent keys and re-sends play no part in what the benches read.
import Fastify, { type FastifyInstance } from 'fastify';
import { authSettingsFrom, buildApiApp, type ApiDeps } from '@watchpost/api';

/** The bench user every bench creates (createUser, role monitor) and logs in as. */
export const BENCH_USER = { username: 'bench', password: 'bench-password-123' } as const;

/** The app on the given stores, ready for inject. */
export async function benchApiApp(stores: Omit<ApiDeps, 'auth' | 'verifyAgentKey' | 'resentOf'>): Promise<FastifyInstance> {
  const deps: ApiDeps = {
    ...stores,
    auth: authSettingsFrom(stores.config, new TextEncoder().encode('bench-secret-bench-secret-bench-secret-0123')),
    verifyAgentKey: async () => false,
    resentOf: async () => null,
  };
  const app = Fastify({ logger: false });
  await app.register(buildApiApp(deps));
  await app.ready();
  return app;
}

/** A fresh access token of the bench user (a long run outlasts one). */
export async function benchLogin(app: FastifyInstance): Promise<string> {
  const r = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: BENCH_USER });
  return r.json().access_token as string;
}
