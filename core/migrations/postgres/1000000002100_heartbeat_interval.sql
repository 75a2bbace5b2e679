-- Up Migration
-- Liveness per agent kind (issue 22): the interval between a host's consecutive liveness events
-- (agent.heartbeat, report.daily.*), learned by correlate as a moving average bounded to [1 min, 48 h].
-- NULL until a second liveness event: the product's default interval applies (core/src/hosts/status.ts).
ALTER TABLE hosts ADD COLUMN heartbeat_interval_seconds integer;

-- Down Migration
ALTER TABLE hosts DROP COLUMN heartbeat_interval_seconds;
