// Request-reply over a BullMQ queue: the API adds a job and waits, up to a bound, for the worker role
// that owns the queue to finish it. One QueueEvents reader per queue (its own Redis connection, made on
// first use) serves every wait; close() ends it with the app.
import { QueueEvents, type JobsOptions, type Queue } from 'bullmq';
import type { Redis } from './clients/redis.ts';

const CLOSE_WAIT_MS = 2000;

/** How a wait ended. `failed` carries the worker's error message; `timed_out` means no answer in time. */
export type JobReply<Result> =
  | { status: 'completed'; jobId: string; value: Result }
  | { status: 'failed'; jobId: string; reason: string }
  | { status: 'timed_out'; jobId: string };

export interface RequestReply<Data, Result, Name extends string> {
  /**
   * Adds the job and waits up to `waitMs` for it to finish. Rejects only when the job could not be added
   * (Redis unavailable); once added, always resolves (a lost Redis ends as `timed_out`).
   */
  request(name: Name, data: Data, opts: { waitMs: number; job?: JobsOptions }): Promise<JobReply<Result>>;
  /** Ends the reader; waits still pending resolve `timed_out` at once. */
  close(): Promise<void>;
}

/** `queue` and `connection` as from createQueue(config, name, connection). */
export function createRequestReply<Data, Result, Name extends string>(
  queue: Queue<Data, Result, Name>,
  connection: Redis,
): RequestReply<Data, Result, Name> {
  let reader: Promise<QueueEvents> | undefined;
  let closed = false;

  /** Waits by job id; one listener per event name whatever the number of waits. */
  const waits = new Map<string, Set<(reply: JobReply<Result>) => void>>();
  const answer = (reply: JobReply<Result>) => waits.get(reply.jobId)?.forEach((finish) => finish(reply));

  async function open(): Promise<QueueEvents> {
    // Read on from the stream's current last entry rather than '$': a '$' read misses what lands between
    // two reads (BullMQ re-reads from '$' after an idle block), so an answer could go unseen.
    const last = await connection.xrevrange(queue.keys.events!, '+', '-', 'COUNT', 1);
    // BullMQ reads events on a duplicate of `connection` that it owns and closes.
    const events = new QueueEvents(queue.name, { connection, prefix: queue.opts.prefix, lastEventId: last[0]?.[0] ?? '0-0' });
    // Connection errors: ioredis reconnects, and every wait is bounded by its own timer.
    events.on('error', () => {});
    events.on('completed', ({ jobId, returnvalue }) => answer({ status: 'completed', jobId, value: returnvalue as Result }));
    events.on('failed', ({ jobId, failedReason }) => answer({ status: 'failed', jobId, reason: failedReason }));
    return events;
  }

  /** The job's outcome if it already finished (its answer may have come before the listeners were on). */
  async function finished(jobId: string): Promise<JobReply<Result> | null> {
    const state = await queue.getJobState(jobId);
    if (state !== 'completed' && state !== 'failed') return null;
    const job = await queue.getJob(jobId);
    if (!job) return null;
    return state === 'completed'
      ? { status: 'completed', jobId, value: job.returnvalue as Result }
      : { status: 'failed', jobId, reason: job.failedReason };
  }

  return {
    async request(name, data, { waitMs, job: jobOpts }) {
      if (closed) throw new Error(`request-reply on queue ${queue.name} is closed`);
      const deadline = Date.now() + waitMs;
      reader ??= open().catch((err: unknown) => {
        reader = undefined;
        throw err;
      });
      await reader;
      type Add = Parameters<typeof queue.add>;
      const job = await queue.add(name as Add[0], data as Add[1], jobOpts);
      const jobId = job.id!;
      if (closed) return { status: 'timed_out', jobId };
      return new Promise<JobReply<Result>>((resolve) => {
        const timer = setTimeout(() => finish({ status: 'timed_out', jobId }), Math.max(0, deadline - Date.now()));
        const mine = waits.get(jobId) ?? new Set();
        function finish(reply: JobReply<Result>) {
          if (!mine.delete(finish)) return;
          if (mine.size === 0) waits.delete(jobId);
          clearTimeout(timer);
          resolve(reply);
        }
        waits.set(jobId, mine.add(finish));
        // A failed look-up (Redis away) leaves the wait to the events and the timer.
        finished(jobId).then(
          (r) => r && finish(r),
          () => {},
        );
      });
    },

    async close() {
      closed = true;
      for (const jobId of [...waits.keys()]) answer({ status: 'timed_out', jobId });
      const events = await reader?.catch(() => undefined);
      // BullMQ waits for the reader's connection to report its end, which a connection stuck reconnecting to
      // a Redis that went away never does (the connection is stopped all the same): bounded, so a close
      // never hangs on it.
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([events?.close().catch(() => {}), new Promise((r) => (bound = setTimeout(r, CLOSE_WAIT_MS)))]).finally(
        () => clearTimeout(bound),
      );
    },
  };
}
