// The gate's closing lines (vitest.config.ts): the 15 slowest files with their times, so the next person
// who makes `npm test` slower sees where, and every test that needed the fault project's one retry under a
// "flaky" heading. A retry keeps a run green once; it is a defect to fix, never a place to hide one.
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = 15;

export default class GateReport implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out: string[] = [];
    const files = modules
      .map((m) => ({ file: m.relativeModuleId, project: m.project.name, ms: m.diagnostic().duration, ok: m.ok() }))
      .sort((a, b) => b.ms - a.ms);
    out.push(
      '',
      `Slowest ${Math.min(SLOWEST, files.length)} of ${files.length} test files (time in the file's tests and hooks):`,
    );
    for (const f of files.slice(0, SLOWEST))
      out.push(
        `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${(f.project || '-').padEnd(6)} ${f.file}${f.ok ? '' : '  (failed)'}`,
      );

    const flaky: string[] = [];
    for (const m of modules)
      for (const t of m.children.allTests()) {
        const d = t.diagnostic();
        if (d && d.retryCount > 0)
          flaky.push(`  ${m.relativeModuleId} > ${t.fullName} (${t.result().state} after ${d.retryCount} retry)`);
      }
    out.push('', `flaky (passed only on a retry, or failed its retry too): ${flaky.length === 0 ? 'none' : ''}`, ...flaky, '');
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
