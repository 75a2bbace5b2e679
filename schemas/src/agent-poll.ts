// The agent poll (served by ingest, agent API key): an agent asks for its pending commands, its desired
// configuration and a pending self-update, and posts each command's result back. JSON schemas of the
// wire format, used by ingest for validation and by the API's OpenAPI document (agents' reference).
// Polls are served only to the host's bound agent: the agent key and agent_instance_id of its first events;
// a result is taken only from the agent its command was delivered to (issue 33).
import type { FromSchema } from 'json-schema-to-ts';

export const AGENT_POLL_PATH = '/api/v1/agent/poll';
/** `:id` is the id the poll gave: the command id (POST /agent/poll) or the delivery handle (GET /agent/commands). */
export const AGENT_COMMAND_RESULT_PATH = '/api/v1/agent/commands/:id/result';
export const AGENT_COMMAND_KIND_PATTERN = '^[a-z][a-z0-9_.-]{0,63}$';

const str = { type: 'string' } as const;

export const agentPollBodySchema = {
  type: 'object',
  required: ['hostname'],
  additionalProperties: false,
  properties: {
    hostname: { type: 'string', minLength: 1, maxLength: 255, description: 'host.hostname as in the events' },
    product: {
      type: 'string',
      enum: ['ssh-monitor', 'rdp-login-monitor'],
      description: "informational: the host's stored product decides",
    },
    product_version: {
      type: 'string',
      maxLength: 64,
      description:
        'the running agent version; it can only hold back an update offer (the stored version from the events decides), never cause one',
    },
    agent_instance_id: {
      type: 'string',
      maxLength: 128,
      description:
        "source.agent_instance_id as in the host's events; required when the host is bound to one (else the answer is empty)",
    },
  },
} as const;

export type AgentPollBody = FromSchema<typeof agentPollBodySchema>;

export const agentCommandSchema = {
  type: 'object',
  required: ['id', 'hostname', 'kind', 'params', 'status', 'created_at'],
  properties: {
    id: { type: 'integer' },
    hostname: str,
    kind: { type: 'string', description: 'what to do; an agent answers failed "unsupported" to a kind it does not know' },
    params: { type: 'object', additionalProperties: true },
    status: { type: 'string', enum: ['pending', 'delivered', 'succeeded', 'failed', 'expired'] },
    created_by: { type: 'string', nullable: true },
    created_at: { type: 'string', format: 'date-time' },
    delivered_at: { type: 'string', format: 'date-time', nullable: true },
    finished_at: { type: 'string', format: 'date-time', nullable: true },
    result: { type: 'object', nullable: true, additionalProperties: true },
    action_id: {
      type: 'integer',
      nullable: true,
      description:
        'the session action that queued it (qwinsta/logoff through the agent, GET /actions/{id}); null when an admin queued it',
    },
  },
} as const;

export const agentConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    all: { type: 'object', additionalProperties: true, description: 'for every agent' },
    linux: { type: 'object', additionalProperties: true, description: 'ssh-monitor agents (on top of all)' },
    windows: { type: 'object', additionalProperties: true, description: 'rdp-login-monitor agents (on top of all)' },
  },
} as const;

export const agentPollResponseSchema = {
  type: 'object',
  required: ['commands', 'config', 'update', 'poll_interval_seconds'],
  properties: {
    commands: {
      type: 'array',
      description:
        'Commands not yet answered, oldest first (at most 20), delivered to this agent (key and agent_instance_id): only its ' +
        'result is taken. A command is delivered again when no result arrived within 10 minutes: run each id once and post its result.',
      items: {
        type: 'object',
        required: ['id', 'kind', 'params', 'created_at'],
        properties: {
          id: { type: 'integer' },
          kind: str,
          params: { type: 'object', additionalProperties: true },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    config: { type: 'object', additionalProperties: true, description: 'desired configuration (settings: all, then the kind)' },
    update: {
      type: 'object',
      nullable: true,
      description:
        'A pending self-update: the agent runs its updater with git_url and branch and then sends an agent.update event. ' +
        'When it still reports an older version after SERVICE_AGENT_UPDATE_FALLBACK_MINUTES, the service updates it over SSH or WinRM.',
      required: ['version', 'git_url', 'branch'],
      properties: { version: str, git_url: str, branch: str },
    },
    poll_interval_seconds: { type: 'integer', description: 'when to poll next' },
  },
  description:
    "A poll that is not from the host's bound agent (another agent key or agent_instance_id), or for a host not known " +
    'yet, gets no commands, an empty config, no update and the default interval (the same answer, whether the host exists or not).',
} as const;

export const agentCommandResultBodySchema = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  description:
    'Two shapes: ours `{hostname, agent_instance_id?, status: succeeded|failed, exit_code?, output?}` (the path id is the ' +
    "command id from POST /agent/poll), and the Windows agent's `{status: completed|failed, stdout, stderr}` (no hostname: " +
    'the path id is the one GET /agent/commands handed out, which only the agent that fetched the command knows)',
  properties: {
    hostname: { type: 'string', minLength: 1, maxLength: 255, description: 'must be the host the command was for' },
    agent_instance_id: {
      type: 'string',
      maxLength: 128,
      description:
        'as in the poll that fetched the command (with hostname: required when that poll sent one; without: optional, and then must be it)',
    },
    status: { type: 'string', enum: ['succeeded', 'completed', 'failed'], description: 'completed is stored as succeeded' },
    exit_code: { type: 'integer' },
    output: { type: 'string', maxLength: 16384, description: 'what the command printed (truncated by the agent)' },
    stdout: { type: 'string', description: "the Windows agent's output (stored truncated to 16 KiB)" },
    stderr: { type: 'string', description: "the Windows agent's error output (stored truncated to 16 KiB)" },
  },
} as const;

export type AgentCommandResultBody = FromSchema<typeof agentCommandResultBodySchema>;

export const agentCommandResultResponseSchema = {
  type: 'object',
  required: ['id', 'status'],
  properties: {
    id: { type: 'integer', description: 'the id as posted' },
    status: { type: 'string', enum: ['succeeded', 'failed'] },
  },
} as const;

/**
 * The result path's id: a command id (our body) or a delivery handle of the Windows poll, below 2^53 (a
 * larger number would not reach the database exactly; refused as invalid, for every caller alike).
 */
export const agentCommandResultParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
} as const;

/** The Windows agent's poll (rdp-login-monitor Sac-Client.ps1): GET with ?agent_instance_id and a Bearer key. */
export const AGENT_COMMANDS_PATH = '/api/v1/agent/commands';

export const agentCommandsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    agent_instance_id: {
      type: 'string',
      maxLength: 128,
      description: "the agent's instance id (as source.agent_instance_id in its events); missing or unknown: no commands",
    },
  },
} as const;

export type AgentCommandsQuery = FromSchema<typeof agentCommandsQuerySchema>;

/** The agent reads these four under PowerShell strict mode: every one is always present. */
export const agentCommandsResponseSchema = {
  type: 'object',
  required: ['commands'],
  description:
    'Commands for the host bound to this key and agent_instance_id (oldest first, at most 20), marked delivered to this agent; ' +
    'any other caller gets `{commands: []}`',
  properties: {
    commands: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'type', 'params', 'run_as'],
        properties: {
          id: {
            type: 'integer',
            description:
              'Not the command id: a random handle of this delivery (2^52 to 2^53-1) that only this agent learns; its result ' +
              'goes to /agent/commands/{this id}/result, and to any other id it is refused as unknown',
          },
          type: { type: 'string', enum: ['qwinsta', 'logoff'] },
          params: {
            type: 'object',
            required: ['session_id'],
            properties: { session_id: { type: 'integer', nullable: true } },
          },
          run_as: {
            type: 'object',
            nullable: true,
            additionalProperties: true,
            description: 'always null: the agent runs as SYSTEM and needs no credentials, so none are ever sent',
          },
        },
      },
    },
  },
} as const;

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str, details: {} } } },
} as const;

const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** OpenAPI 3 path items of the agent poll (the API adds them to its document). */
export const agentPollOpenApiPaths = {
  [AGENT_POLL_PATH]: {
    post: {
      tags: ['agents'],
      operationId: 'agentPoll',
      summary: 'Agent poll: pending commands, desired configuration, pending self-update',
      description:
        "Served by the ingest role. Access: agent API key (X-API-Key or Authorization: Bearer). Answered only to the host's " +
        'bound agent (the key and agent_instance_id of its first events); any other poll gets an empty answer. ' +
        "Each poll costs one event of the key's and the host's (hostname and agent_instance_id) rate limits, the same buckets as " +
        'the events.',
      security: [{ agentKey: [] }],
      requestBody: { required: true, ...json(agentPollBodySchema) },
      responses: {
        200: { description: 'what the agent should do', ...json(agentPollResponseSchema) },
        400: { description: 'VALIDATION_FAILED', ...json(errorBody) },
        401: { description: 'UNAUTHORIZED: missing or invalid agent API key', ...json(errorBody) },
        429: {
          description: 'RATE_LIMITED: the key or the host is over its rate; Retry-After says when to poll again',
          ...json(errorBody),
        },
      },
    },
  },
  '/api/v1/agent/commands/{id}/result': {
    post: {
      tags: ['agents'],
      operationId: 'postAgentCommandResult',
      summary: "Agent posts a command's result",
      description:
        'Served by the ingest role. Access: agent API key. Accepted only from the agent the command was delivered to: the key, ' +
        "agent_instance_id and hostname of the poll that fetched it (with hostname, our body; without, the Windows agent's: " +
        'the key, and the id that poll handed out). A result from anyone else, for a command not delivered yet, or for an ' +
        "unknown id gets the same 404 and changes nothing, so ids cannot be probed. The fetcher's second result for the same " +
        "command is 409 and changes nothing. Costs one event of the key's rate limit and, with hostname, of that host's.",
      security: [{ agentKey: [] }],
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description:
            'with hostname in the body, the command id from POST /agent/poll; without, the id GET /agent/commands handed out',
          schema: agentCommandResultParamsSchema.properties.id,
        },
      ],
      requestBody: { required: true, ...json(agentCommandResultBodySchema) },
      responses: {
        200: {
          description: 'recorded (was 204 before issue 22: agents count only 200/201)',
          ...json(agentCommandResultResponseSchema),
        },
        400: { description: 'VALIDATION_FAILED', ...json(errorBody) },
        401: { description: 'UNAUTHORIZED', ...json(errorBody) },
        404: {
          description:
            'NOT_FOUND "no such command delivered to this agent": an unknown id, a command not delivered yet, or one ' +
            'delivered to another key, agent_instance_id or host',
          ...json(errorBody),
        },
        409: {
          description: 'CONFLICT: the command already has a result (only the agent it was delivered to is told)',
          ...json(errorBody),
        },
        429: { description: 'RATE_LIMITED: the key or the named host is over its rate (Retry-After)', ...json(errorBody) },
      },
    },
  },
  [AGENT_COMMANDS_PATH]: {
    get: {
      tags: ['agents'],
      operationId: 'agentCommands',
      summary: "The Windows agent's command poll (qwinsta, logoff)",
      description:
        'Served by the ingest role. Access: agent API key (Authorization: Bearer or X-API-Key). Answers the commands of the host ' +
        'bound to this key and agent_instance_id in the shape rdp-login-monitor reads; anyone else gets `{commands: []}`. ' +
        "Each poll costs one event of the key's rate limit and, from the bound agent, of its host's (the same buckets as its events).",
      security: [{ agentKey: [] }],
      parameters: [{ name: 'agent_instance_id', in: 'query', required: false, schema: { type: 'string', maxLength: 128 } }],
      responses: {
        200: { description: 'commands to run', ...json(agentCommandsResponseSchema) },
        401: { description: 'UNAUTHORIZED: missing or invalid agent API key', ...json(errorBody) },
        429: {
          description: 'RATE_LIMITED: the key or the host is over its rate (Retry-After); the agent takes it as no commands',
          ...json(errorBody),
        },
      },
    },
  },
} as const;
