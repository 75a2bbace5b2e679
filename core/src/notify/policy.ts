// The notification policy (spec: Notification rules 1-10) as one pure function: what a trigger is,
// which rule applies, and for every channel whether it is chosen or skipped and why. The `notify` role
// uses it to decide, the API to explain (api/NOTIFICATIONS.md has the same table in words).
import { createHash } from 'node:crypto';
import { NOTIFY_CHANNELS, severityRank, type NotifyChannel, type NotifyRule, type Severity } from '@watchpost/schemas';
import { effectiveSeverity, isHidden, type TypeSettings } from '../type-settings.ts';
import { sliceWhole } from '../pg-safe.ts';
import { descriptorOf, type ChannelTargets, type RouteContext } from './channels/index.ts';

export interface NotifyPolicy {
  minSeverity: Severity;
  channels: NotifyChannel[];
}

export type Trigger =
  | {
      kind: 'event';
      type: string;
      severity: string;
      routing?: string;
      /** The agent already sent this event to its own chat (`details.telegram_via = "agent"`): chat is skipped. */
      agentToldChat?: boolean;
    }
  | { kind: 'problem'; severity: Severity; /** the problem's type: hidden types and severity overrides apply */ type?: string }
  | { kind: 'daily_report'; recipients: string[] }
  | { kind: 'login_lockout' };

export interface Route {
  channel: NotifyChannel;
  /** Destination id; '' when the channel was skipped as a whole. */
  destination: string;
  chosen: boolean;
  reason: string;
}

export interface Decision {
  /** null: nothing is sent. */
  rule: NotifyRule | null;
  reason: string;
  /** The event's severity after the per-type override (events only). */
  severity?: Severity;
  routes: Route[];
}

export const LOGIN_SUCCESS_TYPES = new Set(['ssh.login.success', 'rdp.login.success']);

/** Event types of rules 3 to 6 (sent whatever the minimum severity, hidden or not). */
export function isAlwaysSentType(type: string): boolean {
  return (
    LOGIN_SUCCESS_TYPES.has(type) ||
    type === 'agent.lifecycle' ||
    type.startsWith('rdg.connection.') ||
    type.startsWith('report.daily.')
  );
}

/** The chat-routing attribute of an `agent.lifecycle` event: `details.chat_route`, else the agent's product. */
export function chatRouteOf(event: { source?: { product?: string }; details?: Record<string, unknown> }): string {
  const r = event.details?.chat_route;
  return typeof r === 'string' && r.trim() !== '' ? sliceWhole(r.trim(), 128) : (event.source?.product ?? '');
}

/** How a rule treats each channel. */
interface Plan {
  rule: NotifyRule;
  reason: string;
  /** Channels used even when not in the policy's list (and whatever the minimum). */
  forced: NotifyChannel[];
  /** The policy's channels apply (false: only the forced ones). */
  policyChannels: boolean;
  /** Channels that never carry this kind of notification, with why. */
  never?: Partial<Record<NotifyChannel, string>>;
  /** agent.lifecycle: chat destinations are filtered by their routes. */
  routing?: string;
  /** After the per-type override (events and typed problems). */
  severity?: Severity;
}

function plan(
  trigger: Trigger,
  policy: NotifyPolicy,
  ts: TypeSettings,
): Plan | { rule: null; reason: string; severity?: Severity } {
  const atOrAbove = (s: Severity) => severityRank(s) >= severityRank(policy.minSeverity);
  switch (trigger.kind) {
    case 'login_lockout':
      return {
        rule: 'login_lockout',
        reason: 'login rate limit reached (authentication rule 5): chat',
        forced: ['chat'],
        policyChannels: false,
      };
    case 'daily_report':
      // The report goes by e-mail (to SERVICE_DAILY_REPORT_RECIPIENTS, else the channel's recipients)
      // and is summarised to chat whatever the policy's channels; those add webhook.
      return {
        rule: 'daily_report',
        reason: `daily report (rule 6): regardless of the minimum severity; e-mail${trigger.recipients.length > 0 ? ' to the report recipients' : ''} and a chat summary`,
        forced: ['email', 'chat'],
        policyChannels: true,
        never: { push: 'reports are not pushed to phones' },
      };
    case 'problem': {
      // Problems of a hidden type are not shown anywhere (rule 10): nobody is woken for them either.
      if (trigger.type !== undefined && isHidden(ts, trigger.type))
        return { rule: null, reason: `problem type ${trigger.type} is hidden (rule 10)` };
      const severity = trigger.type === undefined ? trigger.severity : effectiveSeverity(ts, trigger.type, trigger.severity);
      return atOrAbove(severity)
        ? {
            rule: 'new_problem',
            reason: `new problem, ${severity} >= minimum ${policy.minSeverity} (rule 2)`,
            forced: [],
            policyChannels: true,
            severity,
          }
        : { rule: null, reason: `new problem below the minimum severity (${severity} < ${policy.minSeverity})`, severity };
    }
  }
  const type = trigger.type;
  // Rule 10 hides a type from the lists; rules 3-6 say "always", so a hidden type still gets what
  // those rules always send (and only that: rules 1-2's extra policy channels are the noise hidden).
  const hidden = isHidden(ts, type);
  if (hidden && !isAlwaysSentType(type)) return { rule: null, reason: `event type ${type} is hidden (rule 10)` };
  const severity = effectiveSeverity(ts, type, trigger.severity);
  const above = atOrAbove(severity) && !hidden;
  const hiddenNote = hidden ? '; the type is hidden from lists (rule 10), which does not silence this rule' : '';
  const withSeverity = <T extends { reason: string }>(p: T) => ({ ...p, reason: p.reason + hiddenNote, severity });
  if (type === 'agent.lifecycle')
    return withSeverity({
      rule: 'agent_lifecycle' as const,
      reason: `agent.lifecycle is always notified (rule 4), chat routed by "${trigger.routing ?? ''}"`,
      forced: ['chat' as const],
      policyChannels: true,
      routing: trigger.routing ?? '',
    });
  if (type.startsWith('report.daily.'))
    return withSeverity({
      rule: 'agent_daily_report' as const,
      reason: 'agent daily report (rule 6): regardless of the minimum severity',
      forced: [],
      policyChannels: true,
      never: { push: 'reports are not pushed to phones' },
    });
  if (LOGIN_SUCCESS_TYPES.has(type))
    return withSeverity({
      rule: 'login_success' as const,
      reason: `${type} goes to chat whatever the minimum (rule 3)${above ? '; at or above the minimum: policy channels too' : ''}`,
      forced: ['chat' as const],
      policyChannels: above,
    });
  if (type.startsWith('rdg.connection.'))
    return withSeverity({
      rule: 'gateway_connection' as const,
      reason: `${type} goes to chat whatever the minimum (rule 5)${above ? '; at or above the minimum: policy channels too' : ''}`,
      forced: ['chat' as const],
      policyChannels: above,
    });
  if (above)
    return withSeverity({
      rule: 'min_severity' as const,
      reason: `severity ${severity} >= minimum ${policy.minSeverity} (rule 1)`,
      forced: [],
      policyChannels: true,
    });
  return { rule: null, reason: `severity ${severity} below the minimum ${policy.minSeverity} (rule 1)`, severity };
}

/** Why chat is skipped for an event the agent already sent to its own chat (shown by the explainer). */
export const AGENT_TOLD_CHAT_REASON = 'the agent already sent this to its own chat (details.telegram_via = "agent")';

/** Decides one trigger: pure, so it is table-tested and the API can explain any event with it. */
export function decide(trigger: Trigger, policy: NotifyPolicy, targets: ChannelTargets, ts: TypeSettings): Decision {
  let p = plan(trigger, policy, ts);
  // Other channels still follow the rule; only the chat message would be a duplicate.
  if (p.rule !== null && trigger.kind === 'event' && trigger.agentToldChat)
    p = {
      ...p,
      reason: `${p.reason}; chat skipped: ${AGENT_TOLD_CHAT_REASON}`,
      never: { ...p.never, chat: AGENT_TOLD_CHAT_REASON },
    };
  const severity = 'severity' in p ? p.severity : undefined;
  if (p.rule === null) {
    return {
      rule: null,
      reason: p.reason,
      ...(severity ? { severity } : {}),
      routes: NOTIFY_CHANNELS.map((channel) => ({ channel, destination: '', chosen: false, reason: p.reason })),
    };
  }
  const routes: Route[] = [];
  const skip = (channel: NotifyChannel, reason: string) => routes.push({ channel, destination: '', chosen: false, reason });
  for (const channel of NOTIFY_CHANNELS) {
    const forced = p.forced.includes(channel);
    const never = p.never?.[channel];
    if (never) {
      skip(channel, never);
      continue;
    }
    if (!forced && !(p.policyChannels && policy.channels.includes(channel))) {
      skip(channel, p.policyChannels ? 'not in the policy channels' : `rule ${p.rule} uses only ${p.forced.join(', ')}`);
      continue;
    }
    if (!targets[channel].enabled) {
      skip(channel, 'channel disabled in its configuration');
      continue;
    }
    const why = forced ? `rule ${p.rule}` : 'policy channel';
    const to = routesOf(channel, targets, {
      ...(p.routing !== undefined ? { routing: p.routing } : {}),
      recipients: trigger.kind === 'daily_report' ? trigger.recipients : [],
    });
    if (typeof to === 'string') skip(channel, to);
    else for (const d of to) routes.push({ channel, destination: d.destination, chosen: d.chosen, reason: d.reason ?? why });
  }
  return { rule: p.rule, reason: p.reason, ...(severity ? { severity } : {}), routes };
}

/** The channel's destinations for this trigger (its descriptor decides), or why it has none. */
function routesOf<C extends NotifyChannel>(channel: C, targets: ChannelTargets, ctx: RouteContext) {
  return descriptorOf(channel).routes(targets[channel], ctx);
}

/** The BullMQ job id of one delivery: the same trigger, channel and destination always give the same id. */
export function deliveryId(subjectKey: string, channel: NotifyChannel, destination: string): string {
  return createHash('sha256').update(`${subjectKey}\u0000${channel}\u0000${destination}`).digest('hex').slice(0, 32);
}
