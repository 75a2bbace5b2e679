import type { FastifyInstance, FastifyReply } from 'fastify';
import { VERSION } from './version.ts';

export type HealthCheck = () => Promise<boolean>;

const healthResponse = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded'] },
    service: { type: 'string' },
    version: { type: 'string' },
    uptime_s: { type: 'number' },
    checks: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['status', 'version'],
} as const;

const readyResponse = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    service: { type: 'string' },
    version: { type: 'string' },
    checks: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['status', 'version'],
} as const;

/**
 * GET /health and /healthz (liveness: always 200 while the process serves; `status` says whether
 * dependencies answer) and GET /ready and /readyz (readiness: 503 while a readiness check fails, e.g. a
 * consumer that has lag and makes no progress; a load balancer or orchestrator routes by it).
 */
export function registerHealth(
  app: FastifyInstance,
  service: string,
  checks: Record<string, HealthCheck> = {},
  ready: Record<string, () => boolean> = {},
): void {
  const handler = async () => {
    const results: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const ok = await Promise.race([
          check().catch(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
        ]);
        results[name] = ok ? 'ok' : 'down';
      }),
    );
    const status = Object.values(results).every((r) => r === 'ok') ? 'ok' : 'degraded';
    return { status, service, version: VERSION, uptime_s: Math.round(process.uptime()), checks: results };
  };
  for (const path of ['/health', '/healthz']) {
    app.get(path, { schema: { tags: ['health'], response: { 200: healthResponse } } }, handler);
  }
  const readyHandler = async (_req: unknown, reply: FastifyReply) => {
    const results: Record<string, string> = {};
    for (const [name, check] of Object.entries(ready)) {
      let ok: boolean;
      try {
        ok = check();
      } catch {
        ok = false;
      }
      results[name] = ok ? 'ok' : 'not_ready';
    }
    const isReady = Object.values(results).every((r) => r === 'ok');
    if (!isReady) void reply.code(503).header('retry-after', '5');
    return { status: isReady ? 'ready' : 'not_ready', service, version: VERSION, checks: results };
  };
  for (const path of ['/ready', '/readyz']) {
    app.get(path, { schema: { tags: ['health'], response: { 200: readyResponse, 503: readyResponse } } }, readyHandler);
  }
}
