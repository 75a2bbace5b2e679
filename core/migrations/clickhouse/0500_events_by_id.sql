-- One event by id (GET /events/{id}): `events` is sorted by hour and host, so finding an id there
-- means reading every event_id of the retention period. This narrow table is sorted by event_id and
-- filled by a materialized view on every insert into `events`: the API reads the event's hour and host
-- here, then its row from `events` by the primary key. Repeats collapse as in `events` (lookups take
-- any one). Same daily partitions (day of received_at), so retention drops them together; host
-- deletion deletes from it too.
CREATE TABLE IF NOT EXISTS events_by_id (
  event_id String,
  occurred_at DateTime,
  received_at DateTime,
  hostname String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMMDD(received_at)
ORDER BY event_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS events_by_id_mv TO events_by_id AS
SELECT event_id, occurred_at, received_at, hostname FROM events;

-- What `events` holds now (rows inserted meanwhile may arrive twice: they collapse).
INSERT INTO events_by_id (event_id, occurred_at, received_at, hostname)
SELECT event_id, occurred_at, received_at, hostname FROM events;
