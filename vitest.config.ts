import { defineConfig } from 'vitest/config';

// Integration tests share the local stack's servers; each test file uses its own database, topic and
// queue names. Two projects, so that the tests which take the machine for themselves cannot starve the
// rest nor be starved by it:
// - `main`: every other file, two at a time on the shared stack.
// - `fault`: the kill -9, pause, crash and Kafka cluster tests (they start servers of their own or kill
//   processes on purpose and time what follows) and the browser tests (Chromium beside two workers
//   misses its waits); one file at a time, after `main` has finished. A failed test there is retried once,
//   as Apache Kafka's CI does, and the run lists it under "flaky" (ops/src/test-report.ts): a test that
//   needed its retry is a defect to fix, one that fails twice fails the run.
const FAULT = [
  'ops/src/outage-*.int.test.ts',
  'ops/src/kafka-cluster.int.test.ts',
  'ops/src/pause.int.test.ts',
  'ops/src/web-e2e/**/*.test.ts',
  'processors/src/**/*crash*.int.test.ts',
  'processors/src/correlate/scale-out.int.test.ts',
];
const EXCLUDE = ['**/node_modules/**', '.stack/**', 'web/e2e/**'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['ops/src/stack/test-setup.ts'],
    reporters: ['default', './ops/src/test-report.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['**/*.test.ts'],
          exclude: [...EXCLUDE, ...FAULT],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'fault', include: FAULT, exclude: EXCLUDE, fileParallelism: false, retry: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
