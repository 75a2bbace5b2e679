// Why an event or a problem was (or was not) notified, and where each delivery stands (any user;
// monitors see destinations masked as each channel's descriptor says, and no provider answers).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { NOTIFY_CHANNELS, agentToldChat, type Severity } from '@watchpost/schemas';
import {
  chatRouteOf,
  decide,
  descriptorOf,
  loadChannelTargets,
  loadDecisions,
  loadPolicy,
  type Decision,
} from '@watchpost/core/notify';
import { loadTypeSettings } from '@watchpost/core/type-settings';
import { getEvent } from '../../queries/events.ts';
import { ApiError, notFound } from '../../errors.ts';
import { decisionSchema, deliveryView, tags } from './schemas.ts';

const explainQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { event_id: { type: 'string', format: 'uuid' }, problem_id: { type: 'string', format: 'uuid' } },
} as const;
type ExplainQuery = FromSchema<typeof explainQuery>;

const explainRoutes: FastifyPluginAsync = async (app) => {
  const { pg, clickhouse, config, resentOf } = app.deps;

  app.get<{ Querystring: ExplainQuery }>(
    '/notifications/explain',
    {
      config: { access: 'user' },
      schema: {
        operationId: 'explainNotification',
        tags,
        summary: 'Why an event or a problem was (or was not) notified, and where each delivery stands',
        description:
          'Give event_id or problem_id. Recorded decisions (rule matched when it arrived) come with their deliveries; for an event that matched no rule nothing was recorded, so the decision is computed now with the current policy (recorded: false). An event_id ingest answered 409 as the re-send of another stored event (same host, type, time on the host and content) is explained by subject.resent_of and subject.reason, with no decisions.',
        querystring: explainQuery,
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

  async function explain(query: ExplainQuery) {
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
      deliveries: d.deliveries.map(deliveryView),
    });
    const [policy, targets] = await Promise.all([loadPolicy(pg, config.notify), loadChannelTargets(pg, config.notify)]);
    const computed = (subjectKey: string, d: Decision) => ({ subject_key: subjectKey, ...d, recorded: false, deliveries: [] });
    if (kind === 'event') {
      const ts = await loadTypeSettings(pg);
      const e = await getEvent(clickhouse, pg, ts, id);
      if (!e && recorded.length === 0) {
        // Not stored: ingest may have taken it for a re-send of a stored event (ingest/src/resend.ts).
        const of = await resentOf(id);
        if (!of) throw notFound('event');
        const reason = `not stored: a re-send of event ${of} (same host, type, time on the host and content under a new event_id); that event was stored, counted and notified once`;
        return { subject: { kind, event_id: id, resent_of: of, reason }, decisions: [] };
      }
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
        {
          kind: 'event',
          type: ev.type ?? e!.type,
          severity: ev.severity ?? e!.severity,
          routing: chatRouteOf(ev),
          agentToldChat: agentToldChat(ev.details),
        },
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
};

/**
 * What a monitor sees of an explanation: the rule, each channel and its state, not e-mail addresses
 * or the providers' answers and errors (the deliveries list, with those, is for admins).
 */
function forMonitor<T extends { decisions: { routes: unknown[]; deliveries: unknown[] }[] }>(r: T): T {
  const mask = (channel: unknown, destination: unknown) => {
    const m = typeof channel === 'string' && typeof destination === 'string' ? maskerOf(channel) : undefined;
    return m ? m(destination as string) : destination;
  };
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

/** Each channel's masking of a destination for monitors (its descriptor's; a channel without one shows it as is). */
const maskers = new Map(
  NOTIFY_CHANNELS.map((c) => {
    const d = descriptorOf(c);
    return [c as string, (x: string) => d.maskDestination?.(x) ?? x];
  }),
);
const maskerOf = (channel: string) => maskers.get(channel);

export default explainRoutes;
