// The consume loop's metrics (watchpost_consumer_*), labelled by consumer name: shared by the loop,
// its partition writers and its group supervisor.
import { counter, gauge, histogram } from '@watchpost/runtime';

export const lagGauge = gauge('watchpost_consumer_lag', 'Messages not yet committed by the consumer group, per partition', [
  'consumer',
  'group',
  'partition',
]);
export const batchSize = histogram(
  'watchpost_consumer_batch_size',
  'Messages per handled batch',
  ['consumer'],
  [1, 10, 100, 500, 1000, 2500, 5000, 10000, 25000, 50000],
);
export const handleSeconds = histogram(
  'watchpost_consumer_handle_seconds',
  'Time handle() took per batch (the sink write)',
  ['consumer'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);
export const handleFailures = counter(
  'watchpost_consumer_handle_failures_total',
  'handle() attempts that threw (retried with backoff)',
  ['consumer'],
);
export const transientFailures = counter(
  'watchpost_consumer_transient_failures_total',
  'handle() attempts that failed with a transient error (dependency away, deadlock, timeout): never dead-lettered',
  ['consumer'],
);
export const splits = counter(
  'watchpost_consumer_isolation_splits_total',
  'Batches split to isolate a message that fails deterministically',
  ['consumer'],
);
export const consumedTotal = counter('watchpost_consumer_messages_total', 'Messages handled and committed', ['consumer']);
export const deadLetters = counter('watchpost_consumer_dead_letters_total', 'Messages sent to the dead-letter topic', [
  'consumer',
]);
export const isolated = counter(
  'watchpost_consumer_isolated_total',
  'Messages dead-lettered because writing them failed deterministically (isolated by splitting the batch)',
  ['consumer'],
);

export const recreations = counter(
  'watchpost_consumer_recreations_total',
  'Kafka consumers recreated with fresh connections: crashed and not restarted by kafkajs, or no progress with lag',
  ['consumer', 'reason'],
);
