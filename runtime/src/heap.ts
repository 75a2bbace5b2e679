// V8's collector settings the service runs with (issue 36). By default V8 starts a full mark-compact
// whenever the memory held outside its heap (Buffers: request bodies, Kafka fetches and produce requests,
// ClickHouse inserts) has grown by a fixed amount since the last one, however small the heap. The service
// moves several GB of Buffers through a drain of 200,000 events, so its processes ran a mark-compact every
// 2-3 s, each marking the whole live heap (~110 MB) again: 18-20 mark-compacts and 6.0-8.6 s of background
// marking in the drain of `npm run bench:ingest` (role all), a quarter of the process's CPU. Counting that
// memory into the heap's global limit instead collects when heap and Buffers together have grown in
// proportion to what is live: 8-13 mark-compacts and 2.1-3.0 s of marking over seven drains each, the
// peak RSS of the drain 1,220 against 930 MB (ingest/README.md, "Sixth round"). The flag is V8's own and
// is read where the collector decides, so setting it at start takes effect for the process and its worker
// threads (heap.test.ts checks that it does, in a process of its own).
import { setFlagsFromString } from 'node:v8';

/** The V8 flag that counts external memory (Buffers) into the heap's global limit. */
export const EXTERNAL_IN_GLOBAL_LIMIT_FLAG = '--external-memory-accounted-in-global-limit';

/** Applies the collector settings of SERVICE_GC_EXTERNAL_IN_GLOBAL_LIMIT (config.gcExternalInGlobalLimit). */
export function applyHeapSettings(opts: { externalInGlobalLimit: boolean }): void {
  if (opts.externalInGlobalLimit) setFlagsFromString(EXTERNAL_IN_GLOBAL_LIMIT_FLAG);
}
