// Schemas the remote-action route plugins share: the action record, the path parameters, `?wait` and the
// answers of a route that starts an action.
import { errorRef } from '../read-schemas.ts';

export const tags = ['actions'];
export const settingsTags = ['settings'];

export const str = { type: 'string' } as const;
export const nstr = { type: 'string', nullable: true } as const;
export const ndt = { type: 'string', format: 'date-time', nullable: true } as const;

export const actionSchema = {
  type: 'object',
  required: ['id', 'kind', 'actor', 'status', 'created_at'],
  properties: {
    id: { type: 'integer' },
    kind: {
      type: 'string',
      description: 'winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update',
    },
    host_id: { type: 'integer', nullable: true },
    hostname: nstr,
    actor: { type: 'string', description: 'user who started it' },
    address: { ...nstr, description: 'client address of the request' },
    params: { type: 'object', additionalProperties: true },
    status: {
      type: 'string',
      enum: ['queued', 'running', 'succeeded', 'failed'],
      description: 'through the agent: queued until its poll (every 60 s) fetches the command, then running',
    },
    transport: {
      type: 'string',
      enum: ['winrm', 'agent'],
      nullable: true,
      description:
        "how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds",
    },
    result: {
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description:
        'what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids',
    },
    error: { ...nstr, description: 'why it failed (WinRM/SSH error text, exit code and stderr tail, timeout)' },
    created_at: { type: 'string', format: 'date-time' },
    started_at: ndt,
    finished_at: ndt,
    duration_ms: { type: 'integer', nullable: true, description: 'from start (or creation when it never started) to finish' },
  },
} as const;

/** The `{id}` of a host (or of an action, a bundle): a positive integer. */
export { idParams as hostParams } from '../shared/schemas.ts';
export const eventParams = {
  type: 'object',
  required: ['event_id'],
  properties: { event_id: { type: 'string', format: 'uuid' } },
} as const;

export const waitQuery = (def: boolean) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: {
      wait: {
        type: 'boolean',
        default: def,
        description: `true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default ${def}.`,
      },
    },
  }) as const;

export const actionResponses = {
  200: { ...actionSchema, description: 'finished (wait=true)' },
  202: {
    ...actionSchema,
    description:
      "queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id}",
  },
  400: {
    description:
      'VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent)',
  },
  404: errorRef('NOT_FOUND: host or event'),
  504: { description: 'ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled' },
} as const;
