-- Exact rollup of the events page's top users and source addresses (GET /api/v1/events/facets): over
-- 7 days, counting values row by row in `events` means hashing ten million strings per field.
-- Hour rows: one per (field, UTC hour of occurred_at, value, type, stored severity) with the exact
-- number of distinct event ids; empty values left out. Day rows: the same summed per UTC day (field
-- 'day:<field>', hour = midnight), so a 7-day range reads days, not hours. Written by the rollup job
-- (processors/src/store/rollup.ts) with `events_hourly`: an hour's rows with the run's `version`, then
-- its marker row (field '') with that version; a day's rows from its hours, then its marker ('day:').
-- Readers take an hour's (day's) rows of its marker's version only, no FINAL (a value gone from an hour
-- keeps its old row); a day only when its marker is as new as its hours' and none of them is pending.
-- Hours without a marker (not rolled up yet, or of a deleted host: this table has no hostname) are
-- read from `events` (api/src/queries/hourly.ts). No backfill here (a long INSERT would hold up the
-- migration on a large store): the rollup job fills the hours `events` already holds, newest first,
-- a chunk per run. Retention drops its daily partitions (toYYYYMMDD(hour)) with those of `events`.
CREATE TABLE IF NOT EXISTS events_hourly_values (
  field String,
  hour DateTime,
  value String,
  type String,
  severity String,
  events UInt64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMMDD(hour)
ORDER BY (field, hour, value, type, severity);
