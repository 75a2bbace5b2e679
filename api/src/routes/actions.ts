// Remote actions on managed hosts (api/ACTIONS.md). The API never connects to a host: it records an
// `actions` row, enqueues one job on the BullMQ `actions` queue (job id `action-<id>`) and either waits
// for the `actions` worker role to finish it (synchronous routes, bounded by SERVICE_ACTION_WAIT_MS)
// or answers 202 with the action to poll at GET /actions/{id}. A failed remote operation (WinRM, SSH)
// answers 400 ACTION_FAILED with its reason (spec: Errors). Settings for WinRM, SSH and agent updates
// live here too; credentials are encrypted at rest and never returned.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { createQueue, createRedis } from '@watchpost/runtime';
import {
  AGENT_COMMAND_KIND_PATTERN,
  agentCommandSchema,
  agentConfigSchema,
  ACTIONS_MAINTENANCE_JOBS,
  ACTIONS_QUEUE,
  type ActionJob,
  type ActionKind,
  type ActionTarget,
  type ActionsMaintenanceJob,
} from '@watchpost/schemas';
import {
  actionTarget,
  agentKindOf,
  audit,
  checkGitUrl,
  createAction,
  finishAction,
  getAction,
  listActions,
  loadAgentUpdateSettings,
  loadSecretsKey,
  verifyBundleSignature,
  loadLatestVersions,
  loadAgentConfig,
  saveAgentConfig,
  createAgentCommand,
  listAgentCommands,
  type AgentConfig,
  parseSessionId,
  saveAgentUpdateSettings,
  gatewayAddress,
  saveSshSettings,
  saveWinrmSettings,
  sshSettingsView,
  validBranch,
  validUserName,
  winrmSettingsView,
  type ActionRecord,
} from '@watchpost/core';
import { ApiError, notFound } from '../errors.ts';
import { getEvent } from '../queries/events.ts';
import { loadTypeSettings } from '../queries/type-settings.ts';
import { errorRef } from './read-schemas.ts';

type AnyJob = ActionJob | ActionsMaintenanceJob;

const tags = ['actions'];
/** A queued (not synchronous) action still not started after this long is failed as expired by the worker. */
export const QUEUED_ACTION_TTL_MS = 3_600_000;
const POLL_MS = 100;

const str = { type: 'string' } as const;
const nstr = { type: 'string', nullable: true } as const;
const ndt = { type: 'string', format: 'date-time', nullable: true } as const;

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
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    result: {
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description: 'what the action found or did (per kind, see api/ACTIONS.md)',
    },
    error: { ...nstr, description: 'why it failed (WinRM/SSH error text, exit code and stderr tail, timeout)' },
    created_at: { type: 'string', format: 'date-time' },
    started_at: ndt,
    finished_at: ndt,
    duration_ms: { type: 'integer', nullable: true, description: 'from start (or creation when it never started) to finish' },
  },
} as const;

const hostParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } } as const;
const eventParams = {
  type: 'object',
  required: ['event_id'],
  properties: { event_id: { type: 'string', format: 'uuid' } },
} as const;
const waitQuery = (def: boolean) =>
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
const actionResponses = {
  200: { ...actionSchema, description: 'finished (wait=true)' },
  202: { ...actionSchema, description: 'queued (wait=false): poll GET /api/v1/actions/{id}' },
  400: {
    description:
      'VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address)',
  },
  404: errorRef('NOT_FOUND: host or event'),
  504: { description: 'ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled' },
} as const;

interface HostRow {
  id: number;
  hostname: string;
  os_family: string;
  product: string;
  fqdn: string | null;
  ipv4: string | null;
  internal_address: string | null;
}
const HOST_COLUMNS = 'id, hostname, os_family, product, fqdn, ipv4, internal_address';

const notPossible = (message: string) => new ApiError(400, 'ACTION_NOT_POSSIBLE', message);

function targetOf(h: HostRow): ActionTarget {
  const t = actionTarget(h);
  if (!t) throw notPossible(`host ${h.hostname} has no usable address (internal address, FQDN, IPv4 or a DNS hostname)`);
  return t;
}

const isWindows = (h: HostRow) => agentKindOf(h) === 'windows';

/** Detail keys of gateway events naming the internal host the session goes to. */
export const GATEWAY_TARGET_KEYS = ['internal_address', 'target_address', 'internal_ip', 'target_host', 'resource'] as const;
const USER_KEYS = ['user', 'username', 'target_user', 'account'] as const;

function detail(event: Record<string, unknown>, keys: readonly string[]): string | null {
  const d = event.details;
  if (typeof d !== 'object' || d === null) return null;
  for (const k of keys) {
    const v = (d as Record<string, unknown>)[k];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

const actionsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config } = app.deps;
  const connection = createRedis(config.redisUrl, { forBullmq: true });
  const queue = createQueue<AnyJob>(config, ACTIONS_QUEUE, connection);
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));
  app.addHook('onClose', async () => {
    await queue.close();
    await connection.quit().catch(() => {});
  });

  async function hostById(id: number): Promise<HostRow> {
    const r = await pg.query<HostRow>(`SELECT ${HOST_COLUMNS} FROM hosts WHERE id = $1`, [id]);
    if (!r.rows[0]) throw notFound('host');
    return r.rows[0];
  }

  async function waitFor(id: number, deadline: number): Promise<ActionRecord | null> {
    for (;;) {
      const a = await getAction(pg, id);
      if (!a || a.status === 'succeeded' || a.status === 'failed') return a;
      if (Date.now() >= deadline) return a;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  type JobOf<K extends ActionKind> = Omit<Extract<ActionJob, { kind: K }>, 'action_id' | 'deadline' | 'target' | 'kind'>;

  /** Records, enqueues and (when `wait`) waits. The reply follows the outcome. */
  async function run<K extends ActionKind>(
    req: FastifyRequest,
    reply: { code(n: number): unknown },
    kind: K,
    host: HostRow | null,
    extra: JobOf<K>,
    wait: boolean,
  ): Promise<ActionRecord> {
    const target = host ? targetOf(host) : null;
    const action = await createAction(pg, {
      kind,
      hostId: target?.host_id ?? null,
      hostname: target?.hostname ?? null,
      actor: req.user!.username,
      address: req.ip,
      params: target ? { ...extra, address: target.address } : extra,
    });
    const deadline = Date.now() + (wait ? config.actions.waitMs : QUEUED_ACTION_TTL_MS);
    const job = {
      ...extra,
      kind,
      action_id: action.id,
      ...(target ? { target } : {}),
      deadline: new Date(deadline).toISOString(),
    } as unknown as ActionJob;
    try {
      await queue.add(kind, job, {
        jobId: `action-${action.id}`,
        attempts: 1,
        removeOnComplete: { age: 86_400, count: 1000 },
        removeOnFail: { age: 86_400, count: 1000 },
      });
    } catch (err) {
      await finishAction(pg, action.id, { ok: false, error: 'could not be queued (Redis unavailable)' });
      throw err;
    }
    if (!wait) {
      reply.code(202);
      return action;
    }
    const done = await waitFor(action.id, deadline);
    if (!done) throw notFound('action');
    if (done.status === 'failed')
      throw new ApiError(400, 'ACTION_FAILED', done.error ?? 'the action failed', { action_id: done.id });
    if (done.status !== 'succeeded')
      throw new ApiError(504, 'ACTION_TIMEOUT', `the action did not finish within ${config.actions.waitMs} ms`, {
        action_id: done.id,
      });
    return done;
  }

  // --- records -------------------------------------------------------------------------------------

  app.get<{ Querystring: { host_id?: number; kind?: string; before_id?: number; limit: number } }>(
    '/actions',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Remote actions, newest first',
        description: 'Keyset paging: pass the last id of a page as `before_id` for the next one.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            host_id: { type: 'integer', minimum: 1 },
            kind: { type: 'string', maxLength: 64 },
            before_id: { type: 'integer', minimum: 1 },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
          },
        },
        response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: actionSchema } } } },
      },
    },
    async (req) => ({
      items: await listActions(pg, {
        hostId: req.query.host_id,
        kind: req.query.kind,
        beforeId: req.query.before_id,
        limit: req.query.limit,
      }),
    }),
  );

  app.get<{ Params: { id: number } }>(
    '/actions/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'One remote action (poll it until status is succeeded or failed)',
        params: hostParams,
        response: { 200: actionSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req) => {
      const a = await getAction(pg, req.params.id);
      if (!a) throw notFound('action');
      return a;
    },
  );

  // --- host actions ----------------------------------------------------------------------------------

  app.post<{ Params: { id: number }; Querystring: { wait: boolean } }>(
    '/hosts/:id/actions/winrm-test',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'WinRM connection test',
        description:
          'Runs `hostname` over WinRM with the configured Windows administrator. result: {ok, endpoint, remote_hostname}.',
        params: hostParams,
        querystring: waitQuery(true),
        response: actionResponses,
      },
    },
    async (req, reply) => run(req, reply, 'winrm.test', await hostById(req.params.id), {}, req.query.wait),
  );

  app.post<{ Params: { id: number }; Querystring: { wait: boolean } }>(
    '/hosts/:id/actions/sessions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List the sessions on a Windows host (qwinsta over WinRM)',
        description: 'result: {endpoint, sessions: [{id, session_name, username, state, current}], raw}.',
        params: hostParams,
        querystring: waitQuery(true),
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const h = await hostById(req.params.id);
      if (!isWindows(h)) throw notPossible(`host ${h.hostname} is not a Windows host`);
      return run(req, reply, 'winrm.sessions', h, {}, req.query.wait);
    },
  );

  app.post<{ Params: { id: number; session_id: string }; Querystring: { wait: boolean } }>(
    '/hosts/:id/actions/sessions/:session_id/logoff',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Terminate one session on a Windows host (logoff over WinRM)',
        params: {
          type: 'object',
          required: ['id', 'session_id'],
          properties: { id: { type: 'integer', minimum: 1 }, session_id: { type: 'string', pattern: '^[0-9]{1,5}$' } },
        },
        querystring: waitQuery(true),
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const sessionId = parseSessionId(req.params.session_id);
      if (sessionId === null) throw new ApiError(400, 'VALIDATION_FAILED', 'session_id must be an integer from 0 to 65535');
      const h = await hostById(req.params.id);
      if (!isWindows(h)) throw notPossible(`host ${h.hostname} is not a Windows host`);
      return run(req, reply, 'winrm.logoff', h, { session_id: sessionId }, req.query.wait);
    },
  );

  app.post<{ Params: { id: number }; Querystring: { wait: boolean } }>(
    '/hosts/:id/actions/ssh-check',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'SSH administration check (sets and persists ssh_admin_ok)',
        description:
          'Connects with the configured SSH user and key and checks for root or passwordless sudo (`sudo -n true`). ' +
          'result: {ssh_admin_ok, via: root|sudo|null, host_key_sha256}. The host key is pinned at the first connection.',
        params: hostParams,
        querystring: waitQuery(false),
        response: actionResponses,
      },
    },
    async (req, reply) => run(req, reply, 'ssh.check', await hostById(req.params.id), {}, req.query.wait),
  );

  app.post<{ Params: { id: number }; Querystring: { wait: boolean } }>(
    '/hosts/:id/actions/agent-update',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update the agent now over SSH (Linux) or WinRM (Windows)',
        description:
          'Linux: installs the updater script when missing, runs it with the configured git URL and branch, reads the version back. ' +
          'Windows: the host downloads the zip bundle from the service over a short-lived signed URL, then the version is read back. ' +
          'result: {agent, version, previous_version?, installed_updater?, git_url, branch}.',
        params: hostParams,
        querystring: waitQuery(false),
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const h = await hostById(req.params.id);
      const agent = agentKindOf(h);
      const s = (await loadAgentUpdateSettings(pg, config.actions))[agent];
      const url = checkGitUrl(s.gitUrl, { allowFile: config.actions.agentUpdate.allowFileUrls });
      if (!url.ok) throw notPossible(`agent update for ${agent} is not configured: ${url.reason}`);
      const branch = validBranch(s.branch);
      if (!branch) throw notPossible(`agent update for ${agent}: "${s.branch}" is not a valid branch name`);
      return run(req, reply, 'agent.update', h, { agent, git_url: url.url, branch }, req.query.wait);
    },
  );

  app.get<{ Params: { id: number }; Querystring: { expires: number; sig: string } }>(
    '/agent-bundles/:id.zip',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Download a Windows agent bundle (signed, short-lived link)',
        description:
          'The link is made by the actions worker for one WinRM update and lives BUNDLE_URL_TTL_SECONDS (10 minutes): ' +
          '`expires` (unix seconds) and `sig` (HMAC-SHA256 with a key derived from the secrets key). 403 when either is wrong or expired.',
        params: hostParams,
        querystring: {
          type: 'object',
          required: ['expires', 'sig'],
          properties: { expires: { type: 'integer', minimum: 0 }, sig: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
        },
        produces: ['application/zip'],
        response: {
          200: { description: 'the zip (repository at its branch plus VERSION)', type: 'string', format: 'binary' },
          403: { description: 'FORBIDDEN: invalid or expired link' },
          404: errorRef('NOT_FOUND'),
        },
      },
    },
    async (req, reply) => {
      if (!verifyBundleSignature(await key(), req.params.id, req.query.expires, req.query.sig))
        throw new ApiError(403, 'FORBIDDEN', 'invalid or expired download link');
      const r = await pg.query<{ zip: Buffer; sha256: string; version: string }>(
        'SELECT zip, sha256, version FROM agent_bundles WHERE id = $1',
        [req.params.id],
      );
      const b = r.rows[0];
      if (!b) throw notFound('bundle');
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="watchpost-agent-${b.version}.zip"`)
        .header('x-content-sha256', b.sha256)
        .header('cache-control', 'no-store')
        .send(b.zip);
    },
  );

  // --- event actions ---------------------------------------------------------------------------------

  async function eventOf(id: string) {
    const e = await getEvent(clickhouse, pg, await loadTypeSettings(pg), id);
    if (!e) throw notFound('event');
    return e;
  }

  app.post<{ Params: { event_id: string }; Querystring: { wait: boolean } }>(
    '/events/:event_id/actions/terminate-session',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Terminate the session of an rdp.login.success event',
        description:
          "The user is the event's actor user (details.user, username, target_user or account); the host is the event's host. " +
          'Every session of that user on the host is logged off. result: {user, logged_off: [{id, session_name, state}]}.',
        params: eventParams,
        querystring: waitQuery(true),
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const e = await eventOf(req.params.event_id);
      if (e.type !== 'rdp.login.success')
        throw notPossible(`only rdp.login.success events have a session to terminate, not ${e.type}`);
      const user = validUserName(detail(e.event, USER_KEYS) ?? e.actor_user);
      if (!user) throw notPossible('the event names no valid user');
      const r = await pg.query<HostRow>(`SELECT ${HOST_COLUMNS} FROM hosts WHERE hostname = $1`, [e.hostname]);
      if (!r.rows[0]) throw notPossible(`host ${e.hostname} is not registered`);
      return run(req, reply, 'winrm.logoff_user', r.rows[0], { user }, req.query.wait);
    },
  );

  /** The registered Windows host behind a gateway event's internal address. */
  async function gatewayTarget(eventId: string): Promise<{ host: HostRow; user: string | null; internal: string }> {
    const e = await eventOf(eventId);
    if (!e.type.startsWith('rdg.')) throw notPossible(`${e.type} is not a remote-gateway event`);
    const internal = detail(e.event, GATEWAY_TARGET_KEYS);
    if (!internal) throw notPossible(`the event names no internal address (details.${GATEWAY_TARGET_KEYS.join(', details.')})`);
    const addr = gatewayAddress(internal);
    const r = await pg.query<HostRow>(
      `SELECT ${HOST_COLUMNS} FROM hosts
        WHERE (internal_address = $1 OR ipv4 = $1 OR lower(fqdn) = lower($1) OR lower(hostname) = lower($1))
          AND (product = 'rdp-login-monitor' OR lower(os_family) LIKE 'win%')
        ORDER BY (internal_address = $1) DESC NULLS LAST, last_seen DESC LIMIT 1`,
      [addr],
    );
    if (!r.rows[0]) throw notPossible(`no registered Windows host has the internal address ${addr}`);
    return { host: r.rows[0], user: validUserName(detail(e.event, USER_KEYS) ?? e.actor_user), internal: addr };
  }

  app.post<{ Params: { event_id: string } }>(
    '/events/:event_id/actions/gateway-qwinsta',
    {
      config: { access: 'user' },
      schema: {
        tags: [...tags, 'mobile'],
        summary: 'qwinsta on the Windows host behind a gateway event (synchronous)',
        description:
          "Resolves the event's internal address (details.internal_address, target_address, internal_ip, target_host or resource; " +
          'a :port is ignored) to a registered Windows host and runs qwinsta there over WinRM. Admins and monitors (spec rule 3). ' +
          'result: {endpoint, sessions, raw}.',
        params: eventParams,
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const t = await gatewayTarget(req.params.event_id);
      return run(req, reply, 'winrm.sessions', t.host, {}, true);
    },
  );

  app.post<{ Params: { event_id: string }; Body: { session_id?: number } | undefined }>(
    '/events/:event_id/actions/gateway-logoff',
    {
      config: { access: 'user' },
      schema: {
        tags: [...tags, 'mobile'],
        summary: 'logoff on the Windows host behind a gateway event (synchronous)',
        description:
          'With `session_id`: logs off that session (for a monitor, only a session of the event user: another answers 400). ' +
          'Without: logs off every session of the event user (details.user, ...). Admins and monitors (spec rule 3).',
        params: eventParams,
        body: {
          type: 'object',
          nullable: true,
          additionalProperties: false,
          properties: { session_id: { type: 'integer', minimum: 0, maximum: 65535 } },
        },
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const t = await gatewayTarget(req.params.event_id);
      const sid = req.body?.session_id;
      if (sid !== undefined) {
        if (req.user!.role === 'admin') return run(req, reply, 'winrm.logoff', t.host, { session_id: sid }, true);
        // A monitor may end the event user's session, not any session on the host (the console's included).
        if (!t.user) throw notPossible('the event names no valid user, so a monitor cannot log off a session');
        return run(req, reply, 'winrm.logoff', t.host, { session_id: sid, owner: t.user }, true);
      }
      if (!t.user) throw notPossible('the event names no valid user; pass session_id');
      return run(req, reply, 'winrm.logoff_user', t.host, { user: t.user }, true);
    },
  );

  // --- settings --------------------------------------------------------------------------------------

  const settingsTags = ['settings'];
  const winrmView = {
    type: 'object',
    required: ['username', 'password_set', 'transport', 'port', 'auth', 'verify_tls', 'allow_unencrypted'],
    properties: {
      username: { type: 'string', description: 'DOMAIN\\user or user' },
      password_set: { type: 'boolean', description: 'the password is never returned' },
      password_source: { type: 'string', enum: ['database', 'environment', null], nullable: true },
      transport: { type: 'string', enum: ['http', 'https'] },
      port: { type: 'integer' },
      auth: { type: 'string', enum: ['basic', 'ntlm'], description: 'HTTP authentication: basic or ntlm (NTLMv2)' },
      verify_tls: { type: 'boolean', description: 'check the HTTPS certificate of the host' },
      allow_unencrypted: {
        type: 'boolean',
        description:
          'let WinRM run over plain HTTP (credentials readable on the path and by whatever answers at the host address; labs only). Off: HTTP is refused with 400.',
      },
    },
  } as const;

  app.get(
    '/settings/winrm',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Windows administrator for WinRM (database over environment)',
        response: { 200: winrmView },
      },
    },
    async () => winrmSettingsView(pg, config.actions),
  );

  app.put<{
    Body: {
      username?: string;
      password?: string | null;
      transport?: 'http' | 'https';
      port?: number;
      auth?: 'basic' | 'ntlm';
      verify_tls?: boolean;
      allow_unencrypted?: boolean;
    };
  }>(
    '/settings/winrm',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the Windows administrator for WinRM',
        description:
          'Fields left out keep their value; `password: null` removes the stored password. Stored encrypted (AES-256-GCM).',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            username: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\x00-\\x1f"/\\[\\]:;|=,+*?<>]+$' },
            password: { type: 'string', minLength: 1, maxLength: 1024, nullable: true },
            transport: { type: 'string', enum: ['http', 'https'] },
            port: { type: 'integer', minimum: 1, maximum: 65535 },
            auth: { type: 'string', enum: ['basic', 'ntlm'], description: 'HTTP authentication: basic or ntlm (NTLMv2)' },
            verify_tls: { type: 'boolean' },
            allow_unencrypted: { type: 'boolean' },
          },
        },
        response: { 200: winrmView },
      },
    },
    async (req) => {
      await saveWinrmSettings(pg, await key(), req.body, req.user!.username);
      const { password, ...rest } = req.body;
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'setting.winrm',
        details: { ...rest, password: password === undefined ? 'unchanged' : password === null ? 'removed' : 'set' },
      });
      return winrmSettingsView(pg, config.actions);
    },
  );

  const sshView = {
    type: 'object',
    required: ['username', 'private_key_set', 'port'],
    properties: {
      username: str,
      private_key_set: { type: 'boolean', description: 'the key is never returned' },
      private_key_source: { type: 'string', enum: ['database', 'environment', null], nullable: true },
      port: { type: 'integer' },
    },
  } as const;

  app.get(
    '/settings/ssh',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'SSH user and key for Linux hosts (database over environment)',
        response: { 200: sshView },
      },
    },
    async () => sshSettingsView(pg, config.actions),
  );

  app.put<{ Body: { username?: string; private_key?: string | null; port?: number } }>(
    '/settings/ssh',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the SSH user and private key',
        description: 'private_key: an unencrypted OpenSSH or PEM private key; stored encrypted (AES-256-GCM); `null` removes it.',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            username: { type: 'string', pattern: '^[a-z_][a-z0-9_.-]{0,31}$' },
            private_key: {
              type: 'string',
              minLength: 1,
              maxLength: 16384,
              nullable: true,
              pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----',
            },
            port: { type: 'integer', minimum: 1, maximum: 65535 },
          },
        },
        response: { 200: sshView },
      },
    },
    async (req) => {
      await saveSshSettings(pg, await key(), req.body, req.user!.username);
      const { private_key, ...rest } = req.body;
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'setting.ssh',
        details: { ...rest, private_key: private_key === undefined ? 'unchanged' : private_key === null ? 'removed' : 'set' },
      });
      return sshSettingsView(pg, config.actions);
    },
  );

  const agentRepo = {
    type: 'object',
    required: ['git_url', 'branch'],
    properties: {
      git_url: str,
      branch: str,
      latest_version: { ...nstr, description: 'newest release tag of the repository (semver order), as last read' },
      checked_at: { ...ndt, description: 'when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)' },
      error: { ...nstr, description: 'why the last read failed' },
    },
  } as const;
  const agentUpdateView = {
    type: 'object',
    required: ['linux', 'windows'],
    properties: { linux: agentRepo, windows: agentRepo },
  } as const;
  const agentRepoInput = {
    type: 'object',
    additionalProperties: false,
    properties: { git_url: { type: 'string', maxLength: 2048 }, branch: { type: 'string', maxLength: 128 } },
  } as const;
  const viewAgentUpdate = async () => {
    const s = await loadAgentUpdateSettings(pg, config.actions);
    const latest = await loadLatestVersions(pg);
    const one = (k: 'linux' | 'windows') => {
      const l = latest[k]?.git_url === s[k].gitUrl ? latest[k] : undefined;
      return {
        git_url: s[k].gitUrl,
        branch: s[k].branch,
        latest_version: l?.version ?? null,
        checked_at: l?.checked_at ?? null,
        error: l?.error ?? null,
      };
    };
    return { linux: one('linux'), windows: one('windows') };
  };

  app.get(
    '/settings/agent-updates',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Agent-update repositories per agent kind (linux = ssh-monitor, windows = rdp-login-monitor)',
        response: { 200: agentUpdateView },
      },
    },
    viewAgentUpdate,
  );

  app.put<{ Body: { linux?: { git_url?: string; branch?: string }; windows?: { git_url?: string; branch?: string } } }>(
    '/settings/agent-updates',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Save the agent-update repositories',
        description:
          'git_url: https:// or ssh:// (file:// only with SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS); branch: a git branch name.',
        body: { type: 'object', additionalProperties: false, properties: { linux: agentRepoInput, windows: agentRepoInput } },
        response: { 200: agentUpdateView },
      },
    },
    async (req) => {
      for (const k of ['linux', 'windows'] as const) {
        const v = req.body[k];
        if (!v) continue;
        if (v.git_url !== undefined && v.git_url !== '') {
          const u = checkGitUrl(v.git_url, { allowFile: config.actions.agentUpdate.allowFileUrls });
          if (!u.ok) throw new ApiError(400, 'VALIDATION_FAILED', `${k}.git_url: ${u.reason}`);
          v.git_url = u.url;
        }
        if (v.branch !== undefined && !validBranch(v.branch))
          throw new ApiError(400, 'VALIDATION_FAILED', `${k}.branch: not a valid branch name`);
      }
      await saveAgentUpdateSettings(pg, req.body, req.user!.username);
      await audit(pg, { actor: req.user!.username, address: req.ip, action: 'setting.agent_updates', details: req.body });
      // Read the new repositories' tags now rather than at the next refresh.
      await queue.add(
        ACTIONS_MAINTENANCE_JOBS.versionsRefresh,
        { kind: ACTIONS_MAINTENANCE_JOBS.versionsRefresh },
        { removeOnComplete: 100, removeOnFail: 100, attempts: 1 },
      );
      return viewAgentUpdate();
    },
  );

  app.post<{ Body: { git_url: string; branch: string } }>(
    '/settings/agent-updates/git-test',
    {
      config: { access: 'admin' },
      schema: {
        tags: settingsTags,
        summary: 'Test a git repository for agent updates (unsaved form values welcome)',
        description:
          'The actions worker runs `git ls-remote` against the URL (allow-listed schemes only) and checks the branch. ' +
          "result: {ok, branch_found, tags, latest_version}. A failure is 400 ACTION_FAILED with git's message. Nothing is saved.",
        body: {
          type: 'object',
          required: ['git_url', 'branch'],
          additionalProperties: false,
          properties: { git_url: { type: 'string', maxLength: 2048 }, branch: { type: 'string', maxLength: 128 } },
        },
        response: actionResponses,
      },
    },
    async (req, reply) => {
      const u = checkGitUrl(req.body.git_url, { allowFile: config.actions.agentUpdate.allowFileUrls });
      if (!u.ok) throw new ApiError(400, 'VALIDATION_FAILED', `git_url: ${u.reason}`);
      const branch = validBranch(req.body.branch);
      if (!branch) throw new ApiError(400, 'VALIDATION_FAILED', 'branch: not a valid branch name');
      return run(req, reply, 'git.test', null, { git_url: u.url, branch }, true);
    },
  );

  // --- agent configuration and commands (delivered by the agent poll in ingest) -----------------------

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

  app.put<{ Body: AgentConfig }>(
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

  app.post<{ Params: { id: number }; Body: { kind: string; params?: Record<string, unknown> } }>(
    '/hosts/:id/agent-commands',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Queue a command for the host's agent (delivered by its next poll)",
        params: hostParams,
        body: {
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
        },
        response: { 201: agentCommandSchema, 404: errorRef('NOT_FOUND') },
      },
    },
    async (req, reply) => {
      const h = await hostById(req.params.id);
      const params = req.body.params ?? {};
      if (JSON.stringify(params).length > 4096) throw new ApiError(400, 'VALIDATION_FAILED', 'params may take at most 4 KiB');
      const c = await createAgentCommand(pg, {
        hostname: h.hostname,
        kind: req.body.kind,
        params,
        createdBy: req.user!.username,
      });
      await audit(pg, {
        actor: req.user!.username,
        address: req.ip,
        action: 'agent_command.create',
        target: h.hostname,
        details: { id: c.id, kind: c.kind },
      });
      reply.code(201);
      return c;
    },
  );

  app.get<{ Params: { id: number } }>(
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
    async (req) => ({ items: await listAgentCommands(pg, (await hostById(req.params.id)).hostname) }),
  );
};

export default actionsRoutes;
