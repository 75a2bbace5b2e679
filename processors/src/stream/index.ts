// The `stream` role: live dashboard counters on Redis pub/sub (config.stream.channel, `live.v1`).
//   events.v1   -> consumer group `watchpost-stream` (shared batch consumer), one `events` message
//                  per batch with the increments by severity (within STREAM_BATCH_MS of the fetch).
//   problems.v1 -> the same consumer (second input, starting at the end), one `problems` message per
//                  new or reopened problem (deduplicated by message_id).
//   hosts       -> polls Postgres every HOSTS_POLL_MS and publishes status changes (core's liveness rule).
// The API's SSE endpoint forwards every message to its clients.
import { counter, type RoleStarter } from '@watchpost/runtime';
import type { EventEnvelope, HostStatus } from '@watchpost/schemas';
import { loadHostStatuses } from '@watchpost/core/hosts';
import { typeSettingsCache } from '@watchpost/core/type-settings';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { consumerOptions } from '../kafka/consumer-options.ts';
import { countEvents, hostChanges, problemMessage, RecentIds } from './messages.ts';

const HOSTS_POLL_MS = 1000;

const published = counter('watchpost_stream_published_total', 'Live messages published on Redis', ['kind']);

export const streamRole: RoleStarter = async ({ config, log, clients }) => {
  const redis = clients.redis;
  const pool = clients.pg;
  const rules = typeSettingsCache(pool);
  const channel = config.stream.channel;
  const publish = async (m: { kind: string }) => {
    await redis.publish(channel, JSON.stringify(m));
    published.inc({ kind: m.kind });
  };

  const seen = new RecentIds();
  // One consumer group on both inputs; a batch holds one topic-partition, so each handler sees one kind.
  const consumer = await startBatchConsumer<EventEnvelope | Buffer>({
    kafka: clients.kafka,
    ...consumerOptions(config, 'stream'),
    inputs: [
      { topic: config.topics.events },
      {
        topic: config.topics.problems,
        // Live only: a new group starts at the end, never replays old problems to dashboards.
        fromBeginning: false,
        // Not problem messages are skipped by problemMessage() (nothing to dead-letter for a live view).
        decode: (value) => ({ ok: true, value: value ?? Buffer.alloc(0) }),
      },
    ],
    log,
    async handle(batch) {
      const ts = await rules();
      if (batch[0]?.topic === config.topics.problems) {
        for (const b of batch) {
          const m = problemMessage(b.envelope as Buffer, ts);
          if (m && (!m.message_id || seen.add(m.message_id))) await publish(m);
        }
        return;
      }
      const m = countEvents(
        batch.map((b) => b.envelope as EventEnvelope),
        ts,
        new Date(),
      );
      if (m) await publish(m);
    },
  });

  let hosts: Map<string, HostStatus> | null = null;
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const next = await loadHostStatuses(pool, config.heartbeat);
      if (hosts) for (const m of hostChanges(hosts, next, new Date())) await publish(m);
      hosts = next;
    } catch (err) {
      log.warn({ err }, 'host status poll failed');
    } finally {
      polling = false;
    }
  };
  await poll();
  const timer = setInterval(() => void poll(), HOSTS_POLL_MS);

  return {
    checks: { stream_consumer: async () => consumer.healthy() },
    ready: { stream_consumer: () => consumer.ready() },
    async close() {
      clearInterval(timer);
      await consumer.stop();
    },
  };
};
