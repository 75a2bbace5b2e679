// Notifications (api/NOTIFICATIONS.md): the policy, its settings, the decision and delivery records,
// the daily report schedule.
export * from './policy.ts';
export * from './settings.ts';
export * from './records.ts';
export * from './schedule.ts';
export * from './jobs.ts';
export * from './channels/index.ts';
