// The agent poll, beside the event intake (agents talk to ingest): registered inside ingest's routes so
// it shares their cached agent-key check. POST /api/v1/agent/poll answers pending commands, the desired
// configuration and a pending self-update; GET /api/v1/agent/commands is the Windows agent's own poll
// (rdp-login-monitor, by instance id, issue 22); POST /api/v1/agent/commands/{id}/result records a
// command's outcome (our body or the Windows agent's). Wire schemas: schemas/src/agent-poll.ts (also in the API's OpenAPI document).
// Polls serve only the host's bound agent (its agent key and instance, core's isBoundAgent): the fleet's key
// sits on every host, and another agent must not take a host's commands (issue 21). A result is taken only
// from the agent its command was delivered to (issue 33): anyone else gets the answer of an unknown id.
// Polls and results pay into the same rate buckets as events (admission.ts): one token each.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { errorBody, type Config, type Logger } from '@watchpost/runtime';
import {
  AGENT_COMMAND_RESULT_PATH,
  AGENT_COMMANDS_PATH,
  AGENT_POLL_PATH,
  agentCommandResultBodySchema,
  agentCommandResultParamsSchema,
  agentCommandResultResponseSchema,
  agentCommandsQuerySchema,
  agentCommandsResponseSchema,
  agentPollBodySchema,
  agentPollResponseSchema,
  type AgentCommandResultBody,
  type AgentCommandsQuery,
  type AgentPollBody,
} from '@watchpost/schemas';
import {
  agentKindOf,
  checkGitUrl,
  commandResultRef,
  configFor,
  isBoundAgent,
  loadAgentConfig,
  loadAgentUpdateSettings,
  loadLatestVersions,
  recordAgentCommandResult,
  recordUpdateOffer,
  shouldOfferUpdate,
  takeAgentCommands,
  windowsAgentCommand,
  WINDOWS_AGENT_TYPES,
  type AgentIdentity,
} from '@watchpost/core/actions';
import { findHostBinding, findHostsByAgent } from '@watchpost/core/hosts';
import { AgentRateLimiter } from './admission.ts';

export const DEFAULT_POLL_INTERVAL_SECONDS = 60;

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

/**
 * The answer to a poll that is not from the host's bound agent, and for a host nobody knows: the same,
 * so another key learns nothing about the host.
 */
const NOTHING = { commands: [], config: {}, update: null, poll_interval_seconds: DEFAULT_POLL_INTERVAL_SECONDS };

/**
 * The one answer to a result that is not the fetcher's: an unknown id, a command not delivered yet, or
 * one delivered to another key, instance or host. The same status and body for all, so ids cannot be probed.
 */
const UNKNOWN_COMMAND = errorBody('NOT_FOUND', 'no such command delivered to this agent');

export function agentPollRoutes(deps: {
  pg: Pool;
  config: Config;
  log: Logger;
  /** The id of the agent key ingest's key check accepted for this request. */
  keyIdOf: (req: FastifyRequest) => number | undefined;
  /** The events' rate buckets, and how the events routes answer a refusal (429 with Retry-After). */
  rate: AgentRateLimiter;
  rateLimited: (reply: FastifyReply, waitSeconds: number, scope: 'key' | 'host', what: string) => FastifyReply;
}): FastifyPluginAsync {
  const { pg, config, log, keyIdOf, rate, rateLimited } = deps;
  /**
   * Charges one request to the key's ceiling and the bucket of the host it comes from, as an event of
   * that host (hostname and agent instance) would be: the refusal sent, or null when admitted.
   */
  const admitted = (reply: FastifyReply, keyId: number, hostname: string, agentInstanceId: string | undefined) => {
    const refused = rate.take(keyId, AgentRateLimiter.hostId(keyId, hostname, agentInstanceId), 1);
    return refused ? rateLimited(reply, refused.wait, refused.scope, 'events and agent requests') : null;
  };
  const identity = (req: FastifyRequest, agentInstanceId: string | undefined): AgentIdentity | null => {
    const keyId = keyIdOf(req);
    return keyId === undefined ? null : { keyId, agentInstanceId: agentInstanceId ?? null };
  };
  /** The one host bound to this key and instance (the Windows poll names no hostname), else null. */
  const windowsAgentHost = async (keyId: number, instance: string) => {
    const hosts = await findHostsByAgent(pg, keyId, instance);
    // Clones share the agent's folder and so its instance id: serving one host's logoff to all of them
    // would log users off the wrong machine.
    if (hosts.length > 1)
      log.warn({ key_id: keyId, agent_instance_id: instance }, 'several hosts are bound to this agent instance: nothing served');
    const host = hosts.length === 1 ? hosts[0]! : null;
    return host && isBoundAgent(host, { keyId, agentInstanceId: instance }) ? host : null;
  };
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

    app.post<{ Body: AgentPollBody }>(
      AGENT_POLL_PATH,
      {
        bodyLimit: 16 * 1024,
        config: { access: 'agent' },
        schema: { tags: ['agents'], body: agentPollBodySchema, response: { 200: agentPollResponseSchema } },
      },
      async (req, reply) => {
        const b = req.body;
        const who = identity(req, b.agent_instance_id);
        // Charged before anything is looked up; another instance names another bucket than the host's own.
        const refused = who && admitted(reply, who.keyId, b.hostname, b.agent_instance_id);
        if (refused) return refused;
        const host = await findHostBinding(pg, b.hostname);
        if (!host || !who || !isBoundAgent(host, who)) {
          if (host && who)
            log.info(
              { hostname: b.hostname, key_id: who.keyId, agent_instance_id: who.agentInstanceId },
              'agent poll from an agent the host is not bound to: nothing served',
            );
          return NOTHING;
        }
        const s = await settings();
        // The host's confirmed facts decide, not the poll's product/product_version.
        const kind = agentKindOf(host);
        const latest = s.latest[kind];
        const repo = s.updates[kind];
        let update: { version: string; git_url: string; branch: string } | null = null;
        if (
          latest?.version &&
          repo.gitUrl &&
          latest.git_url === repo.gitUrl &&
          // Never a URL refused now (a token in it, saved before that was refused): the offer goes to agents.
          checkGitUrl(repo.gitUrl, { allowFile: config.actions.agentUpdate.allowFileUrls }).ok &&
          shouldOfferUpdate(host.product_version, b.product_version, latest.version)
        ) {
          update = { version: latest.version, git_url: repo.gitUrl, branch: repo.branch };
          await recordUpdateOffer(pg, host.hostname, latest.version);
        }
        const commands = await takeAgentCommands(pg, host.hostname, who);
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

    // The Windows agent polls every 60 s with its instance id only (no hostname) and runs qwinsta/logoff.
    app.get<{ Querystring: AgentCommandsQuery }>(
      AGENT_COMMANDS_PATH,
      {
        config: { access: 'agent' },
        schema: { tags: ['agents'], querystring: agentCommandsQuerySchema, response: { 200: agentCommandsResponseSchema } },
      },
      async (req, reply) => {
        const instance = req.query.agent_instance_id;
        const keyId = keyIdOf(req);
        if (keyId === undefined) return { commands: [] };
        const host = instance ? await windowsAgentHost(keyId, instance) : null;
        if (!host || !instance) {
          // Names no host of its own: only the key's ceiling pays (as an event naming no host does).
          rate.chargeKey(keyId, 1);
          return { commands: [] };
        }
        // The host's bucket, as its events name it (its hostname and instance): a flood of polls waits.
        const refused = admitted(reply, keyId, host.hostname, instance);
        if (refused) return refused;
        // Only what the agent can run; other kinds stay pending (it would answer "unknown command type").
        const commands = await takeAgentCommands(
          pg,
          host.hostname,
          { keyId, agentInstanceId: instance },
          Object.keys(WINDOWS_AGENT_TYPES),
        );
        return { commands: commands.map(windowsAgentCommand) };
      },
    );

    app.post<{ Params: { id: number }; Body: AgentCommandResultBody }>(
      AGENT_COMMAND_RESULT_PATH,
      {
        // The Windows agent sends stdout/stderr untruncated and never retries: take a generous body.
        bodyLimit: 256 * 1024,
        config: { access: 'agent' },
        schema: {
          tags: ['agents'],
          params: agentCommandResultParamsSchema,
          body: agentCommandResultBodySchema,
          response: { 200: agentCommandResultResponseSchema },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const keyId = keyIdOf(req);
        const notFound = () => reply.code(404).send(UNKNOWN_COMMAND);
        if (keyId === undefined) return notFound();
        // Our body names its host: charged to it first, as a poll. The Windows agent's names none (only
        // the id its poll handed out): the key's ceiling pays, and its host's bucket never refuses it,
        // since the agent never re-sends a result and a 429 would lose the outcome of a logoff it ran.
        if (b.hostname !== undefined) {
          const refused = admitted(reply, keyId, b.hostname, b.agent_instance_id);
          if (refused) return refused;
        } else rate.chargeKey(keyId, 1);
        const status = b.status === 'failed' ? 'failed' : 'succeeded';
        const cut = (x: string | undefined) => (x === undefined ? undefined : x.slice(0, 16_384));
        const outcome = await recordAgentCommandResult(pg, keyId, commandResultRef(req.params.id, b), {
          status,
          exit_code: b.exit_code,
          output: b.output ?? cut(b.stdout),
          stderr: cut(b.stderr),
        });
        if (outcome === 'not_found') return notFound();
        // Only the fetcher gets here: its retry of a result changes nothing.
        if (outcome === 'conflict') return reply.code(409).send(errorBody('CONFLICT', 'the command already has a result'));
        // 200 with a body (not 204): the Windows agent counts only 200/201 as delivered.
        return reply.code(200).send({ id: req.params.id, status });
      },
    );
  };
}
