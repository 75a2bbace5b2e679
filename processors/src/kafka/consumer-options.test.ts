import { expect, it } from 'vitest';
import { CONSUMER_GROUP_BASES, loadConfig, type ConsumerGroupKey } from '@watchpost/runtime';
import { consumerOptions } from './consumer-options.ts';

const groups = Object.keys(CONSUMER_GROUP_BASES) as ConsumerGroupKey[];

it.each(groups)('group %s takes the session timeout and the batch byte bound from config', (group) => {
  const config = loadConfig({ KAFKA_SESSION_TIMEOUT_MS: '45000', CONSUMER_BATCH_MAX_BYTES: String(2 * 1024 * 1024) });
  const o = consumerOptions(config, group);
  expect(o.sessionTimeoutMs).toBe(45_000);
  expect(o.maxBatchBytes).toBe(2 * 1024 * 1024);
  expect(o.groupId).toBe(config.consumerGroups[group]);
  expect(o.name).toBe(group);
  expect(o.deadLetterTopic).toBe(config.topics.deadLetter);
});

it('each group keeps its own batch bounds', () => {
  const config = loadConfig({
    STORE_BATCH_SIZE: '11',
    STORE_BATCH_MS: '12',
    CORRELATE_BATCH_SIZE: '21',
    CORRELATE_BATCH_MS: '22',
    STREAM_BATCH_SIZE: '31',
    STREAM_BATCH_MS: '32',
  });
  const bounds = Object.fromEntries(
    groups.map((g) => [g, [consumerOptions(config, g).maxBatchSize, consumerOptions(config, g).maxBatchMs]]),
  );
  expect(bounds).toEqual({ store: [11, 12], correlate: [21, 22], stream: [31, 32], notify: [1000, 20] });
});
