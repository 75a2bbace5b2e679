import type { Config } from '@watchpost/runtime';
import { createKafka, ensureTopics } from '@watchpost/runtime';

type TopicConfig = Pick<Config, 'topics' | 'kafkaPartitions' | 'kafkaReplicationFactor' | 'kafkaMinInsyncReplicas'>;

/**
 * The topics the service uses, created up front with the configured partition count and replication.
 * min.insync.replicas makes acks=all (ingest's producer) wait for that many copies. Topics that exist
 * are left as they are (changing replication is a partition reassignment, an operator's job).
 */
export function topicSpecs(config: TopicConfig) {
  const replicationFactor = config.kafkaReplicationFactor;
  const isr = { name: 'min.insync.replicas', value: String(config.kafkaMinInsyncReplicas) };
  const retention = { name: 'retention.ms', value: String(7 * 24 * 3600 * 1000) };
  return [
    { topic: config.topics.events, numPartitions: config.kafkaPartitions, replicationFactor, configEntries: [retention, isr] },
    {
      topic: config.topics.deadLetter,
      numPartitions: 1,
      replicationFactor,
      configEntries: [{ name: 'retention.ms', value: String(30 * 24 * 3600 * 1000) }, isr],
    },
    { topic: config.topics.problems, numPartitions: config.kafkaPartitions, replicationFactor, configEntries: [retention, isr] },
  ];
}

export async function migrateKafka(config: TopicConfig & Pick<Config, 'kafkaBrokers'>): Promise<void> {
  const admin = createKafka(config.kafkaBrokers, 'migrate').admin();
  await admin.connect();
  try {
    await ensureTopics(admin, topicSpecs(config));
  } finally {
    await admin.disconnect();
  }
}
