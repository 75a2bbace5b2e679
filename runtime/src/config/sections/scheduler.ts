// The scheduler role's settings: host liveness (heartbeat policy), the daily report and Postgres
// retention (README.md, Configuration; core/src/hosts/status.ts, core/src/retention.ts).
import { ConfigError, envReader, type EnvVars } from '../env.ts';

/**
 * When a host goes stale: after `missed` heartbeat intervals plus `slack_minutes`, the interval being
 * the host's learned one (hosts.heartbeat_interval_seconds) or else its product's default (minutes);
 * a host with neither is stale after `fallback_minutes`. Sent to Postgres as one jsonb parameter.
 */
/** The agents' own heartbeat cadences (minutes): Deploy-LoginMonitor.ps1 forces 4 h, ssh-monitor sends one every 12 h. */
export const DEFAULT_HEARTBEAT_MINUTES: Readonly<Record<string, number>> = { 'rdp-login-monitor': 240, 'ssh-monitor': 720 };

export interface HeartbeatPolicy {
  missed: number;
  slack_minutes: number;
  fallback_minutes: number;
  defaults: Record<string, number>;
}

/** SERVICE_DAILY_REPORT_*: local time HH:MM in an IANA zone; checkSeconds: how often the scheduler looks. */
export interface DailyReportConfig {
  enabled: boolean;
  time: string;
  timezone: string;
  recipients: string[];
  checkSeconds: number;
}

/**
 * Postgres retention (scheduler role, hourly; core/src/retention.ts): every table that grows with events
 * or time. Declared once, here, where the environment is read; core's RetentionSettings adds only how
 * many rows one DELETE takes.
 */
export interface PostgresRetention {
  /** Correlate's idempotency ledger: must outlive the longest time Kafka can redeliver an event (topic retention 7 days). */
  ledgerHours: number;
  /** Problem outbox rows already sent to problems.v1. */
  outboxSentDays: number;
  /** Audit log entries, and host changes an admin accepted or rejected. */
  auditDays: number;
  /** Refresh tokens past their expiry or revocation (their session is over), and spent or expired enrollment codes. */
  refreshTokenDays: number;
  /** Notification decisions and their deliveries. */
  notificationDays: number;
  /**
   * Resolved problems (by resolved_at) with their timeline and flap pairs; timeline entries of live
   * problems received before it; gateway halves (302/303) that waited that long for their partner.
   */
  problemDays: number;
  /** Finished remote actions (succeeded or failed). */
  actionDays: number;
  /** Finished agent commands; update offers done (or whose fallback started) and not offered since. */
  agentCommandDays: number;
  /** Daily reports (the newest per time zone is always kept: the scheduler's missed-day check needs one). */
  reportDays: number;
}

export function heartbeatPolicy(env: EnvVars): HeartbeatPolicy {
  const r = envReader(env);
  return {
    missed: r.int('SERVICE_HEARTBEAT_MISSED', 2, 1, 100),
    slack_minutes: r.int('SERVICE_HEARTBEAT_SLACK_MINUTES', 5, 0, 1440),
    fallback_minutes: r.int('SERVICE_HEARTBEAT_STALE_MINUTES', 10, 1),
    defaults: {
      'rdp-login-monitor': r.int(
        'SERVICE_HEARTBEAT_INTERVAL_WINDOWS_MINUTES',
        DEFAULT_HEARTBEAT_MINUTES['rdp-login-monitor']!,
        1,
        2880,
      ),
      'ssh-monitor': r.int('SERVICE_HEARTBEAT_INTERVAL_LINUX_MINUTES', DEFAULT_HEARTBEAT_MINUTES['ssh-monitor']!, 1, 2880),
    },
  };
}

export function dailyReportConfig(env: EnvVars): DailyReportConfig {
  const r = envReader(env);
  const time = r.str('SERVICE_DAILY_REPORT_TIME', '08:00');
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time))
    throw new ConfigError('SERVICE_DAILY_REPORT_TIME', `expected HH:MM (24 h), got "${time}"`);
  const tz = r.str('SERVICE_DAILY_REPORT_TIMEZONE', 'UTC');
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw new ConfigError('SERVICE_DAILY_REPORT_TIMEZONE', `unknown IANA time zone "${tz}"`);
  }
  return {
    enabled: r.bool('SERVICE_DAILY_REPORT_ENABLED', true),
    checkSeconds: r.int('SERVICE_DAILY_REPORT_CHECK_SECONDS', 60, 1, 3600),
    time,
    timezone: tz,
    recipients: r
      .str('SERVICE_DAILY_REPORT_RECIPIENTS', '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  };
}

export function postgresRetentionConfig(env: EnvVars): PostgresRetention {
  const r = envReader(env);
  return {
    // Above the events topic's 7-day retention: an event Kafka can still redeliver is still in the ledger.
    ledgerHours: r.int('SERVICE_LEDGER_RETENTION_HOURS', 192, 169, 24 * 3650),
    outboxSentDays: r.int('SERVICE_OUTBOX_RETENTION_DAYS', 7, 1, 3650),
    auditDays: r.int('SERVICE_AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    refreshTokenDays: r.int('SERVICE_REFRESH_TOKEN_RETENTION_DAYS', 1, 0, 3650),
    // Above the events topic's 7-day retention: a redelivered event still finds its decision (never sent twice).
    notificationDays: r.int('SERVICE_NOTIFICATION_RETENTION_DAYS', 30, 8, 3650),
    // At least 8: above the events topic's 7-day retention, so a redelivered event never reopens a deleted problem.
    problemDays: r.int('SERVICE_PROBLEM_RETENTION_DAYS', 90, 8, 36_500),
    actionDays: r.int('SERVICE_ACTION_RETENTION_DAYS', 90, 1, 36_500),
    agentCommandDays: r.int('SERVICE_AGENT_COMMAND_RETENTION_DAYS', 30, 1, 36_500),
    reportDays: r.int('SERVICE_REPORT_RETENTION_DAYS', 365, 1, 36_500),
  };
}
