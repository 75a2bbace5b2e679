// BullMQ queue names shared by producers (processors, api) and workers.
export const NOTIFICATIONS_QUEUE = 'notifications';
export const ACTIONS_QUEUE = 'actions';
export const SCHEDULER_QUEUE = 'scheduler';
