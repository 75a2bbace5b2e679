import { describe, expect, it } from 'vitest';
import { ProgressWatchdog, coordinatorAnswered } from './progress-watchdog.ts';

describe('ProgressWatchdog', () => {
  it('is due once a partition has had lag without a commit for afterMs', () => {
    const w = new ProgressWatchdog(40_000);
    w.observed('p0', 5, 1000);
    w.observed('p0', 9, 30_000); // the clock runs from the first sighting
    expect(w.due(40_999)).toBe(false);
    expect(w.due(41_000)).toBe(true);
  });

  it('a commit or a sighting of no lag restarts the clock, per partition', () => {
    const w = new ProgressWatchdog(40_000);
    w.observed('p0', 5, 0);
    w.observed('p1', 5, 0);
    w.progressed('p0');
    w.observed('p1', 0, 10_000);
    expect(w.due(45_000)).toBe(false);
    w.observed('p0', 3, 45_000);
    expect(w.due(84_999)).toBe(false);
    expect(w.due(85_000)).toBe(true);
  });

  it('not for a partition busy in the handler (a slow or absent sink is for the write to wait out), nor right after a reset', () => {
    const w = new ProgressWatchdog(40_000);
    w.observed('p0', 5, 0);
    w.observed('p1', 5, 0);
    expect(w.due(50_000, new Set(['p0', 'p1']))).toBe(false);
    expect(w.due(60_000)).toBe(false);
    w.observed('p0', 5, 60_000);
    w.observed('p1', 5, 60_000);
    expect(w.due(100_000, new Set(['p0']))).toBe(true); // p1 still stuck
    w.reset();
    expect(w.due(200_000)).toBe(false);
  });

  it('a commit refused because the group moved on extends a stall once; refusals that keep coming do not', () => {
    const w = new ProgressWatchdog(40_000);
    w.observed('p0', 5, 0);
    w.refused('p0'); // the first refusal: the member gets afterMs more from the next sighting
    w.observed('p0', 5, 30_000);
    expect(w.due(69_999)).toBe(false);
    w.refused('p0'); // refused again, no commit in between: no more time
    w.observed('p0', 5, 60_000);
    expect(w.due(70_000)).toBe(true);
    // A commit that goes through ends the stall: the next stall may be extended again.
    w.progressed('p0');
    w.observed('p0', 5, 100_000);
    w.refused('p0');
    w.observed('p0', 5, 110_000);
    expect(w.due(149_999)).toBe(false);
    expect(w.due(150_000)).toBe(true);
    // So does a recreation (reset): the new member's first refusal is extended.
    w.reset();
    w.observed('p0', 5, 200_000);
    w.refused('p0');
    w.observed('p0', 5, 210_000);
    expect(w.due(249_999)).toBe(false);
  });

  it('tells a commit the coordinator refused because the group moved on from one that never reached it', () => {
    // kafkajs's own shapes: a protocol error inside a non-retriable or retries-exceeded error.
    const protocol = (type: string) => Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type });
    const wrapped = (cause: Error) =>
      Object.assign(new Error(`wrapped: ${cause.message}`), { name: 'KafkaJSNonRetriableError', cause });
    expect(coordinatorAnswered(wrapped(protocol('ILLEGAL_GENERATION')))).toBe(true);
    expect(coordinatorAnswered(wrapped(wrapped(protocol('REBALANCE_IN_PROGRESS'))))).toBe(true);
    expect(coordinatorAnswered(protocol('UNKNOWN_MEMBER_ID'))).toBe(true);
    expect(coordinatorAnswered(wrapped(protocol('NOT_COORDINATOR')))).toBe(false);
    expect(
      coordinatorAnswered(Object.assign(new Error('Connection error: read ECONNRESET'), { name: 'KafkaJSConnectionError' })),
    ).toBe(false);
    expect(coordinatorAnswered(new Error('Broker 2 not found in the cached metadata'))).toBe(false);
    expect(coordinatorAnswered(undefined)).toBe(false);
  });
});
