// The API under test: a harness on the real stores, an SSE client, and the read-side fixture dataset.
export * from './api-harness.ts';
export * from './sse.ts';
export * from './reads-fixtures.ts';
// Processors the API's tests and bench run beside the API (the stream role, the hourly rollup).
export { ROLLUP_OVERLAP_SECONDS, runHourlyRollup, streamRole } from '@watchpost/processors';
export * from './host-changes.ts';
