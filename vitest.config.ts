import { defineConfig } from 'vitest/config';

// Integration tests share the local stack's servers; each test file uses its own database, topic and
// queue names. Two cores: keep parallelism modest so timing-sensitive tests stay honest.
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '.stack/**', 'web/e2e/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['ops/src/stack/test-setup.ts'],
  },
});
