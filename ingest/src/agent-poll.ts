// The agent poll, beside the event intake (agents talk to ingest): registered inside ingest's routes so
// it shares their cached agent-key check. POST /api/v1/agent/poll answers pending commands, the desired
// configuration and a pending self-update; POST /api/v1/agent/commands/{id}/result records a command's
// outcome. Wire schemas: schemas/src/agent-poll.ts (also in the API's OpenAPI document).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Pool } from 'pg';
import { errorBody, type Config, type Logger } from '@watchpost/runtime';
import {
  AGENT_COMMAND_RESULT_PATH,
  AGENT_POLL_PATH,
  agentCommandResultBodySchema,
  agentPollBodySchema,
  agentPollResponseSchema,
} from '@watchpost/schemas';
import {
  agentKindOf,
  configFor,
  findHost,
  isOutdated,
  loadAgentConfig,
  loadAgentUpdateSettings,
  loadLatestVersions,
  recordAgentCommandResult,
  recordUpdateOffer,
  takeAgentCommands,
} from '@watchpost/core';

export const DEFAULT_POLL_INTERVAL_SECONDS = 60;

interface PollBody {
  hostname: string;
  product?: 'ssh-monitor' | 'rdp-login-monitor';
  product_version?: string;
  agent_instance_id?: string;
}
interface ResultBody {
  hostname: string;
  status: 'succeeded' | 'failed';
  exit_code?: number;
  output?: string;
}

function cached<T>(ttlMs: number, load: () => Promise<T>): () => Promise<T> {
  let at = 0;
  let value: Promise<T> | undefined;
  return () => {
    if (!value || Date.now() - at >= ttlMs) {
      at = Date.now();
      value = load().catch((err: unknown) => {
        value = undefined;
        throw err;
      });
    }
    return value;
  };
}

export function agentPollRoutes(deps: { pg: Pool; config: Config; log: Logger }): FastifyPluginAsync {
  const { pg, config, log } = deps;
  // Settings (configuration, update repositories, latest versions) are cached like agent keys.
  const settings = cached(config.ingest.keyCacheSeconds * 1000, async () => ({
    agentConfig: await loadAgentConfig(pg),
    updates: await loadAgentUpdateSettings(pg, config.actions),
    latest: await loadLatestVersions(pg),
  }));

  return async (app: FastifyInstance) => {
    // JSON here (the event intake above takes any body as text).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
    app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown[] }, _req, reply) => {
      if (err.validation) return reply.code(400).send(errorBody('VALIDATION_FAILED', err.message));
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
        return reply.code(err.statusCode).send(errorBody('BAD_REQUEST', err.message));
      log.error({ err }, 'agent poll failed');
      return reply.code(500).send(errorBody('INTERNAL', 'internal error'));
    });

    app.post<{ Body: PollBody }>(
      AGENT_POLL_PATH,
      {
        bodyLimit: 16 * 1024,
        config: { access: 'agent' },
        schema: { tags: ['agents'], body: agentPollBodySchema, response: { 200: agentPollResponseSchema } },
      },
      async (req) => {
        const b = req.body;
        const s = await settings();
        const known = await findHost(pg, { hostname: b.hostname }, ['product', 'os_family', 'product_version']);
        const kind = agentKindOf({ product: b.product ?? known?.product ?? '', os_family: known?.os_family });
        const running = b.product_version ?? known?.product_version ?? null;
        const latest = s.latest[kind];
        const repo = s.updates[kind];
        let update: { version: string; git_url: string; branch: string } | null = null;
        if (latest?.version && repo.gitUrl && latest.git_url === repo.gitUrl && isOutdated(running, latest.version)) {
          update = { version: latest.version, git_url: repo.gitUrl, branch: repo.branch };
          await recordUpdateOffer(pg, b.hostname, latest.version);
        }
        const commands = await takeAgentCommands(pg, b.hostname);
        const desired = configFor(s.agentConfig, kind);
        const interval = desired.poll_interval_seconds;
        return {
          commands: commands.map((c) => ({ id: c.id, kind: c.kind, params: c.params, created_at: c.created_at })),
          config: desired,
          update,
          poll_interval_seconds:
            typeof interval === 'number' && Number.isInteger(interval) && interval >= 10 && interval <= 86_400
              ? interval
              : DEFAULT_POLL_INTERVAL_SECONDS,
        };
      },
    );

    app.post<{ Params: { id: number }; Body: ResultBody }>(
      AGENT_COMMAND_RESULT_PATH,
      {
        bodyLimit: 64 * 1024,
        config: { access: 'agent' },
        schema: {
          tags: ['agents'],
          params: { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } },
          body: agentCommandResultBodySchema,
        },
      },
      async (req, reply) => {
        const outcome = await recordAgentCommandResult(pg, req.params.id, req.body.hostname, req.body);
        if (outcome === 'not_found') return reply.code(404).send(errorBody('NOT_FOUND', 'no such command for this hostname'));
        if (outcome === 'conflict') return reply.code(409).send(errorBody('CONFLICT', 'the command already has a result'));
        return reply.code(204).send();
      },
    );
  };
}
