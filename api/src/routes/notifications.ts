// Notifications (api/NOTIFICATIONS.md): the policy and each channel's configuration (admin; secrets
// masked, stored encrypted), a test-send per channel (queued for the `deliver` role, which alone talks
// to providers; the API waits for its answer), explainability of any event or problem (which rule,
// which channels chosen or skipped and why, each delivery's state and attempts), the deliveries list
// (dead ones included) and the service's daily reports.
import type { FastifyPluginAsync } from 'fastify';
import { QueueEvents } from 'bullmq';
import { createQueue, createRedis } from '@watchpost/runtime';
import {
  NOTIFICATIONS_QUEUE,
  NOTIFY_CHANNELS,
  SEVERITIES,
  TEST_SEND_JOB,
  type NotificationsQueueJob,
  type NotifyChannel,
  type Severity,
  type TestSendResult,
} from '@watchpost/schemas';
import {
  audit,
  channelConfigView,
  chatRouteOf,
  decide,
  listDeliveries,
  loadChannelTargets,
  loadDecisions,
  loadPolicy,
  loadSecretsKey,
  loadTypeSettings,
  saveChannelConfig,
  savePolicy,
  type Decision,
} from '@watchpost/core';
import { getEvent } from '../queries/events.ts';
import { ApiError, notFound } from '../errors.ts';

const tags = ['notifications'];
const str = { type: 'string' } as const;
const nstr = { type: 'string', nullable: true } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const channelEnum = { type: 'string', enum: [...NOTIFY_CHANNELS] } as const;

const policySchema = {
  type: 'object',
  required: ['min_severity', 'channels'],
  properties: {
    min_severity: { type: 'string', enum: [...SEVERITIES] },
    channels: { type: 'array', items: channelEnum, uniqueItems: true },
    source: { type: 'string', enum: ['database', 'environment'] },
  },
} as const;

const routeSchema = {
  type: 'object',
  required: ['channel', 'destination', 'chosen', 'reason'],
  properties: { channel: channelEnum, destination: str, chosen: { type: 'boolean' }, reason: str },
} as const;
const deliverySchema = {
  type: 'object',
  required: [
    'id',
    'subject_key',
    'rule',
    'channel',
    'destination',
    'state',
    'attempts',
    'last_error',
    'response',
    'created_at',
    'updated_at',
    'sent_at',
  ],
  properties: {
    id: { ...str, description: 'delivery id = BullMQ job id' },
    subject_key: str,
    rule: str,
    channel: channelEnum,
    destination: str,
    state: { type: 'string', enum: ['queued', 'sending', 'sent', 'failed'] },
    attempts: { type: 'integer' },
    last_error: nstr,
    response: { ...nstr, description: "the provider's answer" },
    created_at: dateTime,
    updated_at: dateTime,
    sent_at: { ...dateTime, nullable: true },
  },
} as const;
const decisionSchema = {
  type: 'object',
  required: ['subject_key', 'rule', 'reason', 'routes', 'recorded', 'deliveries'],
  properties: {
    subject_key: str,
    rule: { ...nstr, description: 'the notification rule that matched; null: nothing is sent' },
    reason: str,
    severity: { type: 'string', enum: [...SEVERITIES] },
    routes: { type: 'array', items: routeSchema },
    recorded: {
      type: 'boolean',
      description: 'true: what was decided when it arrived; false: computed now with the current policy',
    },
    created_at: dateTime,
    deliveries: { type: 'array', items: deliverySchema },
  },
} as const;

const destinationsInput = {
  type: 'array',
  maxItems: 50,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'kind'],
    properties: {
      id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$' },
      kind: { type: 'string', enum: ['telegram', 'slack'] },
      chat_id: {
        type: 'string',
        pattern: '^(-?[0-9]{1,20}|@[A-Za-z0-9_]{5,32})$',
        description: 'telegram: numeric chat id or @channel',
      },
      url: {
        type: 'string',
        format: 'uri',
        pattern: '^https?://',
        maxLength: 2048,
        description: 'slack-compatible hook URL (write-only)',
      },
      routes: {
        type: 'array',
        maxItems: 50,
        items: { type: 'string', minLength: 1, maxLength: 128 },
        description: 'agent.lifecycle routing values; empty: all',
      },
    },
  },
} as const;

const allowInput = {
  type: 'array',
  maxItems: 50,
  items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:/_-]+$' },
  description: 'addresses, CIDRs or host names the SSRF guard lets through (private and loopback ranges are refused otherwise)',
} as const;

const channelBodies: Record<NotifyChannel, object> = {
  chat: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      telegram_api_base: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 512 },
      telegram_token: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9:_-]+$', nullable: true },
      destinations: destinationsInput,
      allow: allowInput,
    },
  },
  webhook: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      url: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048, nullable: true },
      secret: {
        type: 'string',
        minLength: 16,
        maxLength: 256,
        nullable: true,
        description: 'HMAC-SHA256 signing secret (write-only)',
      },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 120000 },
      allow: allowInput,
    },
  },
  email: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      host: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_-]+$', nullable: true },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      security: { type: 'string', enum: ['starttls', 'tls', 'none'] },
      user: { type: 'string', minLength: 1, maxLength: 256, nullable: true },
      password: { type: 'string', minLength: 1, maxLength: 1024, nullable: true },
      from: { type: 'string', minLength: 3, maxLength: 320, pattern: '^[^\\r\\n]+$' },
      recipients: { type: 'array', maxItems: 100, items: { type: 'string', format: 'email', maxLength: 320 } },
      verify_tls: { type: 'boolean' },
    },
  },
  push: { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } },
};

function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return 'set';
  }
}

/** Secrets in an audit entry: only whether they were set, removed or left alone. */
function auditable(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (['telegram_token', 'secret', 'password'].includes(k)) out[k] = v === null ? 'removed' : 'set';
    // A webhook URL may carry a token in its query or user part: the log keeps where it points.
    else if (k === 'url' && typeof v === 'string') out[k] = withoutCredentials(v);
    else if (k === 'destinations' && Array.isArray(v))
      out[k] = (v as Record<string, unknown>[]).map(({ url, ...d }) => ({ ...d, ...(url ? { url: 'set' } : {}) }));
    else out[k] = v;
  }
  return out;
}

const notificationsRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config } = app.deps;
  const connection = createRedis(config.redisUrl, { forBullmq: true });
  const queue = createQueue<NotificationsQueueJob>(config, NOTIFICATIONS_QUEUE, connection);
  let events: QueueEvents | undefined;
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));
  app.addHook('onClose', async () => {
    await events?.close();
    await queue.close();
    await connection.quit().catch(() => {});
  });

  app.get(
    '/settings/notifications/policy',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getNotificationPolicy',
        tags,
        summary: 'The notification policy: minimum severity and channels',
        description:
          'Defaults come from NOTIFY_MIN_SEVERITY and NOTIFY_CHANNELS; a saved policy overrides them (source says which).',
        response: { 200: policySchema },
      },
    },
    async () => {
      const p = await loadPolicy(pg, config.notify);
      return { min_severity: p.minSeverity, channels: p.channels, source: p.source };
    },
  );

  app.put<{ Body: { min_severity: Severity; channels: NotifyChannel[] } }>(
    '/settings/notifications/policy',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'putNotificationPolicy',
        tags,
        summary: 'Set the notification policy',
        body: {
          ...policySchema,
          additionalProperties: false,
          properties: { min_severity: policySchema.properties.min_severity, channels: policySchema.properties.channels },
        },
        response: { 200: policySchema },
      },
    },
    async (req) => {
      await savePolicy(pg, { minSeverity: req.body.min_severity, channels: req.body.channels }, req.user!.username);
      await audit(pg, { actor: req.user!.username, address: req.ip, action: 'setting.notify_policy', details: req.body });
      const p = await loadPolicy(pg, config.notify);
      return { min_severity: p.minSeverity, channels: p.channels, source: p.source };
    },
  );

  for (const channel of NOTIFY_CHANNELS) {
    app.get(
      `/settings/notifications/channels/${channel}`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `getNotificationChannel_${channel}`,
          tags,
          summary: `The ${channel} channel configuration (secrets masked)`,
          response: {
            200: {
              type: 'object',
              additionalProperties: true,
              properties: { channel: channelEnum, enabled: { type: 'boolean' } },
            },
          },
        },
      },
      async () => channelConfigView(pg, config.notify, channel),
    );

    app.put<{ Body: Record<string, unknown> }>(
      `/settings/notifications/channels/${channel}`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `putNotificationChannel_${channel}`,
          tags,
          summary: `Update the ${channel} channel configuration`,
          description:
            'Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.',
          body: channelBodies[channel],
          response: { 200: { type: 'object', additionalProperties: true, properties: { channel: channelEnum } } },
        },
      },
      async (req) => {
        try {
          await saveChannelConfig(pg, await key(), config.notify, channel, req.body, req.user!.username);
        } catch (err) {
          throw new ApiError(400, 'BAD_REQUEST', (err as Error).message);
        }
        await audit(pg, {
          actor: req.user!.username,
          address: req.ip,
          action: `setting.notify_${channel}`,
          details: auditable(req.body),
        });
        return channelConfigView(pg, config.notify, channel);
      },
    );

    app.post(
      `/settings/notifications/channels/${channel}/test`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `testNotificationChannel_${channel}`,
          tags,
          summary: `Send a test message through the ${channel} channel`,
          description:
            "Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.",
          response: {
            200: {
              type: 'object',
              required: ['channel', 'results'],
              properties: {
                channel: channelEnum,
                results: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['destination', 'ok', 'response'],
                    properties: { destination: str, ok: { type: 'boolean' }, response: str },
                  },
                },
              },
            },
          },
        },
      },
      async (req) => {
        events ??= new QueueEvents(NOTIFICATIONS_QUEUE, {
          connection: createRedis(config.redisUrl, { forBullmq: true }),
          prefix: config.queuePrefix,
        });
        await events.waitUntilReady();
        const at = new Date().toISOString();
        const job = await queue.add(
          TEST_SEND_JOB,
          { kind: 'test_send', channel, requested_by: req.user!.username, at },
          { removeOnComplete: 100, removeOnFail: 100, attempts: 1 },
        );
        await audit(pg, { actor: req.user!.username, address: req.ip, action: `notify_test.${channel}`, details: {} });
        try {
          return (await job.waitUntilFinished(events, config.notify.testWaitMs)) as TestSendResult;
        } catch (err) {
          if (/timed out/i.test((err as Error).message))
            throw new ApiError(
              504,
              'TEST_TIMEOUT',
              `no deliver worker answered within ${config.notify.testWaitMs} ms (is a process running SERVICE_ROLE=deliver?)`,
            );
          throw err;
        }
      },
    );
  }

  app.get<{ Querystring: { event_id?: string; problem_id?: string } }>(
    '/notifications/explain',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'explainNotification',
        tags,
        summary: 'Why an event or a problem was (or was not) notified, and where each delivery stands',
        description:
          'Give event_id or problem_id. Recorded decisions (rule matched when it arrived) come with their deliveries; for an event that matched no rule nothing was recorded, so the decision is computed now with the current policy (recorded: false).',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { event_id: { type: 'string', format: 'uuid' }, problem_id: { type: 'string', format: 'uuid' } },
        },
        response: {
          200: {
            type: 'object',
            required: ['subject', 'decisions'],
            properties: {
              subject: { type: 'object', additionalProperties: true },
              decisions: { type: 'array', items: decisionSchema },
            },
          },
        },
      },
    },
    async (req) => {
      const result = await explain(req.query);
      return req.user!.role === 'admin' ? result : forMonitor(result);
    },
  );

  async function explain(query: { event_id?: string; problem_id?: string }) {
    const { event_id, problem_id } = query;
    if (!event_id === !problem_id) throw new ApiError(400, 'BAD_REQUEST', 'give exactly one of event_id and problem_id');
    const kind = event_id ? 'event' : 'problem';
    const id = (event_id ?? problem_id)!.toLowerCase();
    const recorded = await loadDecisions(pg, kind, id);
    const view = (d: (typeof recorded)[number]) => ({
      subject_key: d.subject_key,
      rule: d.rule,
      reason: d.reason,
      routes: d.routes,
      recorded: true,
      created_at: d.created_at.toISOString(),
      deliveries: d.deliveries.map((x) => ({
        ...x,
        created_at: x.created_at.toISOString(),
        updated_at: x.updated_at.toISOString(),
        sent_at: x.sent_at?.toISOString() ?? null,
      })),
    });
    const [policy, targets] = await Promise.all([loadPolicy(pg, config.notify), loadChannelTargets(pg, config.notify)]);
    const computed = (subjectKey: string, d: Decision) => ({ subject_key: subjectKey, ...d, recorded: false, deliveries: [] });
    if (kind === 'event') {
      const ts = await loadTypeSettings(pg);
      const e = await getEvent(clickhouse, pg, ts, id);
      if (!e && recorded.length === 0) throw notFound('event');
      const ev = (e?.event ?? {}) as {
        type?: string;
        severity?: string;
        source?: { product?: string };
        details?: Record<string, unknown>;
      };
      const subject = {
        kind,
        event_id: id,
        type: e?.type ?? null,
        severity: e?.severity ?? null,
        hostname: e?.hostname ?? null,
      };
      if (recorded.length > 0) return { subject, decisions: recorded.map(view) };
      const d = decide(
        { kind: 'event', type: ev.type ?? e!.type, severity: ev.severity ?? e!.severity, routing: chatRouteOf(ev) },
        policy,
        targets,
        ts,
      );
      return { subject, decisions: [computed(`event:${id}`, d)] };
    }
    const p = await pg.query<{ id: string; host: string; type: string; title: string; severity: Severity; status: string }>(
      'SELECT id, host, type, title, severity, status FROM problems WHERE id = $1',
      [id],
    );
    const row = p.rows[0];
    if (!row && recorded.length === 0) throw notFound('problem');
    const subject = { kind, problem_id: id, ...(row ?? {}) };
    if (recorded.length > 0) return { subject, decisions: recorded.map(view) };
    return {
      subject,
      decisions: [
        computed(
          `problem:${id}:opened`,
          decide({ kind: 'problem', type: row!.type, severity: row!.severity }, policy, targets, await loadTypeSettings(pg)),
        ),
      ],
    };
  }

  app.get<{ Querystring: { state?: string; channel?: string; limit?: number; before?: string } }>(
    '/notifications/deliveries',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listNotificationDeliveries',
        tags,
        summary: 'Deliveries, newest change first (state=failed: the dead ones)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: ['queued', 'sending', 'sent', 'failed'] },
            channel: channelEnum,
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
            before: { ...dateTime, description: 'page: deliveries changed before this time' },
          },
        },
        response: {
          200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: deliverySchema } } },
        },
      },
    },
    async (req) => {
      const rows = await listDeliveries(pg, {
        ...(req.query.state ? { state: req.query.state } : {}),
        ...(req.query.channel ? { channel: req.query.channel } : {}),
        limit: req.query.limit ?? 100,
        ...(req.query.before ? { beforeUpdatedAt: new Date(req.query.before) } : {}),
      });
      return {
        items: rows.map((x) => ({
          ...x,
          created_at: x.created_at.toISOString(),
          updated_at: x.updated_at.toISOString(),
          sent_at: x.sent_at?.toISOString() ?? null,
        })),
      };
    },
  );

  const reportSummary = {
    type: 'object',
    required: ['id', 'day', 'timezone', 'period_start', 'period_end', 'created_at', 'figures'],
    properties: {
      id: { type: 'integer' },
      day: { type: 'string', format: 'date' },
      timezone: str,
      period_start: dateTime,
      period_end: dateTime,
      created_at: dateTime,
      figures: { type: 'object', additionalProperties: true },
    },
  } as const;
  interface ReportRow {
    id: string;
    day: string;
    timezone: string;
    period_start: Date;
    period_end: Date;
    created_at: Date;
    figures: unknown;
    html?: string;
    text?: string;
  }
  const reportView = (r: ReportRow) => ({
    ...r,
    id: Number(r.id),
    period_start: r.period_start.toISOString(),
    period_end: r.period_end.toISOString(),
    created_at: r.created_at.toISOString(),
  });

  app.get<{ Querystring: { limit?: number } }>(
    '/reports/daily',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'listDailyReports',
        tags,
        summary: "The service's daily reports, newest first",
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'integer', minimum: 1, maximum: 365, default: 30 } },
        },
        response: {
          200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: reportSummary } } },
        },
      },
    },
    async (req) => {
      const r = await pg.query<ReportRow>(
        `SELECT id, to_char(day, 'YYYY-MM-DD') AS day, timezone, period_start, period_end, created_at, figures
           FROM daily_reports ORDER BY day DESC, id DESC LIMIT $1`,
        [req.query.limit ?? 30],
      );
      return { items: r.rows.map(reportView) };
    },
  );

  app.get<{ Params: { id: number } }>(
    '/reports/daily/:id',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'getDailyReport',
        tags,
        summary: 'One daily report with its HTML (built by the service, every value escaped) and text',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } },
        response: {
          200: {
            ...reportSummary,
            required: [...reportSummary.required, 'html', 'text'],
            properties: { ...reportSummary.properties, html: str, text: str },
          },
        },
      },
    },
    async (req) => {
      const r = await pg.query<ReportRow>(
        `SELECT id, to_char(day, 'YYYY-MM-DD') AS day, timezone, period_start, period_end, created_at, figures, html, text
           FROM daily_reports WHERE id = $1`,
        [req.params.id],
      );
      if (!r.rows[0]) throw notFound('report');
      return reportView(r.rows[0]);
    },
  );
};

/**
 * What a monitor sees of an explanation: the rule, each channel and its state, not e-mail addresses
 * or the providers' answers and errors (the deliveries list, with those, is for admins).
 */
function forMonitor<T extends { decisions: { routes: unknown[]; deliveries: unknown[] }[] }>(r: T): T {
  const mask = (channel: unknown, destination: unknown) =>
    channel === 'email' && typeof destination === 'string' ? destination.replace(/^[^@]*/, '…') : destination;
  return {
    ...r,
    decisions: r.decisions.map((d) => ({
      ...d,
      routes: (d.routes as { channel: string; destination: string }[]).map((x) => ({
        ...x,
        destination: mask(x.channel, x.destination),
      })),
      deliveries: (d.deliveries as { channel: string; destination: string }[]).map((x) => ({
        ...x,
        destination: mask(x.channel, x.destination),
        response: null,
        last_error: null,
      })),
    })),
  };
}

export default notificationsRoutes;
