// BENCH_GC=1 (issue 36): the bench's servers run with V8's `--trace-gc-nvp`, which prints one line of
// name=value pairs per collection on stdout; this reads them and sums what the collector cost each server.
// Why it is worth a line of its own: under single events ingest promotes ~2.8 % of what it allocates at
// every young-generation collection (the bare server nothing), and that is what its full collections
// (mark-compact, with their pauses and background marking) clean up. Its requests in flight alone do not
// explain it: V8 promotes what survives two scavenges, and holds of 30 ms promote 0.3 % (gc-age.ts); dead
// hash tables of long-lived Maps that point at them do (src/in-flight.ts).

/** One collection as --trace-gc-nvp prints it (the fields read here). */
export interface GcRecord {
  kind: 'scavenge' | 'mark-compact' | 'other';
  /** Main-thread pause, ms. */
  pause: number;
  /** Bytes allocated in the young generation since the previous collection. */
  allocated: number;
  /** Bytes moved to the old generation by this collection. */
  promoted: number;
  /** Concurrent marking on background threads for this collection, ms (mark-compacts). */
  backgroundMark: number;
}

/** The record of a --trace-gc-nvp line, or null for any other line. */
export function parseGcLine(line: string): GcRecord | null {
  const gc = / gc=(\w+)/.exec(line);
  if (!gc) return null;
  const num = (name: string): number => {
    const m = new RegExp(`[ :]${name.replace('.', '\\.')}=([0-9.]+)`).exec(line);
    return m ? Number(m[1]) : 0;
  };
  return {
    kind: gc[1] === 's' ? 'scavenge' : gc[1] === 'mc' ? 'mark-compact' : 'other',
    pause: num('pause'),
    allocated: num('allocated'),
    promoted: num('promoted'),
    backgroundMark: num('background.mark'),
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The collector's cost over a server's life: scavenges with the bytes they promoted (the median of those
 * that followed at least `loadedBytes` of allocation, i.e. under load) and their pauses; mark-compacts
 * with their pauses and background marking.
 */
export function gcSummary(records: GcRecord[], loadedBytes = 16 * 1024 * 1024): string {
  const scavenges = records.filter((r) => r.kind === 'scavenge');
  const full = records.filter((r) => r.kind === 'mark-compact');
  const loaded = scavenges
    .filter((r) => r.allocated >= loadedBytes)
    .map((r) => r.promoted)
    .sort((a, b) => a - b);
  const median = loaded.length ? loaded[Math.floor(loaded.length / 2)]! : undefined;
  const mb = (n: number) => (n / 1e6).toFixed(2);
  return (
    `${scavenges.length} scavenges (pauses ${sum(scavenges.map((r) => r.pause)).toFixed(0)} ms), ` +
    `promoted ${median === undefined ? 'n/a' : `${mb(median)} MB`} per scavenge under load (median of ${loaded.length}), ` +
    `${mb(sum(scavenges.map((r) => r.promoted)))} MB in all; ${full.length} mark-compacts (pauses ${sum(full.map((r) => r.pause)).toFixed(0)} ms, ` +
    `background marking ${sum(full.map((r) => r.backgroundMark)).toFixed(0)} ms)`
  );
}
