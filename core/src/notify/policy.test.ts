// Notification rules 1-10 (spec), one row per case: the rule chosen and the channels it reaches.
import { describe, expect, it } from 'vitest';
import type { NotifyChannel, Severity } from '@watchpost/schemas';
import { AGENT_TOLD_CHAT_REASON, chatRouteOf, decide, deliveryId, type NotifyPolicy, type Trigger } from './policy.ts';
import type { ChannelTargets } from './channels/index.ts';
import type { TypeSettings } from '../type-settings.ts';

const targets: ChannelTargets = {
  chat: {
    enabled: true,
    destinations: [
      { id: 'ops', routes: [] },
      { id: 'linux-team', routes: ['ssh-monitor'] },
    ],
  },
  webhook: { enabled: true, destinations: [{ id: 'default' }] },
  email: { enabled: true, recipients: ['oncall@example.org'] },
  push: { enabled: true, devices: 2 },
};
const policy: NotifyPolicy = { minSeverity: 'high', channels: ['webhook', 'email', 'push'] };
const none: TypeSettings = { overrides: new Map(), hidden: new Set() };
const ev = (type: string, severity: Severity, routing?: string): Trigger => ({
  kind: 'event',
  type,
  severity,
  ...(routing ? { routing } : {}),
});

/** chosen routes as "channel:destination" */
const chosen = (t: Trigger, p = policy, tg = targets, ts = none) =>
  decide(t, p, tg, ts)
    .routes.filter((r) => r.chosen)
    .map((r) => `${r.channel}:${r.destination}`);

describe('notification policy', () => {
  it.each<[string, Trigger, string | null, string[], NotifyPolicy?]>([
    // rule 1/2: at or above the minimum -> the policy channels (chat is not one of them here)
    [
      'high event',
      ev('ssh.bruteforce.mass', 'high'),
      'min_severity',
      ['webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    [
      'critical event',
      ev('privilege.sudo.command', 'critical'),
      'min_severity',
      ['webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    ['warning event below the minimum', ev('ssh.login.failed', 'warning'), null, []],
    ['info event below the minimum', ev('agent.test', 'info'), null, []],
    // rule 2: new problems, respecting the minimum
    [
      'new high problem',
      { kind: 'problem', severity: 'high' },
      'new_problem',
      ['webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    ['new warning problem', { kind: 'problem', severity: 'warning' }, null, []],
    // rule 3: login success -> chat whatever the minimum (and the policy channels when at/above it)
    ['ssh login success (info)', ev('ssh.login.success', 'info'), 'login_success', ['chat:ops', 'chat:linux-team']],
    ['rdp login success (info)', ev('rdp.login.success', 'info'), 'login_success', ['chat:ops', 'chat:linux-team']],
    [
      'rdp login success (critical)',
      ev('rdp.login.success', 'critical'),
      'login_success',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    // rule 4: agent.lifecycle always, chat by routing attribute
    [
      'lifecycle routed to linux',
      ev('agent.lifecycle', 'info', 'ssh-monitor'),
      'agent_lifecycle',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    [
      'lifecycle routed to windows',
      ev('agent.lifecycle', 'info', 'rdp-login-monitor'),
      'agent_lifecycle',
      ['chat:ops', 'webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    // rule 5: gateway connections -> chat whatever the minimum
    ['rdg connection success', ev('rdg.connection.success', 'info'), 'gateway_connection', ['chat:ops', 'chat:linux-team']],
    ['rdg other code', ev('rdg.connection.disconnected', 'warning'), 'gateway_connection', ['chat:ops', 'chat:linux-team']],
    // rule 6: daily reports regardless of the minimum, never pushed
    ['agent daily report', ev('report.daily.ssh', 'info'), 'agent_daily_report', ['webhook:default', 'email:oncall@example.org']],
    [
      'service daily report to its own recipients, summarised to chat',
      { kind: 'daily_report', recipients: ['boss@example.org'] },
      'daily_report',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:boss@example.org'],
    ],
    [
      'service daily report: its own recipients get e-mail when the policy has only chat',
      { kind: 'daily_report', recipients: ['boss@example.org'] },
      'daily_report',
      ['chat:ops', 'chat:linux-team', 'email:boss@example.org'],
      { minSeverity: 'critical', channels: ['chat'] },
    ],
    [
      "service daily report, no report recipients: the e-mail channel's",
      { kind: 'daily_report', recipients: [] },
      'daily_report',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:oncall@example.org'],
    ],
    [
      'service daily report when the policy has only webhook: still e-mail and chat',
      { kind: 'daily_report', recipients: [] },
      'daily_report',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:oncall@example.org'],
      { minSeverity: 'high', channels: ['webhook'] },
    ],
    // authentication rule 5: the login lockout alert -> chat only
    ['login lockout', { kind: 'login_lockout' }, 'login_lockout', ['chat:ops', 'chat:linux-team']],
  ])('%s', (_name, trigger, rule, routes, p = policy) => {
    expect(decide(trigger, p, targets, none).rule).toBe(rule);
    expect(chosen(trigger, p)).toEqual(routes);
  });

  it('rules 7-9: the policy channels decide which of webhook, e-mail, push receive', () => {
    const only = (channels: NotifyChannel[]) => chosen(ev('x.y', 'critical'), { minSeverity: 'high', channels });
    expect(only(['webhook'])).toEqual(['webhook:default']);
    expect(only(['email'])).toEqual(['email:oncall@example.org']);
    expect(only(['push'])).toEqual(['push:devices']);
    expect(only(['chat'])).toEqual(['chat:ops', 'chat:linux-team']);
    expect(only([])).toEqual([]);
  });

  it('rule 1: the policy minimum moves the threshold', () => {
    expect(chosen(ev('ssh.login.failed', 'warning'), { minSeverity: 'warning', channels: ['webhook'] })).toEqual([
      'webhook:default',
    ]);
    expect(chosen(ev('ssh.login.failed', 'info'), { minSeverity: 'warning', channels: ['webhook'] })).toEqual([]);
  });

  it('rule 10: a severity override applies before the minimum; a hidden type of rules 1-2 never notifies', () => {
    const raised: TypeSettings = { overrides: new Map([['ssh.login.failed', 'critical']]), hidden: new Set() };
    const d = decide(ev('ssh.login.failed', 'info'), policy, targets, raised);
    expect(d.rule).toBe('min_severity');
    expect(d.severity).toBe('critical');
    const hidden: TypeSettings = { overrides: new Map(), hidden: new Set(['ssh.login.failed', 'ssh.bruteforce.mass']) };
    const h = decide(ev('ssh.bruteforce.mass', 'critical'), policy, targets, hidden);
    expect(h.rule).toBeNull();
    expect(h.reason).toMatch(/event type ssh.bruteforce.mass is hidden \(rule 10\)/);
    expect(chosen(ev('ssh.login.failed', 'critical'), policy, targets, hidden)).toEqual([]);
  });

  // Hiding a noisy type is about the lists: what rules 3 to 6 always send still goes out.
  const hiddenAlways: TypeSettings = {
    overrides: new Map(),
    hidden: new Set(['ssh.login.success', 'rdp.login.success', 'agent.lifecycle', 'rdg.connection.success', 'report.daily.rdp']),
  };
  it.each<[string, Trigger, string, string[]]>([
    // rule 3: chat only (the policy channels a visible critical login would add are the noise hidden)
    ['rule 3 info', ev('ssh.login.success', 'info'), 'login_success', ['chat:ops', 'chat:linux-team']],
    ['rule 3 critical', ev('rdp.login.success', 'critical'), 'login_success', ['chat:ops', 'chat:linux-team']],
    // rule 4: always notified, chat by routing and the policy channels
    [
      'rule 4',
      ev('agent.lifecycle', 'info', 'ssh-monitor'),
      'agent_lifecycle',
      ['chat:ops', 'chat:linux-team', 'webhook:default', 'email:oncall@example.org', 'push:devices'],
    ],
    // rule 5: chat whatever the minimum
    ['rule 5', ev('rdg.connection.success', 'high'), 'gateway_connection', ['chat:ops', 'chat:linux-team']],
    // rule 6: the policy channels whatever the minimum, never push
    ['rule 6', ev('report.daily.rdp', 'info'), 'agent_daily_report', ['webhook:default', 'email:oncall@example.org']],
  ])('rules 3-6 still send for a hidden type: %s', (_name, trigger, rule, expected) => {
    const d = decide(trigger, policy, targets, hiddenAlways);
    expect(d.rule).toBe(rule);
    expect(chosen(trigger, policy, targets, hiddenAlways)).toEqual(expected);
    // The explainer ("Why notified?") says the type is hidden and that this does not silence the rule.
    expect(d.reason).toMatch(/hidden from lists \(rule 10\), which does not silence this rule/);
  });

  it('a visible type of rules 3-6 says nothing about hiding', () => {
    expect(decide(ev('ssh.login.success', 'info'), policy, targets, none).reason).not.toMatch(/hidden/);
    // a visible critical login also reaches the policy channels (rule 1 on top of rule 3)
    expect(chosen(ev('ssh.login.success', 'critical'))).toContain('webhook:default');
  });

  it('rule 10 for problems: a hidden type never notifies; its severity override applies before the minimum', () => {
    const ts: TypeSettings = {
      overrides: new Map([
        ['ssh.bruteforce', 'critical'],
        ['gateway.flap', 'info'],
      ]),
      hidden: new Set(['agent.heartbeat_missing']),
    };
    const hiddenProblem = decide({ kind: 'problem', type: 'agent.heartbeat_missing', severity: 'critical' }, policy, targets, ts);
    expect(hiddenProblem.rule).toBeNull();
    expect(hiddenProblem.reason).toMatch(/problem type agent.heartbeat_missing is hidden/);
    const raised = decide({ kind: 'problem', type: 'ssh.bruteforce', severity: 'warning' }, policy, targets, ts);
    expect(raised.rule).toBe('new_problem');
    expect(raised.severity).toBe('critical');
    expect(decide({ kind: 'problem', type: 'gateway.flap', severity: 'high' }, policy, targets, ts).rule).toBeNull();
  });

  it('says why each channel was skipped', () => {
    const off: ChannelTargets = {
      ...targets,
      email: { enabled: false, recipients: ['a@b'] },
      chat: { enabled: true, destinations: [] },
    };
    const d = decide(ev('ssh.login.success', 'critical'), { minSeverity: 'high', channels: ['email', 'webhook'] }, off, none);
    const why = Object.fromEntries(d.routes.map((r) => [`${r.channel}:${r.destination}`, `${r.chosen} ${r.reason}`]));
    expect(why).toEqual({
      'chat:': 'false no chat destinations configured',
      'webhook:default': 'true policy channel',
      'email:': 'false channel disabled in its configuration',
      'push:': 'false not in the policy channels',
    });
    const routed = decide(ev('agent.lifecycle', 'info', 'rdp-login-monitor'), policy, targets, none);
    expect(routed.routes.find((r) => r.destination === 'linux-team')).toMatchObject({
      chosen: false,
      reason: expect.stringMatching(/do not include "rdp-login-monitor"/),
    });
  });

  it('telegram_via = agent: chat is skipped (the agent told it already), the other channels follow the rule', () => {
    const told = (t: Trigger): Trigger => ({ ...t, agentToldChat: true }) as Trigger;
    // login success: chat only below the minimum -> nothing chosen, but the rule and why are recorded
    const login = decide(told(ev('rdp.login.success', 'info')), policy, targets, none);
    expect(login.rule).toBe('login_success');
    expect(login.routes.filter((r) => r.chosen)).toEqual([]);
    expect(login.reason).toMatch(/chat skipped: the agent already sent this to its own chat/);
    expect(login.routes.filter((r) => r.channel === 'chat')).toEqual([
      { channel: 'chat', destination: '', chosen: false, reason: AGENT_TOLD_CHAT_REASON },
    ]);
    // at or above the minimum: the policy channels still receive it
    expect(chosen(told(ev('rdg.connection.failed', 'critical')))).toEqual([
      'webhook:default',
      'email:oncall@example.org',
      'push:devices',
    ]);
    // chat in the policy channels is skipped too; lifecycle keeps its other channels
    expect(chosen(told(ev('auth.account.locked', 'high')), { minSeverity: 'high', channels: ['chat', 'webhook'] })).toEqual([
      'webhook:default',
    ]);
    expect(chosen(told(ev('agent.lifecycle', 'info', 'rdp-login-monitor')))).toEqual([
      'webhook:default',
      'email:oncall@example.org',
      'push:devices',
    ]);
    // without the flag, the same events reach chat
    expect(chosen(ev('rdp.login.success', 'info'))).toEqual(['chat:ops', 'chat:linux-team']);
    // below the minimum with no forced channel: still nothing, for the old reason
    expect(decide(told(ev('ssh.login.failed', 'warning')), policy, targets, none).rule).toBeNull();
  });

  it('chat routing attribute: details.chat_route, else the agent product', () => {
    expect(chatRouteOf({ source: { product: 'ssh-monitor' }, details: { chat_route: ' db-team ' } })).toBe('db-team');
    expect(chatRouteOf({ source: { product: 'rdp-login-monitor' }, details: {} })).toBe('rdp-login-monitor');
    expect(chatRouteOf({ source: { product: 'ssh-monitor' }, details: { chat_route: 42 } })).toBe('ssh-monitor');
  });

  it('delivery ids: stable per (trigger, channel, destination), distinct otherwise', () => {
    const a = deliveryId('event:1', 'chat', 'ops');
    expect(deliveryId('event:1', 'chat', 'ops')).toBe(a);
    expect(
      new Set([
        a,
        deliveryId('event:1', 'chat', 'dev'),
        deliveryId('event:2', 'chat', 'ops'),
        deliveryId('event:1', 'webhook', 'ops'),
      ]).size,
    ).toBe(4);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
  });
});
