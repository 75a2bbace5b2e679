import type { FastifyInstance } from 'fastify';
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

/** GET /health and /healthz: always 200 while the process serves; `status` says whether dependencies answer. */
export function registerHealth(app: FastifyInstance, service: string, checks: Record<string, HealthCheck> = {}): void {
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
}
