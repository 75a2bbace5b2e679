// The real API app (real Postgres, Redis and ClickHouse of the local stack, a database per test) listening
// on a free port and serving the built UI from web/dist, with helpers to seed events as the store and
// correlate processors write them and to publish live messages as the stream processor does.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventEnvelope } from '@watchpost/schemas';
import { countEvents } from '@watchpost/processors';
import { NO_TYPE_SETTINGS as NO_RULES } from '@watchpost/core';
import { correlate, createApiHarness, insertEnvelopes, type ApiHarness } from '@watchpost/testkit/api';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Builds web/dist when it is missing (npm test builds it before vitest runs). */
export function ensureWebBuilt(): void {
  if (existsSync(`${ROOT}web/dist/index.html`)) return;
  const r = spawnSync('npm', ['run', '-s', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build:web failed');
}

export interface WebServer {
  h: ApiHarness;
  url: string;
  /**
   * Stores events as the store processor does (and, with correlate, as the correlate processor does);
   * `agentKeyId`: the verified agent key ingest would have recorded.
   */
  store(envs: EventEnvelope[], opts?: { correlate?: boolean; agentKeyId?: number }): Promise<void>;
  /** The live `events` message the stream processor publishes for these events. */
  publishLive(envs: EventEnvelope[]): Promise<void>;
  close(): Promise<void>;
}

export async function startWebServer(name: string, env: Record<string, string> = {}): Promise<WebServer> {
  ensureWebBuilt();
  const h = await createApiHarness(name, { env });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as { port: number };
  return {
    h,
    url: `http://127.0.0.1:${port}`,
    async store(envs, opts = {}) {
      await insertEnvelopes(h.stores.ch, envs, { agentKeyId: opts.agentKeyId });
      if (opts.correlate) await correlate(h.stores.pg, envs);
    },
    async publishLive(envs) {
      const msg = countEvents(envs, NO_RULES, new Date());
      if (msg) await h.redis.publish(h.config.stream.channel, JSON.stringify(msg));
    },
    close: () => h.close(),
  };
}
