-- Up Migration
-- Indexes for the retention sweep (role scheduler, job `postgres-retention`): every table that grew
-- forever is pruned by age.
CREATE INDEX IF NOT EXISTS processed_events_processed_at_idx ON processed_events (processed_at);
CREATE INDEX IF NOT EXISTS problem_outbox_sent_at_idx ON problem_outbox (sent_at) WHERE sent_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS audit_log_at_idx ON audit_log (at);
CREATE INDEX IF NOT EXISTS refresh_tokens_expires_at_idx ON refresh_tokens (expires_at);

-- Down Migration
DROP INDEX IF EXISTS refresh_tokens_expires_at_idx;
DROP INDEX IF EXISTS audit_log_at_idx;
DROP INDEX IF EXISTS problem_outbox_sent_at_idx;
DROP INDEX IF EXISTS processed_events_processed_at_idx;
