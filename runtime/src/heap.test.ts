// The collector setting of runtime/src/heap.ts, in a process of its own (V8 flags are per process): Buffers
// that die young no longer start full mark-compacts, and a heap with Buffers that outlive their
// scavenges is still collected (its memory stays bounded).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const heap = fileURLToPath(new URL('./heap.ts', import.meta.url));

/** Runs `body` in a child after applyHeapSettings({externalInGlobalLimit}); returns its majors and peak RSS. */
function run(externalInGlobalLimit: boolean, body: string): { majors: number; rssMb: number } {
  const script = `import { applyHeapSettings } from ${JSON.stringify(heap)};
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    applyHeapSettings({ externalInGlobalLimit: ${externalInGlobalLimit} });
    let majors = 0;
    const obs = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    });
    obs.observe({ entryTypes: ['gc'] });
    let rss = 0;
    ${body}
    setTimeout(() => { obs.disconnect(); console.log(JSON.stringify({ majors, rssMb: rss / 1048576 })); }, 50);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { majors: number; rssMb: number };
}

// 2 GB of 1 MB Buffers, each dropped a few allocations later (as a request body or a Kafka fetch is).
const youngBuffers = `const keep = [];
  for (let i = 0; i < 2000; i++) {
    keep.push(Buffer.allocUnsafe(1 << 20).fill(i & 255));
    if (keep.length > 16) keep.shift();
  }
  rss = process.memoryUsage().rss;`;

it('lets Buffers that die young go without a full mark-compact each time', () => {
  const without = run(false, youngBuffers);
  const withFlag = run(true, youngBuffers);
  // V8's default: a mark-compact for every fixed amount of external memory allocated (25 here, 3 with the flag).
  expect(without.majors, JSON.stringify({ without, withFlag })).toBeGreaterThanOrEqual(10);
  expect(withFlag.majors * 3, JSON.stringify({ without, withFlag })).toBeLessThanOrEqual(without.majors);
});

it('still collects Buffers that outlived their scavenges: memory stays bounded', () => {
  // 3 GB of 1 MB Buffers each held across ~200 allocations (promoted with the objects that hold them);
  // at most ~200 MB are live at once. Without any collection the process would reach 3 GB; here it peaks
  // at ~1.5 GB after 6 mark-compacts (0.4 GB and 33 without the flag): the price of fewer collections.
  const promoted = `const keep = [];
    for (let i = 0; i < 3000; i++) {
      keep.push({ b: Buffer.alloc(1 << 20, i & 255), pad: new Array(200).fill(i) });
      if (keep.length > 200) keep.shift();
      if (i % 50 === 0) rss = Math.max(rss, process.memoryUsage().rss);
    }`;
  const r = run(true, promoted);
  expect(r.majors, JSON.stringify(r)).toBeGreaterThanOrEqual(2);
  expect(r.rssMb, JSON.stringify(r)).toBeLessThan(2560);
});
