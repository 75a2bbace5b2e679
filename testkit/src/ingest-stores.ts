// What ingest's integration tests build their ingest on: the test's own databases and topics
// (testConfig + createTestStores), a Redis client for the claims and a Kafka client for the events
// topic, opened together and closed together. The ingest itself (buildIngestApp, createIngest) stays in
// the test, with the options it is about; nothing of ingest is imported here.
import type { Kafka } from 'kafkajs';
import { createKafka, createRedis, type Config, type Redis } from '@watchpost/runtime';
import { topicReader } from './logger.ts';
import { createTestStores, testConfig, type TestStores } from './stores.ts';

export interface IngestStores {
  config: Config;
  stores: TestStores;
  redis: Redis;
  kafka: Kafka;
  /** Quits Redis and drops the stores; close the test's ingest first. */
  close(): Promise<void>;
}

/** `name` and `env` as for testConfig; `kafkaClientId` names the test's Kafka client. */
export async function openIngestStores(name: string, env: Record<string, string>, kafkaClientId: string): Promise<IngestStores> {
  const stores = await createTestStores(testConfig(name, env));
  const redis = createRedis(stores.config.redisUrl);
  return {
    config: stores.config,
    stores,
    redis,
    kafka: createKafka(stores.config.kafkaBrokers, kafkaClientId),
    async close() {
      await redis.quit();
      await stores.drop();
    },
  };
}

export interface IngestStoresReadingEvents extends IngestStores {
  /** Every message of the events topic from its start (topicReader): what the test's ingest produced. */
  events: Awaited<ReturnType<typeof topicReader>>;
}

/** openIngestStores with a reader of the events topic; `close` closes the reader first. */
export async function openIngestStoresReadingEvents(
  name: string,
  env: Record<string, string>,
  kafkaClientId: string,
): Promise<IngestStoresReadingEvents> {
  const s = await openIngestStores(name, env, kafkaClientId);
  const events = await topicReader(s.kafka, s.config.topics.events).catch(async (err: unknown) => {
    await s.close();
    throw err;
  });
  return {
    ...s,
    events,
    async close() {
      await events.close();
      await s.close();
    },
  };
}
