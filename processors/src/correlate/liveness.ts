// The liveness scan: marks hosts stale and opens (or, after the 12 h cooldown, reopens) one host_silence
// problem per stale host. Callable directly with any `now` (tests); the scheduler role runs it every
// minute through a BullMQ job scheduler. Each host is handled in its own short transaction that first
// locks the host row, so concurrent scanners (or a heartbeat being processed) serialize per host and
// the partial unique index on live fingerprints backs that up.
import type { Pool } from 'pg';
import type { Severity } from '@watchpost/schemas';
import { withTransaction, type PoolClient } from '@watchpost/runtime';
import {
  HOST_SILENCE_TYPE,
  enqueueProblemMessages,
  hostSilenceDecision,
  lockLatestProblem,
  newProblemRow,
  openProblems,
  outboxEntry,
  problemPayload,
  transition,
  updateProblems,
} from '@watchpost/core/problems';
import { lockHost, markHostStale, silentHostnames, type StaleRule } from '@watchpost/core/hosts';
import { SILENCE_RULE, deterministicUuid, fingerprintOf } from './rules.ts';
export interface ScanResult {
  markedStale: number;
  opened: string[];
  reopened: string[];
  suppressed: number;
}

export const SILENCE_SEVERITY: Severity = 'high';

/** Options of one scan: `staleMinutes` is the HeartbeatPolicy (config.heartbeat) or a flat number of minutes. */
export interface ScanOptions {
  now: Date;
  staleMinutes: StaleRule;
}

/** A host is stale when now - COALESCE(last_heartbeat, first_seen) > its threshold (status.ts; receive times). */
export async function runLivenessScan(pool: Pool, opts: ScanOptions): Promise<ScanResult> {
  const res: ScanResult = { markedStale: 0, opened: [], reopened: [], suppressed: 0 };
  for (const { hostname } of await silentHostnames(pool, opts.now, opts.staleMinutes)) await scanHost(pool, hostname, opts, res);
  return res;
}

async function scanHost(pool: Pool, hostname: string, opts: ScanOptions, res: ScanResult): Promise<void> {
  try {
    await withTransaction(pool, (c) => scanHostIn(c, hostname, opts, res));
  } catch (err) {
    // Another scanner won the race for this host's live problem: nothing to do.
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}

async function scanHostIn(c: PoolClient, hostname: string, opts: ScanOptions, res: ScanResult): Promise<void> {
  const host = await lockHost(c, { hostname }, ['status', 'last_heartbeat', 'first_seen']);
  const silentSince = host ? (host.last_heartbeat ?? host.first_seen) : null;
  // Re-checked under the row lock with the host's own threshold: deleted or reported meanwhile.
  const [silent] = host ? await silentHostnames(c, opts.now, opts.staleMinutes, hostname) : [];
  if (!host || !silentSince || !silent) return;
  const staleMinutes = silent.stale_minutes;
  if (host.status !== 'stale') {
    await markHostStale(c, hostname, opts.now);
    res.markedStale++;
  }
  const latest = await lockLatestProblem(c, hostname, HOST_SILENCE_TYPE);
  const decision = hostSilenceDecision(latest, host.last_heartbeat, opts.now);
  const fingerprint = fingerprintOf(hostname, HOST_SILENCE_TYPE, SILENCE_RULE);
  if (decision === 'open_new') {
    const id = deterministicUuid(`${HOST_SILENCE_TYPE}:${hostname}:${silentSince.toISOString()}`);
    const row = newProblemRow({
      id,
      fingerprint,
      host: hostname,
      type: HOST_SILENCE_TYPE,
      rule: SILENCE_RULE,
      title: `No heartbeat from ${hostname} for more than ${staleMinutes} minutes`,
      severity: SILENCE_SEVERITY,
      at: opts.now,
      details: { silent_since: silentSince.toISOString(), stale_minutes: staleMinutes },
    });
    // Another scanner may have opened it meanwhile: nothing is inserted then, and no message written.
    const inserted = await openProblems(c, [row], [outboxEntry('problem.opened', problemPayload(row), opts.now)], {
      onConflictDoNothing: true,
    });
    if (inserted.has(id)) res.opened.push(id);
  } else if (decision === 'reopen' && latest) {
    const t = transition(latest, { kind: 'reopen' }, opts.now);
    if (t.ok) {
      const p = { ...t.next, last_seen: opts.now };
      await updateProblems(c, [{ row: p, countDelta: 1 }]);
      await enqueueProblemMessages(c, [outboxEntry('problem.reopened', problemPayload(p), opts.now, p.reopened_count)]);
      res.reopened.push(p.id);
    }
  } else if (decision === 'suppressed') {
    res.suppressed++;
  }
}
