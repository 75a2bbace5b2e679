// Test and bench helpers on the real servers of the local stack. Heavier parts have their own entry:
// '@watchpost/testkit/api' (API harness, SSE client, read fixtures), '@watchpost/testkit/correlate',
// '@watchpost/testkit/chdb' (ClickHouse in-process).
export * from './stores.ts';
export { assertTestName } from './names.ts';
export * from './envelopes.ts';
export * from './qwinsta-fixtures.ts';
export * from './kafka.ts';
export * from './logger.ts';
export * from './tcp-proxy.ts';
export * from './redis-server.ts';
export * from './redis-sentinel.ts';
export * from './postgres-server.ts';
export * from './bench-events.ts';
export { sampleEvent } from '@watchpost/schemas/fixtures';
export * from './agent-fixtures.ts';
export * from './ssh-monitor-mail.ts';
export * from './tls-cert.ts';
export * from './kafka-cluster.ts';
export * from './clickhouse-server.ts';
export * from './outage-load.ts';
export * from './ports.ts';
export * from './roles-app.ts';
export * from './crash-child.ts';
export * from './events-topic.ts';
export * from './ingest-stores.ts';
