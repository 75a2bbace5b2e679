// BullMQ queue names and job payloads shared by producers (processors, api) and workers. Every queue
// lives under BULLMQ_PREFIX: create queues and workers through runtime's queue factory.
export const QUEUES = {
  notifications: 'notifications',
  actions: 'actions',
  scheduler: 'scheduler',
  notifyChat: 'notify-chat',
  notifyWebhook: 'notify-webhook',
  notifyEmail: 'notify-email',
  notifyPush: 'notify-push',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const NOTIFICATIONS_QUEUE = QUEUES.notifications;
export const ACTIONS_QUEUE = QUEUES.actions;
export const SCHEDULER_QUEUE = QUEUES.scheduler;

/** Job name of the chat alert when a login is rate limited (spec: Authentication rule 5). */
export const LOGIN_RATE_LIMITED_JOB = 'login_rate_limited';

export interface LoginRateLimitedJob {
  kind: 'login_rate_limited';
  channel: 'chat';
  username: string;
  address: string;
  /** ISO 8601 */
  at: string;
}

/** Job name of an admin's test-send: the `deliver` role sends to every destination of the channel and returns the answers. */
export const TEST_SEND_JOB = 'test_send';

export interface TestSendJob {
  kind: 'test_send';
  channel: 'chat' | 'webhook' | 'email' | 'push';
  requested_by: string;
  at: string;
}

export interface TestSendResult {
  channel: string;
  results: { destination: string; ok: boolean; response: string }[];
}

/** Payload type of each notifications job name (triggers that do not come from Kafka). */
export interface NotificationJobs {
  [LOGIN_RATE_LIMITED_JOB]: LoginRateLimitedJob;
  [TEST_SEND_JOB]: TestSendJob;
}
export type NotificationsQueueJob = LoginRateLimitedJob | TestSendJob;

/** Job names of the scheduler queue (each a BullMQ job scheduler; one run cluster-wide per tick). */
export const SCHEDULED_JOBS = {
  livenessScan: 'liveness-scan',
  eventsRollup: 'events-hourly-rollup',
  postgresRetention: 'postgres-retention',
  /** every minute: builds and sends the daily report once its local time has come (one per day) */
  dailyReport: 'daily-report',
} as const;

// Remote actions (api/ACTIONS.md). The API records an `actions` row, then enqueues one job named after its
// kind with job id `action-<id>`; the `actions` worker role runs it over SSH or WinRM and writes the
// outcome back to the row. Payloads carry no credentials: the worker reads them from the settings.
export const ACTION_KINDS = [
  'winrm.test',
  'winrm.sessions',
  'winrm.logoff',
  'winrm.logoff_user',
  'ssh.check',
  'agent.update',
  'git.test',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** The managed host an action runs on. `address` was validated by the API (DNS name or IP, no port). */
export interface ActionTarget {
  host_id: number;
  hostname: string;
  address: string;
  os_family: string;
}

interface ActionJobBase {
  action_id: number;
  /** ISO 8601: the worker refuses to start the job after this (a synchronous caller has given up). */
  deadline: string;
}
type HostJob = ActionJobBase & { target: ActionTarget };

export type ActionJob =
  | (HostJob & { kind: 'winrm.test' })
  | (HostJob & { kind: 'winrm.sessions' })
  | (HostJob & { kind: 'ssh.check' })
  /** owner: the session must belong to this user (a monitor's logoff from a gateway event), else refused */
  | (HostJob & { kind: 'winrm.logoff'; session_id: number; owner?: string })
  | (HostJob & { kind: 'winrm.logoff_user'; user: string })
  | (HostJob & {
      kind: 'agent.update';
      agent: 'linux' | 'windows';
      git_url: string;
      branch: string;
    })
  /** git connectivity test of (possibly unsaved) agent-update settings: no host. */
  | (ActionJobBase & { kind: 'git.test'; git_url: string; branch: string });

/** Maintenance jobs of the actions queue (BullMQ job schedulers: one run cluster-wide per interval). */
export const ACTIONS_MAINTENANCE_JOBS = {
  /** reads the latest agent versions from the configured repositories' tags */
  versionsRefresh: 'versions.refresh',
  /** starts the SSH/WinRM update for hosts that ignored a poll-delivered update */
  updateFallback: 'updates.fallback',
} as const;
export type ActionsMaintenanceJob = { kind: 'versions.refresh' } | { kind: 'updates.fallback' };
export type ActionsQueueJob = ActionJob | ActionsMaintenanceJob;
