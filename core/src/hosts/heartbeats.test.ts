import { describe, expect, it } from 'vitest';
import { HEARTBEAT_GAPS_KEPT, learnHeartbeatInterval, nextHeartbeatGaps, planHeartbeats, type BeatState } from './heartbeats.ts';

const H = 3600;
const WINDOWS = 240 * 60; // the product default, seconds
const DEFAULTS = { 'rdp-login-monitor': 240, 'ssh-monitor': 720 };
const T0 = Date.parse('2026-11-02T09:00:00Z');
const beat = (s: number, hostname = 'ws-01') => ({
  hostname,
  product: 'rdp-login-monitor',
  received_at: new Date(T0 + s * 1000),
});

/** The state after heartbeats at these offsets (seconds), one batch each, as correlate plans them. */
function after(offsets: number[], start?: BeatState): BeatState {
  let state = start;
  for (const s of offsets) {
    const known = new Map(state ? [['ws-01', { ...state, product: 'rdp-login-monitor' }]] : []);
    state = planHeartbeats(known, [beat(s)], DEFAULTS).get('ws-01')!;
  }
  return state!;
}

describe('learnHeartbeatInterval', () => {
  it.each([
    { name: 'the Windows agent every 4 h', gaps: [4 * H, 4 * H, 4 * H], want: 4 * H },
    { name: 'two gaps are not evidence yet', gaps: [4 * H, 4 * H], want: null },
    { name: 'gaps that disagree', gaps: [4 * H, 600, 2 * H], want: null },
    { name: 'a reload stretched the newest gap to 1.9x', gaps: [4 * H, 4 * H, 4 * H, 7.6 * H], want: null },
    { name: 'jitter within 1.5x: the median', gaps: [14_000, 14_500, 14_400], want: 14_400 },
    { name: 'a burst of restarts: consistent, short, covering 70 s', gaps: [20, 25, 25], want: null },
    { name: 'every 5 min for 15 min: not yet (below 4 h / 8 = 30 min)', gaps: [300, 300, 300], want: null },
    { name: 'every 5 min for 30 min', gaps: [300, 300, 300, 300, 300, 300], want: 300 },
    { name: 'switched from 4 h to 1 h (above the floor: three gaps)', gaps: [4 * H, 4 * H, H, H, H], want: H },
  ])('$name', ({ gaps, want }) => {
    expect(learnHeartbeatInterval(gaps, WINDOWS, null)).toBe(want);
    // No evidence keeps what was learned before.
    expect(learnHeartbeatInterval(gaps, WINDOWS, 4 * H)).toBe(want ?? 4 * H);
  });

  it('is bounded to [1 min, 48 h]; a product with no default has no floor', () => {
    expect(learnHeartbeatInterval([1, 1, 1], null, null)).toBe(60);
    expect(learnHeartbeatInterval([100 * H, 100 * H, 100 * H], WINDOWS, null)).toBe(48 * H);
  });
});

describe('nextHeartbeatGaps', () => {
  it('adds the gap in whole seconds, keeps the newest HEARTBEAT_GAPS_KEPT, ignores a first or an older heartbeat', () => {
    expect(nextHeartbeatGaps([], null, T0)).toEqual([]);
    expect(nextHeartbeatGaps([5], T0, T0 + 14_400_400)).toEqual([5, 14_400]);
    expect(nextHeartbeatGaps([5], T0, T0 - 1000)).toEqual([5]);
    const full = Array.from({ length: HEARTBEAT_GAPS_KEPT }, (_, i) => i + 1);
    expect(nextHeartbeatGaps(full, T0, T0 + 99_000)).toEqual([...full.slice(1), 99]);
  });
});

describe('planHeartbeats: the Windows agent as it really beats (Login_Monitor.ps1: a heartbeat at every start, then every $HeartbeatInterval s)', () => {
  it('a fresh install keeps the product default: one heartbeat (the daily report 4 s later is no heartbeat)', () => {
    expect(after([0])).toEqual({ last_beat_at: new Date(T0), beat_gaps: [], heartbeat_interval_seconds: null });
  });

  it('a burst of restarts, then its 4 h cadence: nothing short is learned; 4 h after three regular gaps', () => {
    const burst = after([0, 20, 45, 70]);
    expect(burst.heartbeat_interval_seconds).toBeNull();
    expect(after([70 + 4 * H, 70 + 8 * H], burst).heartbeat_interval_seconds).toBeNull();
    expect(after([70 + 4 * H, 70 + 8 * H, 70 + 12 * H], burst).heartbeat_interval_seconds).toBe(4 * H);
  });

  it('a settings reload stretching one gap to almost twice the interval changes nothing learned', () => {
    const learned = after([0, 4 * H, 8 * H, 12 * H]);
    expect(learned.heartbeat_interval_seconds).toBe(4 * H);
    expect(after([12 * H + 7.8 * H], learned).heartbeat_interval_seconds).toBe(4 * H);
  });

  it('several heartbeats of one host in a batch count in receive order; hosts apart; a known host goes on from its stored state', () => {
    const plan = planHeartbeats(
      new Map([
        [
          'ws-02',
          { last_beat_at: new Date(T0), beat_gaps: [H, H], heartbeat_interval_seconds: null, product: 'rdp-login-monitor' },
        ],
      ]),
      [beat(2 * H, 'ws-01'), beat(0, 'ws-01'), beat(H, 'ws-01'), beat(H, 'ws-02')],
      DEFAULTS,
    );
    expect(plan.get('ws-01')).toEqual({
      last_beat_at: new Date(T0 + 2 * H * 1000),
      beat_gaps: [H, H],
      heartbeat_interval_seconds: null,
    });
    expect(plan.get('ws-02')).toEqual({
      last_beat_at: new Date(T0 + H * 1000),
      beat_gaps: [H, H, H],
      heartbeat_interval_seconds: H,
    });
  });
});
