-- Agent clocks (core/src/events/window-time.ts): `occurred_at` is the window time, the agent's own
-- time while plausible, else the receive time; what the agent sent is kept here and in event_json, and
-- `clock_skewed` says the two differ. Rows written before this migration had occurred_at = the agent's
-- time, which their default reads back.
ALTER TABLE events ADD COLUMN agent_occurred_at DateTime DEFAULT occurred_at AFTER received_at;
ALTER TABLE events ADD COLUMN clock_skewed UInt8 DEFAULT 0 AFTER agent_occurred_at;
