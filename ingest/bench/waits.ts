// The paced phase's breakdown (issue 36): where ingest's answers waited in its pipeline, read from the
// pipeline's own histograms (ingest_queue_seconds, ingest_claim_seconds, ingest_produce_seconds; one
// observation per micro-batch, src/pipeline.ts) before and after one window; and each server's own time
// per request (headers read -> answer handed to the socket), which leaves out what wrk measures beside it:
// its own turn to run and the time a request waits in the socket on a machine whose two cores are taken.
// The bench servers serve them on a port of their own (`control` in their first line).
import type { Server } from 'node:http';
import { Histogram, type Registry } from 'prom-client';

/** One histogram at one instant: cumulative counts per upper bound (seconds), as prom-client keeps them. */
export interface HistogramSnapshot {
  buckets: [le: number, cumulative: number][];
  count: number;
}
export type Snapshots = Record<string, HistogramSnapshot>;

export const WAIT_HISTOGRAMS = {
  queue: 'ingest_queue_seconds',
  'claim (Redis)': 'ingest_claim_seconds',
  'send (Kafka)': 'ingest_produce_seconds',
} as const;

export const REQUEST_HISTOGRAM = 'bench_request_seconds';
export const LOOP_HISTOGRAM = 'bench_event_loop_delay_seconds';

const SERVER_BUCKETS = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1, 5];

/** Times every request of the server, from its headers read to its answer handed to the socket. */
export function timeRequests(server: Server, registry: Registry): void {
  const h = new Histogram({
    name: REQUEST_HISTOGRAM,
    help: 'Server-side time per request',
    buckets: SERVER_BUCKETS,
    registers: [registry],
  });
  server.on('request', (_req, res) => {
    const started = performance.now();
    res.once('finish', () => h.observe((performance.now() - started) / 1000));
  });
}

/**
 * How late the server's event loop ran a 1 ms interval timer, one observation per firing: how long work
 * that became ready (an answer from Redis or Kafka, a request) waited for the loop, whether behind the
 * loop's other work, a collector pause or its turn on a CPU. Both bench servers run it, so the bare
 * server's figure is the floor of the same machine at the same pace. Returns the stop.
 */
export function timeEventLoop(registry: Registry): () => void {
  const h = new Histogram({
    name: LOOP_HISTOGRAM,
    help: 'Event-loop delay of a 1 ms timer',
    buckets: SERVER_BUCKETS,
    registers: [registry],
  });
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    h.observe(Math.max(0, now - last - 1) / 1000);
    last = now;
  }, 1);
  timer.unref();
  return () => clearInterval(timer);
}

interface Value {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** The histograms of `names` in the registry, now (absent ones are left out). */
export async function snapshotHistograms(registry: Registry, names: readonly string[]): Promise<Snapshots> {
  const out: Snapshots = {};
  for (const name of names) {
    const m = registry.getSingleMetric(name);
    if (!m) continue;
    const values = (await m.get()).values as Value[];
    const buckets: [number, number][] = [];
    let count = 0;
    for (const v of values) {
      if (v.metricName === `${name}_count`) count = v.value;
      else if (v.metricName === `${name}_bucket` && v.labels.le !== '+Inf') buckets.push([Number(v.labels.le), v.value]);
    }
    out[name] = { buckets: buckets.sort((a, b) => a[0] - b[0]), count };
  }
  return out;
}

/**
 * The smallest bucket bound (seconds) under which at least a share q of the observations made between
 * the two snapshots fell; Infinity when they fell past the last bound, undefined when there were none.
 */
export function quantileBetween(before: HistogramSnapshot | undefined, after: HistogramSnapshot, q: number): number | undefined {
  const n = after.count - (before?.count ?? 0);
  if (n <= 0) return undefined;
  const earlier = new Map(before?.buckets ?? []);
  for (const [le, cumulative] of after.buckets) if (cumulative - (earlier.get(le) ?? 0) >= q * n) return le;
  return Infinity;
}

const ms = (s: number | undefined) =>
  s === undefined ? 'n/a' : s === Infinity ? '> last bucket' : `<= ${+(s * 1000).toFixed(2)} ms`;

/** `p50 <= 0.5 ms, p99 <= 3 ms (90112 requests)`: the server's own time per request over the window. */
export function requestLine(before: Snapshots, after: Snapshots): string {
  return quantilesLine(before, after, REQUEST_HISTOGRAM, 'requests');
}

/** `p50 <= 1 ms, p99 <= 7.5 ms (6012 timer firings)`: the server's event-loop delay over the window. */
export function loopLine(before: Snapshots, after: Snapshots): string {
  return quantilesLine(before, after, LOOP_HISTOGRAM, 'timer firings');
}

function quantilesLine(before: Snapshots, after: Snapshots, name: string, what: string): string {
  const a = after[name];
  if (!a) return 'n/a';
  const b = before[name];
  return `p50 ${ms(quantileBetween(b, a, 0.5))}, p99 ${ms(quantileBetween(b, a, 0.99))} (${a.count - (b?.count ?? 0)} ${what})`;
}

/** `queue p50 <= 0.5 ms, p99 <= 3 ms (412 micro-batches); claim (Redis) ...` over the window. */
export function waitsLine(before: Snapshots, after: Snapshots): string {
  return Object.entries(WAIT_HISTOGRAMS)
    .map(([label, name]) => {
      const a = after[name];
      if (!a) return `${label} n/a`;
      const b = before[name];
      return `${label} p50 ${ms(quantileBetween(b, a, 0.5))}, p99 ${ms(quantileBetween(b, a, 0.99))} (${a.count - (b?.count ?? 0)} micro-batches)`;
    })
    .join('; ');
}
