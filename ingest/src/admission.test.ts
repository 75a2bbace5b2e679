// The per-host token buckets' memory bound and their arithmetic, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { AgentRateLimiter } from './admission.ts';

const host = (name: string) => AgentRateLimiter.hostId(1, name, `agent-${name}`);

describe('AgentRateLimiter', () => {
  it('tracks at most maxHosts (key, host) buckets however many hosts are invented; the least recently used goes first', () => {
    const rate = new AgentRateLimiter({ keyRate: 0, keyBurst: 1, hostRate: 1, hostBurst: 10, maxHosts: 100 });
    let now = 0;
    expect(rate.take(1, host('flood'), 15, now)).toBeNull(); // in debt: -5
    for (let i = 0; i < 10_000; i++) {
      // The flooding host keeps coming back, so it stays among the most recently used.
      if (i % 50 === 0) expect(rate.take(1, host('flood'), 1, (now += 0.001))).toMatchObject({ scope: 'host' });
      rate.take(1, host(`invented-${i}`), 1, (now += 0.001));
      expect(rate.trackedHosts).toBeLessThanOrEqual(100);
    }
    expect(rate.trackedHosts).toBe(100);
    expect(rate.take(1, host('flood'), 1, now)).toMatchObject({ scope: 'host', wait: expect.any(Number) });
  });

  it('evicts the oldest bucket not used since the scan last passed it (second chance), not one used since', () => {
    const rate = new AgentRateLimiter({ keyRate: 0, keyBurst: 1, hostRate: 1, hostBurst: 10, maxHosts: 3 });
    expect(rate.take(1, host('a'), 15, 0)).toBeNull(); // a: oldest, in debt
    rate.take(1, host('b'), 1, 0);
    rate.take(1, host('c'), 1, 0);
    expect(rate.take(1, host('a'), 1, 0)).toMatchObject({ scope: 'host' }); // a used again (refused, still counts)
    rate.take(1, host('d'), 1, 0); // full: a is passed over (moved, mark cleared), b goes
    expect(rate.trackedHosts).toBe(3);
    expect(rate.take(1, host('a'), 1, 0)).toMatchObject({ scope: 'host' }); // a kept its debt
    rate.take(1, host('e'), 1, 0); // c is now the oldest unused: it goes, a (used again) stays
    expect(rate.take(1, host('a'), 1, 0)).toMatchObject({ scope: 'host' });
    // b comes back full (it was evicted) and pushes out d, now the oldest unused; a is passed over again.
    expect(rate.take(1, host('b'), 10, 0)).toBeNull();
    expect(rate.trackedHosts).toBe(3);
  });

  it('the sweep drops buckets that refilled to full and keeps those still in debt', () => {
    const rate = new AgentRateLimiter({ keyRate: 0, keyBurst: 1, hostRate: 10, hostBurst: 10 });
    for (let i = 0; i < 500; i++) rate.take(1, host(`h-${i}`), 1, 1);
    rate.take(1, host('debtor'), 1000, 1); // 990 in debt: ~100 s to refill
    expect(rate.trackedHosts).toBe(501);
    // 2 s later (past the sweep interval, 1 s here): everyone else is full again.
    expect(rate.take(1, host('other'), 1, 2001)).toBeNull();
    expect(rate.trackedHosts).toBe(2); // the debtor and the host just charged
    expect(rate.take(1, host('debtor'), 1, 2002)).toMatchObject({ scope: 'host' });
  });

  it('a long host name or agent instance is hashed into a bounded id', () => {
    const long = AgentRateLimiter.hostId(7, 'x'.repeat(100_000), 'y'.repeat(100_000));
    expect(long.length).toBeLessThan(64);
    expect(long).toBe(AgentRateLimiter.hostId(7, 'x'.repeat(100_000), 'y'.repeat(100_000)));
    expect(long).not.toBe(AgentRateLimiter.hostId(8, 'x'.repeat(100_000), 'y'.repeat(100_000)));
    expect(AgentRateLimiter.hostId(7, 'web-01', 'a1')).toBe('7\nweb-01\na1');
  });

  it('hosts pay their own buckets and the key ceiling pays for all; an empty ceiling refuses and charges nothing', () => {
    const rate = new AgentRateLimiter({ keyRate: 1, keyBurst: 30, hostRate: 1, hostBurst: 20 });
    // A's bucket empties at 20; B is not affected.
    expect(rate.take(1, host('a'), 20, 0)).toBeNull();
    expect(rate.take(1, host('a'), 1, 0)).toEqual({ scope: 'host', wait: 1 });
    const { keyWait, refused } = rate.admit(
      1,
      new Map([
        [host('a'), 3],
        [host('b'), 5],
      ]),
      2,
      0,
    );
    expect(keyWait).toBe(0);
    expect([...refused.keys()]).toEqual([host('a')]);
    // Ceiling: 30 - 20 - 5 - 2 = 3 left; C takes 3, then the key is empty for everyone.
    expect(rate.take(1, host('c'), 3, 0)).toBeNull();
    expect(rate.checkKey(1, 0)).toBe(1);
    expect(rate.take(1, host('d'), 1, 0)).toEqual({ scope: 'key', wait: 1 });
    expect(rate.admit(1, new Map([[host('d'), 1]]), 0, 0).keyWait).toBe(1);
    // Another key has its own ceiling.
    expect(rate.take(2, AgentRateLimiter.hostId(2, 'a'), 1, 0)).toBeNull();
  });

  it('rate 0 turns a level off', () => {
    const noHost = new AgentRateLimiter({ keyRate: 1, keyBurst: 5, hostRate: 0, hostBurst: 1 });
    expect(noHost.take(1, host('a'), 5, 0)).toBeNull();
    expect(noHost.take(1, host('a'), 1, 0)).toMatchObject({ scope: 'key' });
    expect(noHost.trackedHosts).toBe(0);
    const noKey = new AgentRateLimiter({ keyRate: 0, keyBurst: 1, hostRate: 1, hostBurst: 2 });
    expect(noKey.take(1, host('a'), 2, 0)).toBeNull();
    expect(noKey.take(1, host('b'), 2, 0)).toBeNull();
    expect(noKey.take(1, host('a'), 1, 0)).toMatchObject({ scope: 'host' });
  });
});
