// The `stream` role: live dashboard counters on Redis pub/sub (config.stream.channel, `live.v1`).
//   events.v1   -> own consumer group `watchpost-stream` (shared batch consumer), one `events` message
//                  per batch with the increments by severity (within STREAM_BATCH_MS of the fetch).
//   problems.v1 -> consumer group `watchpost-stream-problems`, one `problems` message per new or
//                  reopened problem (deduplicated by message_id).
//   hosts       -> polls Postgres every HOSTS_POLL_MS and publishes status changes (core's liveness rule).
// The API's SSE endpoint forwards every message to its clients.
import type { Consumer } from 'kafkajs';
import { counter, type RoleStarter } from '@watchpost/runtime';
import type { HostStatus } from '@watchpost/schemas';
import { loadHostStatuses, typeSettingsCache } from '@watchpost/core';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
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

  const events = await startBatchConsumer({
    kafka: clients.kafka,
    groupId: config.consumerGroups.stream,
    topic: config.topics.events,
    deadLetterTopic: config.topics.deadLetter,
    name: 'stream',
    maxBatchSize: config.stream.batchSize,
    maxBatchMs: config.stream.batchMs,
    log,
    async handle(batch) {
      const m = countEvents(
        batch.map((b) => b.envelope),
        await rules(),
        new Date(),
      );
      if (m) await publish(m);
    },
  });

  const seen = new RecentIds();
  const problems: Consumer = clients.kafka.consumer({
    groupId: config.consumerGroups.streamProblems,
    allowAutoTopicCreation: false,
  });
  await problems.connect();
  await problems.subscribe({ topic: config.topics.problems, fromBeginning: false });
  await problems.run({
    eachMessage: async ({ message }) => {
      const m = problemMessage(message.value, await rules());
      if (m && (!m.message_id || seen.add(m.message_id))) await publish(m);
    },
  });

  let hosts: Map<string, HostStatus> | null = null;
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const next = await loadHostStatuses(pool, config.heartbeatStaleMinutes);
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
    checks: { stream_consumer: async () => events.healthy() },
    async close() {
      clearInterval(timer);
      await events.stop();
      await problems.disconnect();
    },
  };
};
