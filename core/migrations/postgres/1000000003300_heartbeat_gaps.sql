-- Up Migration
-- Issue 31: a host's heartbeat interval is learned from agent.heartbeat to agent.heartbeat only, from
-- several gaps that agree (core/src/hosts/heartbeats.ts). The intervals learned before came from any
-- liveness event, a single gap at a time (a fresh Windows install: heartbeat, then its daily report 4 s
-- later, learned as 60 s and paged 8 minutes on): they are dropped, and the product default applies
-- until each host's heartbeats show its interval again.
ALTER TABLE hosts ADD COLUMN last_beat_at timestamptz;
ALTER TABLE hosts ADD COLUMN beat_gaps integer[] NOT NULL DEFAULT '{}';
UPDATE hosts SET heartbeat_interval_seconds = NULL WHERE heartbeat_interval_seconds IS NOT NULL;

-- Down Migration
ALTER TABLE hosts DROP COLUMN beat_gaps;
ALTER TABLE hosts DROP COLUMN last_beat_at;
