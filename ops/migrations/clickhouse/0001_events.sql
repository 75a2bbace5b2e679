-- One row per event. ReplacingMergeTree collapses a redelivered event (same sorting key, same
-- partition: both derive from the event and its ingest receive time, which travels in the Kafka
-- message). Exact reads use FINAL or uniqExact(event_id). Retention drops whole daily partitions.
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
ORDER BY (hostname, occurred_at, event_id)
