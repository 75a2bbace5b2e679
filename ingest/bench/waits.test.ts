import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import {
  LOOP_HISTOGRAM,
  loopLine,
  quantileBetween,
  REQUEST_HISTOGRAM,
  requestLine,
  snapshotHistograms,
  timeEventLoop,
  timeRequests,
  waitsLine,
} from './waits.ts';

const BUCKETS = [0.001, 0.002, 0.005, 0.01];

describe('the paced window breakdown from histograms', () => {
  it('takes quantiles of what was observed between two snapshots only', async () => {
    const registry = new Registry();
    const h = new Histogram({ name: 'ingest_claim_seconds', help: 'h', buckets: BUCKETS, registers: [registry] });
    // Before the window: slow calls that must not count.
    for (let i = 0; i < 50; i++) h.observe(0.009);
    const before = await snapshotHistograms(registry, ['ingest_claim_seconds', 'absent']);
    expect(Object.keys(before)).toEqual(['ingest_claim_seconds']);
    for (let i = 0; i < 98; i++) h.observe(0.0008);
    h.observe(0.004);
    h.observe(0.02); // past the last bound
    const after = await snapshotHistograms(registry, ['ingest_claim_seconds']);
    const [b, a] = [before.ingest_claim_seconds, after.ingest_claim_seconds!];
    expect(quantileBetween(b, a, 0.5)).toBe(0.001);
    expect(quantileBetween(b, a, 0.99)).toBe(0.005);
    expect(quantileBetween(b, a, 1)).toBe(Infinity);
    // Without the first snapshot the 50 slow calls count.
    expect(quantileBetween(undefined, a, 0.9)).toBe(0.01);
    expect(quantileBetween(a, a, 0.5)).toBeUndefined();
    expect(waitsLine(before, after)).toBe(
      'queue n/a; claim (Redis) p50 <= 1 ms, p99 <= 5 ms (100 micro-batches); send (Kafka) n/a',
    );
  });

  it("times a server's requests from their headers to their answer", async () => {
    const registry = new Registry();
    // One answer comes at once, the other after the server waited 30 ms.
    const server = createServer((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('late'), 30);
      else res.end('now');
    });
    timeRequests(server, registry);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const before = await snapshotHistograms(registry, [REQUEST_HISTOGRAM]);
      expect(await (await fetch(`${url}/slow`)).text()).toBe('late');
      expect(await (await fetch(`${url}/`)).text()).toBe('now');
      const after = await snapshotHistograms(registry, [REQUEST_HISTOGRAM]);
      expect(after[REQUEST_HISTOGRAM]!.count - before[REQUEST_HISTOGRAM]!.count).toBe(2);
      // The slow one fell in the 30 ms bucket or later, never earlier.
      expect(quantileBetween(before[REQUEST_HISTOGRAM], after[REQUEST_HISTOGRAM]!, 1)).toBeGreaterThanOrEqual(0.03);
      expect(requestLine(before, after)).toMatch(/^p50 <= [0-9.]+ ms, p99 <= [0-9.]+ ms \(2 requests\)$/);
      expect(requestLine(before, {})).toBe('n/a');
    } finally {
      server.close();
    }
  });

  it("measures the event loop's delay: a turn that holds the loop 40 ms is seen late by about that much", async () => {
    const registry = new Registry();
    const stop = timeEventLoop(registry);
    try {
      const firings = async () => (await snapshotHistograms(registry, [LOOP_HISTOGRAM]))[LOOP_HISTOGRAM]!.count;
      const turns = (n: number) => new Promise<void>((resolve) => setTimeout(resolve, n));
      while ((await firings()) < 5) await turns(2);
      const before = await snapshotHistograms(registry, [LOOP_HISTOGRAM]);
      const until = performance.now() + 40;
      while (performance.now() < until); // the loop held
      while ((await firings()) < before[LOOP_HISTOGRAM]!.count + 3) await turns(2);
      const after = await snapshotHistograms(registry, [LOOP_HISTOGRAM]);
      // The firing after the held turn came at least 30 ms late (the 30 ms bucket or later, never earlier).
      expect(quantileBetween(before[LOOP_HISTOGRAM], after[LOOP_HISTOGRAM]!, 1)).toBeGreaterThanOrEqual(0.03);
      expect(loopLine(before, after)).toMatch(/^p50 <= [\d.]+ ms, p99 <= [\d.]+ ms \(\d+ timer firings\)$/);
      expect(loopLine(before, {})).toBe('n/a');
    } finally {
      stop();
    }
  });
});
