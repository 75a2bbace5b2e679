// The options every Kafka consumer role takes from config, in one place: a role spreads them into
// startBatchConsumer and adds only its inputs and its handler. A group in CONSUMER_GROUP_BASES without
// a line in BATCH here does not compile.
import type { Config, ConsumerGroupKey } from '@watchpost/runtime';
import type { BatchConsumerOptions } from './batch-consumer.ts';

export type ConsumerOptions = Required<
  Pick<
    BatchConsumerOptions,
    'groupId' | 'name' | 'deadLetterTopic' | 'maxBatchSize' | 'maxBatchMs' | 'maxBatchBytes' | 'sessionTimeoutMs'
  >
>;

/** Each group's batch bounds (size, linger). */
const BATCH: Record<ConsumerGroupKey, (config: Config) => Pick<ConsumerOptions, 'maxBatchSize' | 'maxBatchMs'>> = {
  store: (c) => ({ maxBatchSize: c.store.batchSize, maxBatchMs: c.store.batchMs }),
  correlate: (c) => ({ maxBatchSize: c.correlate.batchSize, maxBatchMs: c.correlate.batchMs }),
  stream: (c) => ({ maxBatchSize: c.stream.batchSize, maxBatchMs: c.stream.batchMs }),
  // Decisions should leave within milliseconds of the fetch; batches stay small.
  notify: () => ({ maxBatchSize: 1000, maxBatchMs: 20 }),
};

/** The group's id, metrics name and dead-letter topic, its batch bounds, and the settings every group shares. */
export function consumerOptions(config: Config, group: ConsumerGroupKey): ConsumerOptions {
  return {
    groupId: config.consumerGroups[group],
    name: group,
    deadLetterTopic: config.topics.deadLetter,
    ...BATCH[group](config),
    maxBatchBytes: config.consumerBatchMaxBytes,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
  };
}
