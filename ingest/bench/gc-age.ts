// How long must an object live before V8 promotes it? (issue 36, "Eighth round" in ingest/README.md)
// `node ingest/bench/gc-age.ts [holds ms, default 0,5,30,300]`: for each hold, a child process takes 8,000
// "requests" per second for 6 s, each allocating ~20 KB of garbage and holding a ~2 KB object graph for
// that long (what a request holds while it waits for Redis and Kafka), under V8's --trace-gc-nvp; prints
// the bytes its scavenges promoted against those allocated. It checks the premise that ingest's
// promotion is what its requests in flight hold when a scavenge comes: an object is only promoted when it
// survives two scavenges, so holds of milliseconds promote nothing and only holds near the scavenge
// interval (~250 ms under this load) do.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseGcLine } from './gc.ts';

const RATE = 8000;
const SECONDS = 6;

function child(holdMs: number): void {
  const end = Date.now() + SECONDS * 1000;
  const request = () => {
    const held = { items: Array.from({ length: 50 }, (_, i) => ({ i, s: `x${i}` })) };
    // Garbage that dies within the request's own turn, as most of a request's allocations do.
    let sink = 0;
    for (let k = 0; k < 40; k++) sink += new Array<number>(60).fill(k).length;
    setTimeout(() => void (held.items.length + sink), holdMs);
  };
  const tick = setInterval(() => {
    for (let i = 0; i < RATE / 100; i++) request();
    if (Date.now() > end) clearInterval(tick);
  }, 10);
}

if (process.argv[2] === '--child') child(Number(process.argv[3]));
else {
  const holds = (process.argv[2] ?? '0,5,30,300').split(',').map(Number);
  for (const hold of holds) {
    const run = spawnSync(process.execPath, ['--trace-gc-nvp', fileURLToPath(import.meta.url), '--child', String(hold)], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const scavenges = run.stdout
      .split('\n')
      .map(parseGcLine)
      .filter((r) => r?.kind === 'scavenge');
    const allocated = scavenges.reduce((a, r) => a + r!.allocated, 0);
    const promoted = scavenges.reduce((a, r) => a + r!.promoted, 0);
    console.log(
      `hold ${hold} ms: ${scavenges.length} scavenges, allocated ${(allocated / 1e6).toFixed(1)} MB, promoted ${(promoted / 1e6).toFixed(2)} MB (${((100 * promoted) / Math.max(1, allocated)).toFixed(2)} %); load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
}
