// The `stream` role: live dashboard counters on Redis pub/sub (config.stream.channel, `live.v1`).
//   events.v1   -> own consumer group `watchpost-stream` (shared batch consumer), one `events` message
//                  per batch with the increments by severity (within STREAM_BATCH_MS of the fetch).
//   problems.v1 -> consumer group `watchpost-stream-problems`, one `problems` message per new or
//                  reopened problem (deduplicated by message_id).
//   hosts       -> polls Postgres every HOSTS_POLL_MS and publishes status changes (same liveness rule
//                  as the API and the correlate liveness scan).
// The API's SSE endpoint forwards every message to its clients.
import type { Pool } from 'pg';
import type { Consumer } from 'kafkajs';
import { counter, type RoleStarter } from '@watchpost/runtime';
import { startBatchConsumer } from '../kafka/batch-consumer.ts';
import { consumerGroupId } from '../kafka/groups.ts';
import { countEvents, hostChanges, NO_RULES, problemMessage, RecentIds, type HostStatus, type TypeRules } from './messages.ts';

export const STREAM_GROUP = 'watchpost-stream';
export const STREAM_PROBLEMS_GROUP = 'watchpost-stream-problems';
const SETTINGS_TTL_MS = 5000;
const HOSTS_POLL_MS = 1000;

const published = counter('watchpost_stream_published_total', 'Live messages published on Redis', ['kind']);

/** Per-type settings, re-read at most every few seconds (the table belongs to the API migrations). */
export function typeRulesCache(pool: Pool, ttlMs = SETTINGS_TTL_MS): () => Promise<TypeRules> {
  let cached: TypeRules = NO_RULES;
  let loadedAt = 0;
  return async () => {
    if (Date.now() - loadedAt < ttlMs) return cached;
    const exists = await pool.query<{ t: string | null }>(`SELECT to_regclass('event_type_settings')::text AS t`);
    if (exists.rows[0]?.t) {
      const r = await pool.query<{ type: string; severity_override: string | null; visible: boolean }>(
        'SELECT type, severity_override, visible FROM event_type_settings WHERE severity_override IS NOT NULL OR visible = false',
      );
      cached = {
        overrides: new Map(r.rows.filter((x) => x.severity_override).map((x) => [x.type, x.severity_override!])),
        hidden: new Set(r.rows.filter((x) => !x.visible).map((x) => x.type)),
      };
    }
    loadedAt = Date.now();
    return cached;
  };
}

export async function hostStatuses(pool: Pool, staleMinutes: number): Promise<Map<string, HostStatus>> {
  const r = await pool.query<{ hostname: string; status: HostStatus }>(
    `SELECT hostname, CASE WHEN COALESCE(last_heartbeat, first_seen) >= now() - make_interval(mins => $1::int) THEN 'online' ELSE 'stale' END AS status
       FROM hosts`,
    [staleMinutes],
  );
  return new Map(r.rows.map((x) => [x.hostname, x.status]));
}

export const streamRole: RoleStarter = async ({ config, log, clients }) => {
  const redis = clients.redis;
  const pool = clients.pg;
  const rules = typeRulesCache(pool);
  const channel = config.stream.channel;
  const publish = async (m: { kind: string }) => {
    await redis.publish(channel, JSON.stringify(m));
    published.inc({ kind: m.kind });
  };

  const events = await startBatchConsumer({
    kafka: clients.kafka,
    groupId: consumerGroupId(config, STREAM_GROUP),
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
    groupId: consumerGroupId(config, STREAM_PROBLEMS_GROUP),
    allowAutoTopicCreation: false,
  });
  await problems.connect();
  await problems.subscribe({ topic: config.topics.problems, fromBeginning: false });
  await problems.run({
    eachMessage: async ({ message }) => {
      const m = problemMessage(message.value, await rules());
      if (m && (m.message_id === '' || seen.add(m.message_id))) await publish(m);
    },
  });

  let hosts: Map<string, HostStatus> | null = null;
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const next = await hostStatuses(pool, config.heartbeatStaleMinutes);
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
