-- Exact hourly rollup for the dashboard summary (an insert-counting view would count an event twice
-- when the store processor re-inserts a batch after a crash).
-- `events_hourly`: one row per (UTC hour of occurred_at, type, stored severity, hostname) with the
-- exact number of distinct event ids, recomputed from `events` by the rollup job
-- (processors/src/store/rollup.ts, scheduler role). A recomputed hour is inserted with a higher
-- `version`; readers use FINAL. Retention drops its daily partitions (toYYYYMMDD(hour)) with those of
-- `events`; host deletion deletes from both.
CREATE TABLE IF NOT EXISTS events_hourly (
  hour DateTime,
  type String,
  severity String,
  hostname String,
  events UInt64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(hour)
ORDER BY (hour, type, severity, hostname);

-- Change log: every INSERT into `events` (store batches, replays included) records the hours it
-- touched and when. The rollup recomputes the hours logged since its last run; the dashboard reads
-- those hours (not yet rolled up) straight from `events`. Sorted by changed_at so both read a range.
CREATE TABLE IF NOT EXISTS events_changed_hours (
  changed_at DateTime,
  hour DateTime
) ENGINE = MergeTree
PARTITION BY toYYYYMMDD(changed_at)
ORDER BY (changed_at, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS events_changed_hours_mv TO events_changed_hours AS
SELECT now() AS changed_at, toStartOfHour(occurred_at, 'UTC') AS hour
FROM events
GROUP BY changed_at, hour;

-- Rollup progress: `watermark` = start of the last completed run minus the overlap; hours changed at
-- or after it may be stale in `events_hourly`.
CREATE TABLE IF NOT EXISTS events_hourly_state (
  id UInt8,
  watermark DateTime,
  run_at DateTime
) ENGINE = ReplacingMergeTree(run_at)
ORDER BY id;

-- Backfill what `events` holds now (the change log already records anything inserted from here on).
INSERT INTO events_hourly (hour, type, severity, hostname, events, version)
SELECT toStartOfHour(occurred_at, 'UTC') AS hour, type, severity, hostname, uniqExact(event_id) AS events, 0 AS version
FROM events
GROUP BY hour, type, severity, hostname;
