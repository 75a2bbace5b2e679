import { describe, expect, it } from 'vitest';
import { gcSummary, parseGcLine, type GcRecord } from './gc.ts';

// Lines as Node 24's `--trace-gc-nvp` printed them for the ingest bench server (fields cut for length,
// the order and spelling kept).
const SCAVENGE =
  '[8921:0x334c3000:0]    57056 ms: pause=4.0 mutator=274.9 gc=s scavenge=3.91 scavenge.parallel=2.65 background.scavenge.parallel=2.64 ' +
  'start_object_size=99636600 end_object_size=49097816 allocated=53055552 promoted=1551888 new_space_survived=1798552 promotion_rate=92.1%';
const MARK_COMPACT =
  '[9919:0x34731000:0]    56830 ms: pause=6.7 mutator=309.6 gc=mc clear=2 evacuate=3.4 mark=0.4 mark.roots=0.3 incremental_steps_count=21 ' +
  'background.mark=109.8 background.evacuate.copy=1.4 start_object_size=84643296 allocated=46643288 promoted=1108984 promotion_rate=0.0%';

describe('parseGcLine', () => {
  it('reads a scavenge: pause, allocated and promoted bytes (not the background scavenge for the pause)', () => {
    expect(parseGcLine(SCAVENGE)).toEqual({
      kind: 'scavenge',
      pause: 4,
      allocated: 53055552,
      promoted: 1551888,
      backgroundMark: 0,
    });
  });

  it('reads a mark-compact with its background marking (not mark= or mark.roots=)', () => {
    expect(parseGcLine(MARK_COMPACT)).toEqual({
      kind: 'mark-compact',
      pause: 6.7,
      allocated: 46643288,
      promoted: 1108984,
      backgroundMark: 109.8,
    });
  });

  it('ignores lines that are not collections', () => {
    expect(parseGcLine('{"port":40123}')).toBeNull();
    expect(parseGcLine('ingest listening, pause=3 promoted=9')).toBeNull();
  });
});

describe('gcSummary', () => {
  const s = (allocated: number, promoted: number, pause = 1): GcRecord => ({
    kind: 'scavenge',
    pause,
    allocated,
    promoted,
    backgroundMark: 0,
  });

  it('sums pauses and marking, and takes the median promoted of the scavenges under load only', () => {
    const records: GcRecord[] = [
      s(2_000_000, 4_000), // start-up: below the load threshold, not in the median
      s(50_000_000, 1_500_000, 4),
      s(50_000_000, 1_400_000, 5),
      s(50_000_000, 1_600_000, 3),
      { kind: 'mark-compact', pause: 8, allocated: 0, promoted: 0, backgroundMark: 110 },
      { kind: 'mark-compact', pause: 6, allocated: 0, promoted: 0, backgroundMark: 90 },
    ];
    expect(gcSummary(records)).toBe(
      '4 scavenges (pauses 13 ms), promoted 1.50 MB per scavenge under load (median of 3), 4.50 MB in all; ' +
        '2 mark-compacts (pauses 14 ms, background marking 200 ms)',
    );
  });

  it('says n/a when no scavenge followed enough allocation to count as under load', () => {
    expect(gcSummary([s(1_000, 0)])).toContain('promoted n/a per scavenge under load (median of 0)');
  });
});
