-- Up Migration
-- Issue 23: an operator's optional message on acknowledge and on resolve (shown in the problem's
-- timeline; at most 1000 characters, checked by the API too). The audit log keeps every act with its
-- message; these columns hold the current acknowledgement's and resolution's. A host_silence reopen
-- clears acknowledged_at/resolved_at: the API shows a message only next to its timestamp.
ALTER TABLE problems ADD COLUMN acknowledged_message text CHECK (char_length(acknowledged_message) <= 1000);
ALTER TABLE problems ADD COLUMN resolved_message text CHECK (char_length(resolved_message) <= 1000);
-- The list sorts by last_seen (newest or oldest first).
CREATE INDEX problems_last_seen_idx ON problems (last_seen DESC);

-- Down Migration
DROP INDEX problems_last_seen_idx;
ALTER TABLE problems DROP COLUMN resolved_message;
ALTER TABLE problems DROP COLUMN acknowledged_message;
