-- Up Migration
-- Issue 24: indexes for the retention sweep's new tables (core/src/retention.ts), so each chunk finds
-- its rows without scanning the table: timeline entries by receive time, resolved problems by
-- resolution time, finished agent commands by finish time.
CREATE INDEX IF NOT EXISTS problem_events_received_at_idx ON problem_events (received_at);
CREATE INDEX IF NOT EXISTS problems_resolved_at_idx ON problems (resolved_at) WHERE status = 'resolved';
CREATE INDEX IF NOT EXISTS agent_commands_finished_idx ON agent_commands (finished_at)
  WHERE status IN ('succeeded', 'failed', 'expired');

-- Down Migration
DROP INDEX IF EXISTS agent_commands_finished_idx;
DROP INDEX IF EXISTS problems_resolved_at_idx;
DROP INDEX IF EXISTS problem_events_received_at_idx;
