// The `store` role: events.v1 -> ClickHouse `events`, in its own consumer group.
import type { RoleStarter } from '@watchpost/runtime';
import { agentKeyIdOf } from '@watchpost/schemas';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { consumerOptions } from '../kafka/consumer-options.ts';
import { DecodePool } from './decode-pool.ts';
import { CoalescingInserter } from './insert.ts';
import { startRetention } from './retention.ts';

/** The hourly rollup, run by the scheduler role. */
export { eventsRollupJob } from './scheduled.ts';

export const storeRole: RoleStarter = async ({ config, log, clients }) => {
  const ch = clients.clickhouse;
  const inserter = new CoalescingInserter(ch, { maxInFlight: 2 });
  const pool = new DecodePool(config.store.decodeThreads);
  const consumer = await startBatchConsumer({
    kafka: clients.kafka,
    ...consumerOptions(config, 'store'),
    topic: config.topics.events,
    log,
    // Decoded off the Kafka loop (decode-pool.ts); the consumer sends the poison ones to the DLQ.
    handleRaw: async (batch) => {
      const chunk = await pool.decode(
        batch.map((m) => m.value),
        batch.map((m) => agentKeyIdOf(m.headers) ?? 0),
      );
      await inserter.insertTsv(chunk.tsv);
      return { poison: chunk.poison };
    },
  });
  const retention = startRetention({
    ch,
    database: config.clickhouseDatabase,
    cluster: config.clickhouseCluster,
    retentionDays: config.retentionDays,
    log,
  });
  return {
    checks: { store_consumer: async () => consumer.healthy() },
    ready: { store_consumer: () => consumer.ready() },
    async close() {
      await retention.stop();
      await consumer.stop();
      await pool.close();
    },
  };
};
