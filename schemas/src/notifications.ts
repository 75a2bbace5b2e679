// Notification contracts (api/NOTIFICATIONS.md): the channels of the policy (each described once in
// core/src/notify/channels/), the delivery job that the `notify` role and the scheduler put on a
// channel's BullMQ queue, and the webhook body.
import type { Severity } from './event-v1.ts';
import { QUEUES, type QueueName } from './queues.ts';

export const NOTIFY_CHANNELS = ['chat', 'webhook', 'email', 'push'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/**
 * One BullMQ queue per channel, so each channel has its own rate limit and a slow provider never holds
 * up another. It carries the deliveries and an admin's test-send (job `test_send`, queues.ts).
 */
export const DELIVERY_QUEUES: Record<NotifyChannel, QueueName> = {
  chat: QUEUES.notifyChat,
  webhook: QUEUES.notifyWebhook,
  email: QUEUES.notifyEmail,
  push: QUEUES.notifyPush,
};

/** Why a notification exists: each names the spec's notification rule it applies. */
export const NOTIFY_RULES = [
  'min_severity', // rules 1, 2: event severity at or above the policy minimum
  'new_problem', // rule 2: each new problem, at or above the minimum
  'login_success', // rule 3: chat, whatever the minimum
  'agent_lifecycle', // rule 4: always, chat by routing attribute
  'gateway_connection', // rule 5: chat, whatever the minimum
  'agent_daily_report', // rule 6: agent-sent report.daily.*
  'daily_report', // rule 6: the service's own daily report
  'login_lockout', // authentication rule 5: chat
  'test', // an admin's test-send
] as const;
export type NotifyRule = (typeof NOTIFY_RULES)[number];

/** What a notification is about; the rendering (per channel) happens in the worker. */
export type NotificationSubject =
  | {
      kind: 'event';
      event_id: string;
      type: string;
      severity: Severity;
      hostname: string;
      title: string;
      summary: string;
      occurred_at: string;
      received_at: string;
      actor_user?: string;
      source_ip?: string;
      details?: Record<string, unknown>;
      /** Agent daily reports: their HTML, sanitised by the notify role before it is queued. */
      html?: string;
      /** Agent daily reports: their plain-text body (chat, e-mail text part). */
      report_text?: string;
    }
  | {
      kind: 'problem';
      problem_id: string;
      message_id: string;
      type: string;
      severity: Severity;
      host: string;
      title: string;
      rule: string;
      created_at: string;
    }
  | { kind: 'daily_report'; report_id: number; day: string; title: string; text: string; html: string; summary: string }
  | {
      kind: 'login_lockout';
      username: string;
      address: string;
      at: string;
      /** The alert cap (NOTIFY_LOCKOUT_ALERTS_MAX) is reached with this alert: further lockouts are not sent until then (ISO 8601). */
      alerts_paused_until?: string;
      /** Lockouts not alerted (over the cap) since the previous alert, and since when (ISO 8601). */
      not_alerted?: number;
      not_alerted_since?: string;
    }
  | { kind: 'test'; requested_by: string; at: string };

/** One job per (trigger, channel, destination). Its id is `delivery_id`, so a replay never queues it twice. */
export interface DeliveryJob {
  delivery_id: string;
  rule: NotifyRule;
  channel: NotifyChannel;
  /** Destination id within the channel's configuration (a chat destination's id, an e-mail address...). */
  destination: string;
  subject: NotificationSubject;
  /** push: subscriptions already sent to by an earlier attempt */
  push_sent?: number[];
}

/** The webhook body (version 1): see api/NOTIFICATIONS.md. */
export interface WebhookBodyV1 {
  version: 1;
  delivery_id: string;
  rule: NotifyRule;
  sent_at: string;
  kind: NotificationSubject['kind'];
  subject: NotificationSubject;
}
