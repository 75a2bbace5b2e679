// Applies a batch so that one message that fails deterministically cannot stop the rest: a batch that
// keeps failing with a non-transient error is split in halves (in order) until the failing messages
// stand alone; the good parts are applied, the failing messages are returned as poison. Transient
// failures (connection lost, deadlock, timeout) are waited out and never make poison. No I/O of its
// own: `apply` writes, `wait` sleeps (and may throw to give up, e.g. at shutdown).

import { describeError, isDataError, isTransientError } from '@watchpost/runtime';

export interface IsolationOptions {
  /** Non-transient failures of the whole batch before it is split (and of a single message before it is poison). */
  attempts: number;
  /** Called before each retry with the failure and the attempt number; waits the backoff. */
  wait(err: unknown, attempt: number, size: number): Promise<void>;
  /** Called when a batch is split (metrics, logs). */
  onSplit?(size: number): void;
  isTransient?: (err: unknown) => boolean;
  isDataError?: (err: unknown) => boolean;
}

export interface Poison<T> {
  item: T;
  reason: string;
}

/** Every message of the batch failed, and not with a data error: the sink is broken, not the messages. */
export class SystemicFailure extends Error {
  readonly causeError: unknown;
  constructor(cause: unknown) {
    super(`every message of the batch failed: ${describeError(cause)}`);
    this.name = 'SystemicFailure';
    this.causeError = cause;
  }
}

/**
 * Applies `items` through `apply` (which must be all-or-nothing per call) and returns the messages
 * that fail deterministically. Throws SystemicFailure when a batch of several messages fails as a
 * whole with no message succeeding and no error naming the data: the caller retries it later.
 */
export async function applyIsolating<T>(
  items: readonly T[],
  apply: (part: T[]) => Promise<void>,
  o: IsolationOptions,
): Promise<Poison<T>[]> {
  const transient = o.isTransient ?? isTransientError;
  const dataError = o.isDataError ?? isDataError;
  /** Applies one part; retries transient failures forever and others up to `attempts`; returns the last error or null. */
  const tryPart = async (part: T[], maxFailures: number): Promise<unknown> => {
    let failures = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await apply(part);
        return null;
      } catch (err) {
        if (!transient(err)) failures++;
        if (failures >= maxFailures) return err ?? new Error('failed');
        await o.wait(err, attempt, part.length);
      }
    }
  };

  const first = await tryPart([...items], o.attempts);
  if (first === null) return [];
  if (items.length === 1) return [{ item: items[0]!, reason: describeError(first) }];

  const poison: Poison<T>[] = [];
  const errors: unknown[] = [];
  let applied = 0;
  const bisect = async (part: T[]): Promise<void> => {
    o.onSplit?.(part.length);
    const mid = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      if (half.length === 0) continue;
      // Already suspected: each part gets two tries (a transient failure does not count).
      const err = await tryPart(half, Math.min(2, o.attempts));
      if (err === null) applied += half.length;
      else if (half.length === 1) {
        poison.push({ item: half[0]!, reason: describeError(err) });
        errors.push(err);
      } else await bisect(half);
    }
  };
  await bisect([...items]);
  if (applied === 0 && !errors.some(dataError)) throw new SystemicFailure(first);
  return poison;
}
