// What the agent poll (ingest) delivers to agents: the desired agent configuration and the commands
// queued for one host's agent, with their results.
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { AGENT_COMMAND_KIND_PATTERN, agentCommandSchema, agentConfigSchema } from '@watchpost/schemas';
import { audit } from '@watchpost/core/audit';
import { createAgentCommand, listAgentCommands, loadAgentConfig, saveAgentConfig } from '@watchpost/core/actions';
import { findHost } from '@watchpost/core/hosts';
import { ApiError, notFound } from '../../errors.ts';
import { errorRef } from '../read-schemas.ts';
import { hostParams, settingsTags, tags } from './schemas.ts';

const commandInput = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    kind: {
      type: 'string',
      pattern: AGENT_COMMAND_KIND_PATTERN,
      description: 'e.g. send_inventory, send_test_event, restart',
    },
    params: { type: 'object', additionalProperties: true, description: 'at most 4 KiB as JSON' },
  },
} as const;

const agentsRoutes: FastifyPluginAsync = async (app) => {
  const { pg } = app.deps;

  async function hostnameOf(id: number): Promise<string> {
    const h = await findHost(pg, { id }, ['hostname']);
    if (!h) throw notFound('host');
    return h.hostname;
  }

  app.get(
    '/settings/agent-config',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Desired agent configuration returned by the agent poll',
        description: '`all` applies to every agent; `linux` and `windows` add to it for that kind (their keys win).',
        response: { 200: agentConfigSchema },
      },
    },
    async () => loadAgentConfig(pg),
  );

  app.put<{ Body: FromSchema<typeof agentConfigSchema> }>(
    '/settings/agent-config',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the desired agent configuration (at most 16 KiB)',
        body: agentConfigSchema,
        response: { 200: agentConfigSchema },
      },
    },
    async (req) => {
      if (JSON.stringify(req.body).length > 16_384)
        throw new ApiError(400, 'VALIDATION_FAILED', 'the configuration may take at most 16 KiB');
      await saveAgentConfig(pg, req.body, req.user!.username);
      await audit(pg, { actor: req.user!.username, address: req.ip, action: 'setting.agent_config', details: { ...req.body } });
      return loadAgentConfig(pg);
    },
  );

  app.post<{ Params: FromSchema<typeof hostParams>; Body: FromSchema<typeof commandInput> }>(
    '/hosts/:id/agent-commands',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Queue a command for the host's agent (delivered by its next poll)",
        params: hostParams,
        body: commandInput,
        response: { 201: agentCommandSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req, reply) => {
      const hostname = await hostnameOf(req.params.id);
      const params = req.body.params ?? {};
      if (JSON.stringify(params).length > 4096) throw new ApiError(400, 'VALIDATION_FAILED', 'params may take at most 4 KiB');
      const c = await createAgentCommand(pg, { hostname, kind: req.body.kind, params, createdBy: req.user!.username });
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'agent_command.create',
        target: hostname,
        details: { id: c.id, kind: c.kind },
      });
      reply.code(201);
      return c;
    },
  );

  app.get<{ Params: FromSchema<typeof hostParams> }>(
    '/hosts/:id/agent-commands',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Commands queued for the host's agent and their results, newest first (last 100)",
        params: hostParams,
        response: {
          200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: agentCommandSchema } } },
          404: errorRef('NOT_FOUND'),
        },
      },
    },
    async (req) => ({ items: await listAgentCommands(pg, await hostnameOf(req.params.id)) }),
  );
};

export default agentsRoutes;
