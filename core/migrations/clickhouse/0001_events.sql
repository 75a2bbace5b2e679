-- One row per event. ReplacingMergeTree collapses a redelivered event (same sorting key, same
-- partition: both derive from the event and its ingest receive time, which travels in the Kafka
-- message). Exact reads use FINAL or uniqExact(event_id). Retention drops whole daily partitions.
-- Sorted by UTC hour first: dashboards and lists read recent hours across all hosts, and a host's
-- rows within an hour stay together. Queries bound that hour expression too (the index only prunes
-- on the exact expression on 18.16): runtime/src/clickhouse/events-table.ts.
CREATE TABLE IF NOT EXISTS events (
  event_id String,
  occurred_at DateTime,
  received_at DateTime,
  hostname String,
  display_name String,
  os_family String,
  product String,
  product_version String,
  category String,
  type String,
  severity String,
  title String,
  summary String,
  tags Array(String),
  dedup_key String,
  correlation_id String,
  fingerprint String,
  actor_user String,
  source_ip String,
  event_json String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMMDD(received_at)
ORDER BY (toStartOfHour(occurred_at, 'UTC'), hostname, occurred_at, event_id)
