-- Up Migration
-- Correlate at the speed of ingest (issue 11): exactly once without a per-event ledger. The consumer's
-- position is stored in the same transaction as the effects of the events before it; Kafka's committed
-- offset is then only a hint where to start reading, and messages below the stored position are
-- skipped. Postgres grows only by what users read (hosts, problems, timelines).
-- processed_events (the per-event ledger, ~90 bytes per event) is no longer written; the retention
-- sweep empties it (SERVICE_LEDGER_RETENTION_HOURS) and a later migration can drop it with the sweep.
CREATE TABLE consumer_offsets (
  consumer_group text NOT NULL,
  topic text NOT NULL,
  partition integer NOT NULL,
  -- The next offset to apply (every message below it has been applied).
  next_offset bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_group, topic, partition)
);

-- Down Migration
DROP TABLE consumer_offsets;
