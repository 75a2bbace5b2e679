// The `correlate` role: events.v1 -> Postgres hosts/problems, in its own consumer group. One Postgres
// transaction per batch, which also stores the partition's position (exactly once: processor.ts); the
// batch consumer commits the Kafka offsets after it, as a hint where to resume.
import type { RoleStarter } from '@watchpost/runtime';
import { agentKeyIdOf } from '@watchpost/schemas';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { consumerOptions } from '../kafka/consumer-options.ts';
import { processBatch, type Clock } from './processor.ts';
import { consumerLag, recordBatch } from './metrics.ts';
import { startOutboxRelay } from './outbox.ts';
import type { CorrelateEnvelope } from './rules.ts';

/** The liveness scan, run by the scheduler role. */
export { livenessScanJob } from './scheduled.ts';

export const correlateRole: RoleStarter = async ({ config, log, clients }) => {
  const pool = clients.pg;
  const clock: Clock = () => new Date();
  // No kafkajs retries: a retried send of several leaders may skip some and still resolve
  // (tulios/kafkajs#1303, see ingest/src/kafka-sink.ts); the relay sends unsent rows again on its next round.
  const producer = clients.kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  await producer.connect();
  const relay = startOutboxRelay({
    pool,
    producer,
    topic: config.topics.problems,
    deadLetterTopic: config.topics.deadLetter,
    intervalMs: 1000,
    log,
  });
  const consumer = await startBatchConsumer({
    kafka: clients.kafka,
    ...consumerOptions(config, 'correlate'),
    topic: config.topics.events,
    log,
    async handle(batch) {
      if (batch.length === 0) return;
      const out = await processBatch(
        pool,
        // The verified agent key travels in a header (a message without it: key unknown).
        batch.map((m): CorrelateEnvelope => ({ ...(m.envelope as CorrelateEnvelope), agent_key_id: agentKeyIdOf(m.headers) })),
        {
          problemCorrelationWindowMinutes: config.problemCorrelationWindowMinutes,
          problemMinSeverity: config.problemMinSeverity,
          heartbeatDefaults: config.heartbeat.defaults,
        },
        clock,
        // One partition of one topic per call (the batch consumer's contract).
        {
          group: config.consumerGroups.correlate,
          topic: batch[0]!.topic,
          partition: batch[0]!.partition,
          offsets: batch.map((m) => m.offset),
        },
      );
      recordBatch(out, clock());
      if (out.opened.length > 0) relay.kick();
    },
  });
  const lagTimer = setInterval(() => {
    consumer.lag().then(
      (n) => consumerLag.set(n),
      () => {},
    );
  }, 10_000);
  return {
    checks: { correlate_consumer: async () => consumer.healthy() },
    ready: { correlate_consumer: () => consumer.ready() },
    async close() {
      clearInterval(lagTimer);
      await consumer.stop();
      await relay.stop();
      await producer.disconnect();
    },
  };
};
