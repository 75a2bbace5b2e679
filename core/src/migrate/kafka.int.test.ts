// Topic creation against the real (one-broker) Kafka of the stack: replication and
// min.insync.replicas come from the settings, and a factor the cluster cannot hold is refused.
import { afterAll, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { createKafka } from '@watchpost/runtime';
import { testConfig } from '@watchpost/testkit';
import { migrateKafka, topicSpecs } from './kafka.ts';

const config = testConfig('kafka_topics');
const admin = createKafka(config.kafkaBrokers, 'kafka-topics-test').admin();
await admin.connect();
afterAll(async () => {
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(config.topicPrefix));
  if (mine.length) await admin.deleteTopics({ topics: mine });
  await admin.disconnect();
});

it('creates each topic with the configured replication and min.insync.replicas', async () => {
  await migrateKafka(config);
  const meta = await admin.fetchTopicMetadata({ topics: Object.values(config.topics) });
  for (const t of meta.topics) for (const p of t.partitions) expect(p.replicas, t.name).toHaveLength(1);
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: Object.values(config.topics).map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name })),
  });
  for (const r of described.resources)
    expect(r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue, r.resourceName).toBe('1');
});

it('asks for 3 replicas with min.insync.replicas 2 on a cluster, and the one-broker stack refuses 2 replicas', async () => {
  const cluster = { ...config, kafkaReplicationFactor: 3, kafkaMinInsyncReplicas: 2 };
  for (const s of topicSpecs(cluster)) {
    expect(s.replicationFactor).toBe(3);
    expect(s.configEntries).toContainEqual({ name: 'min.insync.replicas', value: '2' });
  }
  const other = testConfig('kafka_topics_rf');
  const rf2 = { ...other, kafkaReplicationFactor: 2, kafkaMinInsyncReplicas: 1, topics: { ...other.topics } };
  await expect(migrateKafka(rf2)).rejects.toThrow(/could not create Kafka topics: .*events\.v1: INVALID_REPLICATION_FACTOR/);
});
