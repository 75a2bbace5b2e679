import type { Config } from '@watchpost/runtime';
import { createKafka, ensureTopics } from '@watchpost/runtime';

/** The topics the service uses, created up front with the configured partition count. */
export function topicSpecs(config: Pick<Config, 'topics' | 'kafkaPartitions'>) {
  const retention = { name: 'retention.ms', value: String(7 * 24 * 3600 * 1000) };
  return [
    { topic: config.topics.events, numPartitions: config.kafkaPartitions, replicationFactor: 1, configEntries: [retention] },
    {
      topic: config.topics.deadLetter,
      numPartitions: 1,
      replicationFactor: 1,
      configEntries: [{ name: 'retention.ms', value: String(30 * 24 * 3600 * 1000) }],
    },
    { topic: config.topics.problems, numPartitions: config.kafkaPartitions, replicationFactor: 1, configEntries: [retention] },
  ];
}

export async function migrateKafka(config: Pick<Config, 'topics' | 'kafkaPartitions' | 'kafkaBrokers'>): Promise<void> {
  const admin = createKafka(config.kafkaBrokers, 'migrate').admin();
  await admin.connect();
  try {
    await ensureTopics(admin, topicSpecs(config));
  } finally {
    await admin.disconnect();
  }
}
