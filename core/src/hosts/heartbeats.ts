// Learning a host's heartbeat interval (issue 31) for the stale threshold of status.ts, from its own
// agent.heartbeat events only. Correlate reads each host's last heartbeat, gaps and learned interval
// under the host row's lock (lockConfirmedHosts), plans the batch here (pure: the same result however
// the batches fall) and the host upsert writes it.

/** Bounds of a learned heartbeat interval (seconds): 1 min to 48 h. */
export const HEARTBEAT_INTERVAL_MIN_SECONDS = 60;
export const HEARTBEAT_INTERVAL_MAX_SECONDS = 48 * 3600;
/** Gaps between consecutive heartbeats a host keeps (hosts.beat_gaps, seconds, newest last). */
export const HEARTBEAT_GAPS_KEPT = 24;
/** Consistent gaps needed before an interval is learned. */
export const HEARTBEAT_GAPS_NEEDED = 3;
/** Gaps agree when each is within this factor of their median (a reload's stretched gap, ~2x, does not). */
const HEARTBEAT_GAP_SPREAD = 1.5;
/**
 * An interval shorter than the product's default divided by this is learned only from consistent gaps
 * that together cover at least that long: a burst of restarts (one heartbeat at every start, seconds
 * apart) is no evidence of a short interval, an agent configured to beat every 5 minutes soon is.
 */
export const HEARTBEAT_FLOOR_DIVISOR = 8;

/**
 * The heartbeat interval a host's gaps show (seconds, within [1 min, 48 h]), or `current` when they show
 * none: learned only from agent.heartbeat to agent.heartbeat (a daily report sent at start, 4 s after
 * the start heartbeat, is no gap), only from the newest run of at least HEARTBEAT_GAPS_NEEDED gaps that
 * agree (their median), and below default/HEARTBEAT_FLOOR_DIVISOR only when that run covers that long.
 * The Windows agent's fresh install (issue 31: one gap of 4 s learned as 60 s paged on-call 8 minutes
 * later) thus keeps its product's 4 h until its heartbeats show otherwise.
 */
export function learnHeartbeatInterval(
  gaps: readonly number[],
  defaultSeconds: number | null,
  current: number | null,
): number | null {
  const floor = defaultSeconds ? defaultSeconds / HEARTBEAT_FLOOR_DIVISOR : 0;
  let learned: number | null = null;
  for (let k = HEARTBEAT_GAPS_NEEDED; k <= gaps.length; k++) {
    const run = gaps.slice(gaps.length - k);
    const sorted = [...run].sort((a, b) => a - b);
    const median = sorted[Math.floor(k / 2)]!;
    if (median <= 0 || sorted[0]! * HEARTBEAT_GAP_SPREAD < median || sorted[k - 1]! > median * HEARTBEAT_GAP_SPREAD) break;
    const covered = run.reduce((a, b) => a + b, 0);
    if (median >= floor || covered >= floor) learned = median;
  }
  if (learned === null) return current;
  return Math.min(Math.max(Math.round(learned), HEARTBEAT_INTERVAL_MIN_SECONDS), HEARTBEAT_INTERVAL_MAX_SECONDS);
}

/** The gaps after a heartbeat at `beatAt` (ms) following the last one at `lastBeatAt` (ms); unchanged when not later. */
export function nextHeartbeatGaps(gaps: readonly number[], lastBeatAt: number | null, beatAt: number): number[] {
  if (lastBeatAt === null || beatAt <= lastBeatAt) return [...gaps];
  const gap = Math.min(Math.round((beatAt - lastBeatAt) / 1000), 2 ** 31 - 1);
  return [...gaps, gap].slice(-HEARTBEAT_GAPS_KEPT);
}

/** A host's heartbeat state as stored (hosts.last_beat_at, beat_gaps, heartbeat_interval_seconds). */
export interface BeatState {
  last_beat_at: Date | null;
  beat_gaps: number[];
  heartbeat_interval_seconds: number | null;
}

/** One agent.heartbeat of the batch. */
export interface BeatObservation {
  hostname: string;
  product: string;
  received_at: Date;
}

/**
 * The heartbeat state of every host with a heartbeat in the batch, after its heartbeats in receive
 * order. `known` holds the stored state of known hosts (absent: a new host, whose first heartbeat
 * starts its gaps); `defaults` the product defaults in minutes (HeartbeatPolicy.defaults).
 */
export function planHeartbeats(
  known: ReadonlyMap<string, BeatState & { product: string }>,
  beats: readonly BeatObservation[],
  defaults: Readonly<Record<string, number>>,
): Map<string, BeatState> {
  const out = new Map<string, BeatState & { product: string }>();
  const ordered = [...beats].sort((a, b) => a.received_at.getTime() - b.received_at.getTime());
  for (const b of ordered) {
    let s = out.get(b.hostname);
    if (!s) {
      const k = known.get(b.hostname);
      s = k
        ? { ...k, beat_gaps: [...k.beat_gaps] }
        : { last_beat_at: null, beat_gaps: [], heartbeat_interval_seconds: null, product: b.product };
      out.set(b.hostname, s);
    }
    const at = b.received_at.getTime();
    s.beat_gaps = nextHeartbeatGaps(s.beat_gaps, s.last_beat_at?.getTime() ?? null, at);
    if (!s.last_beat_at || at > s.last_beat_at.getTime()) s.last_beat_at = b.received_at;
    const minutes = defaults[s.product];
    s.heartbeat_interval_seconds = learnHeartbeatInterval(
      s.beat_gaps,
      minutes ? minutes * 60 : null,
      s.heartbeat_interval_seconds,
    );
  }
  return new Map([...out].map(([h, { product: _p, ...state }]) => [h, state]));
}
