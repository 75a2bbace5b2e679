-- Up Migration
-- Issue 31: a 303 the gateway timed at 1-10 s (the Windows agent's details.session_duration_sec) is a
-- flap of its own, without a connect (the agent sends no repeated 302 within 90 s): its badge row has no
-- partner.
ALTER TABLE rdg_flap_events ALTER COLUMN partner_event_id DROP NOT NULL;

-- Down Migration
DELETE FROM rdg_flap_events WHERE partner_event_id IS NULL;
ALTER TABLE rdg_flap_events ALTER COLUMN partner_event_id SET NOT NULL;
