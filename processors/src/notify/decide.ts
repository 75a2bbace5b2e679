// From a batch of events or problems.v1 messages to recorded decisions and queued deliveries. One
// Postgres statement pair per batch; the deliveries' job ids make a replay of the batch a no-op.
import sanitizeHtml from 'sanitize-html';
import {
  chatRouteOf,
  decide,
  recordAndEnqueue,
  type ChannelTargets,
  type DecisionInput,
  type DeliveryQueues,
  type NotifyPolicy,
} from '@watchpost/core/notify';
import { type TypeSettings } from '@watchpost/core/type-settings';
import type { Config, Pool } from '@watchpost/runtime';
import {
  REPORT_HTML_KEYS,
  REPORT_TEXT_KEYS,
  agentToldChat,
  detailText,
  eventKindOf,
  eventUserOf,
  sourceAddressOf,
  type EventEnvelope,
  type NotificationSubject,
  type ProblemMessage,
} from '@watchpost/schemas';

/** Agent report HTML kept for e-mail: at most this much, sanitised (spec: authentication rule 7). */
const MAX_REPORT_HTML = 256 * 1024;
/** Agent report text kept for chat and the e-mail text part (the chat provider cuts to its own limit). */
const MAX_REPORT_TEXT = 64 * 1024;

export function sanitizeReportHtml(html: string): string {
  return sanitizeHtml(html.slice(0, MAX_REPORT_HTML), {
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(['h1', 'h2']),
    allowedAttributes: { a: ['href', 'title'], td: ['colspan', 'rowspan', 'align'], th: ['colspan', 'rowspan', 'align'] },
    allowedSchemes: ['https', 'http', 'mailto'],
    disallowedTagsMode: 'discard',
  });
}

export interface DecideContext {
  pg: Pool;
  queues: DeliveryQueues;
  notify: Config['notify'];
  policy: NotifyPolicy;
  targets: ChannelTargets;
  typeSettings: TypeSettings;
}

function eventSubject(
  env: EventEnvelope,
  severity: NotificationSubject & { kind: 'event' } extends { severity: infer S } ? S : never,
) {
  const e = env.event;
  const cap = (v: string | null) => (v === null ? undefined : v.slice(0, 256));
  const subject: NotificationSubject = {
    kind: 'event',
    event_id: e.event_id,
    type: eventKindOf(e).type,
    severity,
    hostname: e.host.hostname,
    title: e.title,
    summary: e.summary,
    occurred_at: e.occurred_at,
    received_at: env.received_at,
  };
  const user = cap(eventUserOf(e.details));
  const ip = cap(sourceAddressOf(e.details));
  if (user) subject.actor_user = user;
  if (ip) subject.source_ip = ip;
  if (e.type.startsWith('report.daily.')) {
    // The agent's own report: rdp-login-monitor sends report_html and report_body (Login_Monitor.ps1 Send-DailyReport).
    const html = detailText(e.details, REPORT_HTML_KEYS);
    const text = detailText(e.details, REPORT_TEXT_KEYS);
    if (html) subject.html = sanitizeReportHtml(html);
    if (text) subject.report_text = text.slice(0, MAX_REPORT_TEXT);
  }
  return subject;
}

/** Decides a batch of events, records what matched and queues the deliveries. Returns the number queued. */
export async function notifyEvents(ctx: DecideContext, batch: EventEnvelope[]): Promise<number> {
  const items: DecisionInput[] = [];
  const subjects = new Map<string, NotificationSubject>();
  for (const env of batch) {
    const e = env.event;
    const kind = eventKindOf(e);
    const decision = decide(
      {
        kind: 'event',
        type: kind.type,
        severity: kind.severity,
        routing: chatRouteOf(e as Parameters<typeof chatRouteOf>[0]),
        agentToldChat: agentToldChat(e.details),
      },
      ctx.policy,
      ctx.targets,
      ctx.typeSettings,
    );
    if (decision.rule === null) continue;
    const key = `event:${e.event_id}`;
    items.push({ subjectKey: key, subjectKind: 'event', subjectId: e.event_id, decision });
    subjects.set(key, eventSubject(env, decision.severity ?? 'info'));
  }
  return recordAndEnqueue(ctx, items, subjects);
}

export async function notifyProblems(ctx: DecideContext, messages: ProblemMessage[]): Promise<number> {
  const items: DecisionInput[] = [];
  const subjects = new Map<string, NotificationSubject>();
  for (const m of messages) {
    const p = m.problem;
    const decision = decide({ kind: 'problem', type: p.type, severity: p.severity }, ctx.policy, ctx.targets, ctx.typeSettings);
    if (decision.rule === null) continue;
    const key = `problem:${m.message_id || `${p.id}:opened`}`;
    items.push({ subjectKey: key, subjectKind: 'problem', subjectId: String(p.id), decision });
    subjects.set(key, {
      kind: 'problem',
      problem_id: String(p.id),
      message_id: m.message_id,
      type: p.type,
      severity: p.severity,
      host: p.host,
      title: p.title,
      rule: p.rule,
      created_at: p.created_at,
    });
  }
  return recordAndEnqueue(ctx, items, subjects);
}
