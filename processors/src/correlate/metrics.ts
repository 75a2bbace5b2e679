// Correlate and liveness-scan metrics (served at /metrics by every process that runs them).
import { counter, gauge } from '@watchpost/runtime';
import type { BatchOutcome } from './processor.ts';
import type { ScanResult } from './liveness.ts';

export const problemsOpened = counter(
  'watchpost_problems_opened_total',
  'Problems opened (new problems; host_silence reopen counted as reopened)',
  ['type', 'rule'],
);
export const problemsReopened = counter(
  'watchpost_problems_reopened_total',
  'host_silence problems reopened after the 12 h cooldown',
);
export const problemsResolved = counter('watchpost_problems_resolved_total', 'Problems resolved by the service', ['resolved_by']);
export const eventsApplied = counter(
  'watchpost_correlate_events_total',
  'Events applied by correlate (new) or skipped (already processed)',
  ['outcome'],
);
export const lagSeconds = gauge(
  'watchpost_correlate_lag_seconds',
  'Service receive time to correlate commit, for the newest event of the last batch',
);
export const consumerLag = gauge(
  'watchpost_correlate_consumer_lag_messages',
  'Messages of events.v1 not yet committed by the correlate group',
);

/** Metrics of one committed batch (called after the transaction committed). */
export function recordBatch(out: BatchOutcome, now: Date): void {
  for (const p of out.opened) problemsOpened.inc({ type: p.type, rule: p.rule });
  for (const r of out.resolved) problemsResolved.inc({ resolved_by: r.resolved_by });
  eventsApplied.inc({ outcome: 'applied' }, out.applied);
  eventsApplied.inc({ outcome: 'skipped' }, out.skipped);
  if (out.latestReceivedAt) lagSeconds.set(Math.max(0, (now.getTime() - out.latestReceivedAt.getTime()) / 1000));
}

export function recordScan(r: ScanResult): void {
  for (let i = 0; i < r.opened.length; i++) problemsOpened.inc({ type: 'host_silence', rule: 'heartbeat_stale' });
  problemsReopened.inc(r.reopened.length);
  hostsMarkedStale.inc(r.markedStale);
}

export const hostsMarkedStale = counter('watchpost_hosts_marked_stale_total', 'Hosts the liveness scan marked stale');
