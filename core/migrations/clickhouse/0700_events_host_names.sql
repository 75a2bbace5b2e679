-- Display names per host and UTC hour of occurred_at, for the hostname filter of the events page
-- (api/src/queries/events.ts, resolveHostFilter: "Office PC 4*" finds the hosts shown so): finding them
-- in `events` means reading every display_name of the range (10 M rows over 7 days). A few rows per
-- host and hour, filled by a materialized view on every insert into `events`; repeats collapse.
-- Retention drops its daily partitions (toYYYYMMDD(hour)) with those of `events`; host deletion deletes
-- from it too.
CREATE TABLE IF NOT EXISTS events_host_names (
  hour DateTime,
  hostname String,
  display_name String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(hour)
ORDER BY (hour, hostname, display_name);

CREATE MATERIALIZED VIEW IF NOT EXISTS events_host_names_mv TO events_host_names AS
SELECT toStartOfHour(occurred_at, 'UTC') AS hour, hostname, display_name
FROM events
GROUP BY hour, hostname, display_name;

-- What `events` holds now (three narrow columns; rows inserted meanwhile may arrive twice: they collapse).
INSERT INTO events_host_names (hour, hostname, display_name)
SELECT toStartOfHour(occurred_at, 'UTC') AS hour, hostname, display_name
FROM events
GROUP BY hour, hostname, display_name;
