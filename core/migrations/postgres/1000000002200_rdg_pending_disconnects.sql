-- Up Migration
-- RD Gateway pairing by the events' own times (issue 22): after an outage the Windows agent re-sends its
-- spool newest first, so a disconnect (303) may arrive before its connect (302). Such a disconnect waits
-- here, per host and pairing key, until its connect arrives (processors/src/correlate/rules/rdg-flap.ts).
CREATE TABLE rdg_pending_disconnects (
  host text NOT NULL,
  session_id text NOT NULL,
  disconnect_event_id uuid NOT NULL,
  disconnect_occurred_at timestamptz NOT NULL,
  disconnect_received_at timestamptz NOT NULL,
  disconnect_type text NOT NULL,
  disconnect_severity text NOT NULL,
  disconnect_title text NOT NULL,
  PRIMARY KEY (host, session_id)
);

COMMENT ON COLUMN rdg_sessions.session_id IS
  'Pairing key: the agent''s session id, or "user|resource|client" (lower case) when the agent sends none';
COMMENT ON COLUMN rdg_pending_disconnects.session_id IS
  'Pairing key: the agent''s session id, or "user|resource|client" (lower case) when the agent sends none';
COMMENT ON COLUMN rdg_flap_events.session_id IS
  'Pairing key of the pair: the agent''s session id, or "user|resource|client" (lower case)';

-- Down Migration
DROP TABLE rdg_pending_disconnects;
COMMENT ON COLUMN rdg_sessions.session_id IS NULL;
COMMENT ON COLUMN rdg_flap_events.session_id IS NULL;
