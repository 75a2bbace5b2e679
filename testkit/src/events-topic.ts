// The test's events topic: envelopes produced onto it as ingest writes them, and where a consumer group
// stands on it (Kafka admin API), what the crash, replay and hostile-input tests wait on until a role has
// drained the topic.
import type { Admin } from 'kafkajs';
import { createKafka, type Config } from '@watchpost/runtime';
import { encodeEnvelope, type EventEnvelope } from '@watchpost/schemas';
import { produce } from './kafka.ts';

/** Envelopes onto the events topic as ingest writes them: keyed by hostname, encoded (acks from all replicas). */
export function produceEvents(config: Config, envelopes: readonly EventEnvelope[]): Promise<void> {
  return produce(
    config,
    config.topics.events,
    envelopes.map((e) => ({ key: e.event.host.hostname, value: encodeEnvelope(e) })),
  );
}

/** An admin client connected for one question and disconnected after it, also when it throws. */
export async function withKafkaAdmin<T>(config: Config, clientId: string, ask: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = createKafka(config.kafkaBrokers, clientId).admin();
  await admin.connect();
  try {
    return await ask(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Messages in the events topic: its partitions' end offsets, summed. More than the events produced when the
 * (not idempotent) test producer appended a retried chunk twice.
 */
export function eventsTopicEnd(config: Config): Promise<number> {
  return withKafkaAdmin(config, 'test-end', async (admin) => {
    const ends = await admin.fetchTopicOffsets(config.topics.events);
    return ends.reduce((sum, p) => sum + Number(p.high), 0);
  });
}

/** Messages of the events topic the group has not committed yet (a partition it never committed: all of it). */
export function eventsGroupLag(config: Config, groupId: string): Promise<number> {
  return withKafkaAdmin(config, 'test-lag', async (admin) => {
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(config.topics.events),
      admin.fetchOffsets({ groupId, topics: [config.topics.events] }),
    ]);
    const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((s, p) => s + Math.max(0, Number(p.high) - Math.max(0, done.get(p.partition) ?? 0)), 0);
  });
}

/** The offsets the group committed on the events topic, summed (a partition it never committed counts 0). */
export function eventsCommitted(config: Config, groupId: string): Promise<number> {
  return withKafkaAdmin(config, 'test-admin', async (admin) => {
    const [t] = await admin.fetchOffsets({ groupId, topics: [config.topics.events] });
    return (t?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  });
}
