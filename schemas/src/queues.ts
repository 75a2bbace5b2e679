// BullMQ queue names and job payloads shared by producers (processors, api) and workers. Every queue
// lives under BULLMQ_PREFIX: create queues and workers through runtime's queue factory.
import type { FromSchema } from 'json-schema-to-ts';

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
  /** deliveries and actions whose BullMQ job a Redis restarted without its data lost, queued again */
  requeueLost: 'requeue-lost-jobs',
} as const;

// Remote actions (api/ACTIONS.md). The API records an `actions` row, then enqueues one job named after its
// kind with job id `action-<id>`; the `actions` worker role runs it over SSH or WinRM and writes the
// outcome back to the row. Payloads carry no credentials: the worker reads them from the settings.
// A kind is its payload schema here, its descriptor in core/src/actions/kinds/ and its handler in
// processors/src/actions/handlers/ (both records keyed by these kind names).

/** The managed host an action runs on. `address` was validated by the API (DNS name or IP, no port). */
export const actionTargetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['host_id', 'hostname', 'address', 'os_family'],
  properties: {
    host_id: { type: 'integer' },
    hostname: { type: 'string' },
    address: { type: 'string' },
    os_family: { type: 'string' },
  },
} as const;
export type ActionTarget = FromSchema<typeof actionTargetSchema>;

const gitRef = { git_url: { type: 'string' }, branch: { type: 'string' } } as const;

/**
 * What each kind's job carries besides kind, action_id and deadline; `target` makes it a host action.
 * The API mounts the kinds' routes in this order (so it is the order of the OpenAPI document).
 */
export const actionPayloadSchemas = {
  'winrm.test': { type: 'object', additionalProperties: false, required: ['target'], properties: { target: actionTargetSchema } },
  'winrm.logoff_user': {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'user'],
    properties: { target: actionTargetSchema, user: { type: 'string' } },
  },
  'winrm.sessions': {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    properties: { target: actionTargetSchema },
  },
  'winrm.logoff': {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'session_id'],
    properties: {
      target: actionTargetSchema,
      session_id: { type: 'integer', minimum: 0, maximum: 65535 },
      /** the session must belong to this user (a monitor's logoff from a gateway event), else refused */
      owner: { type: 'string' },
    },
  },
  'ssh.check': { type: 'object', additionalProperties: false, required: ['target'], properties: { target: actionTargetSchema } },
  'agent.update': {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'agent', 'git_url', 'branch'],
    properties: { target: actionTargetSchema, agent: { type: 'string', enum: ['linux', 'windows'] }, ...gitRef },
  },
  /** git connectivity test of (possibly unsaved) agent-update settings: no host. */
  'git.test': { type: 'object', additionalProperties: false, required: ['git_url', 'branch'], properties: gitRef },
} as const;

export type ActionKind = keyof typeof actionPayloadSchemas;
export const ACTION_KINDS = Object.keys(actionPayloadSchemas) as ActionKind[];
type PayloadTypes = { [K in ActionKind]: FromSchema<(typeof actionPayloadSchemas)[K]> };
/** An interface, so that generic code indexes it without re-deriving the types. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the interface is the point (see above)
export interface ActionPayloads extends PayloadTypes {}

/** Who started an action: an admin, a monitor, or the service itself (the automatic update fallback). */
export type ActionActorRole = 'admin' | 'monitor' | 'system';

export interface ActionJobBase {
  action_id: number;
  /** ISO 8601: the worker refuses to start the job after this (a synchronous caller has given up). */
  deadline: string;
  /**
   * The role of the action's actor. Only an admin's action pins a host's WinRM certificate at its first
   * connection; a job without it (queued by an older API) is treated as not an admin's.
   */
  actor_role?: ActionActorRole;
}
/** The job of one kind. */
export type ActionJobOf<K extends ActionKind> = { kind: K } & ActionJobBase & ActionPayloads[K];
/** A job of any kind (a union: narrow it on `kind`). */
export type ActionJob = { [K in ActionKind]: ActionJobOf<K> }[ActionKind];

/** Maintenance jobs of the actions queue (BullMQ job schedulers: one run cluster-wide per interval). */
export const ACTIONS_MAINTENANCE_JOBS = {
  /** reads the latest agent versions from the configured repositories' tags */
  versionsRefresh: 'versions.refresh',
  /** starts the SSH/WinRM update for hosts that ignored a poll-delivered update */
  updateFallback: 'updates.fallback',
  /** moves session actions that run through the host's agent on from the agent's results (issue 22) */
  agentActions: 'agent.actions',
} as const;
export type ActionsMaintenanceJob = { kind: 'versions.refresh' } | { kind: 'updates.fallback' } | { kind: 'agent.actions' };
export type ActionsQueueJob = ActionJob | ActionsMaintenanceJob;
/**
 * What producers add to the actions queue: a job built over its kind (ActionJobOf<K> inside code generic in
 * K; the compiler cannot narrow that to one member of ActionJob) or a maintenance job.
 */
export type ActionsQueueInput = ActionJobOf<ActionKind> | ActionsMaintenanceJob;
