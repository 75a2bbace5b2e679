// GET /system/status: the service's own health for the sidebar (any logged-in user): ingest rate,
// consumer lag per group, queue depths, and each store's reachability with its latency. Answered from
// a cache of CACHE_MS (one probe run at a time per API process), so many open browsers do not hammer
// Kafka; a store that is down or hangs is marked `down` within the probes' timeout, never a 500.
import type { FastifyPluginAsync } from 'fastify';
import { createSystemProbes, PROBE_TIMEOUT_MS, type SystemStatus } from '../queries/system-status.ts';

/** How long one probe run is served to every caller. */
export const SYSTEM_STATUS_CACHE_MS = 5000;

const state = { type: 'string', enum: ['up', 'down'] } as const;
const count = { type: 'integer', minimum: 0 } as const;
const statusSchema = {
  type: 'object',
  required: ['generated_at', 'ingest', 'consumers', 'queues', 'stores'],
  properties: {
    generated_at: { type: 'string', format: 'date-time', description: 'when the probes ran (cached for a few seconds)' },
    ingest: {
      type: 'object',
      required: ['status', 'events_last_minute', 'events_per_second'],
      properties: {
        status: state,
        events_last_minute: { ...count, nullable: true, description: 'events stored with received_at in the last full minute' },
        events_per_second: { type: 'number', nullable: true },
      },
    },
    consumers: {
      type: 'object',
      required: ['status', 'groups'],
      properties: {
        status: state,
        groups: {
          type: 'array',
          items: {
            type: 'object',
            required: ['group', 'lag', 'members', 'state'],
            properties: {
              group: { type: 'string', description: 'store, correlate, stream or notify' },
              lag: { ...count, nullable: true, description: 'messages not yet committed by the group; null: unknown' },
              members: { ...count, nullable: true, description: 'consumers in the group now' },
              state: { type: 'string', nullable: true, description: "Kafka's group state (Stable, Empty, ...)" },
            },
          },
        },
      },
    },
    queues: {
      type: 'object',
      required: ['status', 'items'],
      properties: {
        status: state,
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['queue', 'waiting', 'active', 'delayed', 'failed'],
            properties: { queue: { type: 'string' }, waiting: count, active: count, delayed: count, failed: count },
          },
        },
      },
    },
    stores: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'status', 'latency_ms', 'error'],
        properties: {
          name: { type: 'string', enum: ['postgres', 'redis', 'clickhouse', 'kafka'] },
          status: state,
          latency_ms: { type: 'number', nullable: true },
          error: { type: 'string', nullable: true, enum: ['timed out', 'unreachable', null] },
        },
      },
    },
  },
} as const;

const systemRoutes: FastifyPluginAsync = async (app) => {
  const probes = createSystemProbes(app.deps);
  app.addHook('onClose', async () => probes.close());
  let cached: { at: number; value: Promise<SystemStatus> } | null = null;

  app.get(
    '/system/status',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getSystemStatus',
        tags: ['system'],
        summary: 'The service’s own health: ingest rate, consumer lag, queue depths, stores',
        description:
          `Cached for ${SYSTEM_STATUS_CACHE_MS / 1000} s. Each probe is bounded (${PROBE_TIMEOUT_MS} ms): a store that is down ` +
          'or hangs is reported `down` and the parts that need it carry nulls; the route itself answers 200.',
        response: { 200: statusSchema },
      },
    },
    async () => {
      const now = Date.now();
      if (!cached || now - cached.at >= SYSTEM_STATUS_CACHE_MS) {
        const value = probes.status();
        cached = { at: now, value };
        // A failed run (it should not: every probe catches) is not served again.
        value.catch(() => (cached = null));
      }
      return cached.value;
    },
  );
};

export default systemRoutes;
