// BullMQ queue names and job payloads shared by producers (processors, api) and workers. Every queue
// lives under BULLMQ_PREFIX: create queues and workers through runtime's queue factory.
export const QUEUES = {
  notifications: 'notifications',
  actions: 'actions',
  scheduler: 'scheduler',
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

/** Payload type of each notifications job name. */
export interface NotificationJobs {
  [LOGIN_RATE_LIMITED_JOB]: LoginRateLimitedJob;
}

/** Job names of the scheduler queue (each a BullMQ job scheduler; one run cluster-wide per tick). */
export const SCHEDULED_JOBS = {
  livenessScan: 'liveness-scan',
  eventsRollup: 'events-hourly-rollup',
  postgresRetention: 'postgres-retention',
} as const;
