// Silences kafkajs's one-time notice about its v2 default partitioner; we use the default (murmur2, Java-compatible).
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs';

export { Kafka };

export function createKafka(brokers: string[], clientId: string): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
  });
}

/** Creates topics that are missing (never relies on broker auto-create). */
export async function ensureTopics(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.topic));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({ topics: missing, waitForLeaders: true });
  } catch (err) {
    // Another process may have created them between list and create.
    if (!(err instanceof Error) || !/already exists/i.test(err.message)) throw err;
  }
}
