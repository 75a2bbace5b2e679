-- Provenance (issue 33): the id of the agent key ingest verified for the event (the events.v1 message's
-- wp-agent-key header), 0 when unknown (rows stored before this column, or a message without the
-- header). With the agent instance in event_json, the API judges an event against its host's binding
-- (core/src/hosts/provenance.ts) before a gateway or terminate action acts on it.
ALTER TABLE events ADD COLUMN agent_key_id UInt32 DEFAULT 0 AFTER source_ip;
