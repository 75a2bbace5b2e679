-- Up Migration
-- Correlate processor (issue 4): hosts, problems and their timeline, the processed-events ledger and
-- the problems outbox. Everything an event changes is written in ONE transaction together with its
-- processed_events row, so a replayed event changes nothing.

-- One row per agent host, keyed by hostname (the Kafka key). Deleting a row through the API is allowed:
-- the host reappears on its next event. Problems keep the hostname as text, so history survives.
CREATE TABLE hosts (
  id bigserial PRIMARY KEY,
  hostname text NOT NULL UNIQUE,
  display_name text,
  os_family text NOT NULL,
  os_version text,
  fqdn text,
  ipv4 text,
  ipv6 text,
  timezone text,
  product text NOT NULL,
  product_version text NOT NULL,
  agent_instance_id text,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  -- Service receive time of the last agent.heartbeat or report.daily.* event (agents' clocks drift).
  last_heartbeat timestamptz,
  status text NOT NULL DEFAULT 'online' CHECK (status IN ('online', 'stale')),
  status_changed_at timestamptz,
  ssh_admin_ok boolean NOT NULL DEFAULT false,
  -- The address gateway (RD Gateway) sessions name as their target; maps a session to this Windows
  -- host. Filled from details.internal_address of agent.inventory when sent, else from host.ipv4.
  internal_address text,
  inventory_hardware jsonb,
  inventory_software jsonb,
  inventory_at timestamptz
);
CREATE INDEX hosts_internal_address_idx ON hosts (internal_address);
CREATE INDEX hosts_liveness_idx ON hosts (status, last_heartbeat);

CREATE TABLE problems (
  -- Deterministic UUID derived from the event (or scan) that opened it: a replay or a restart after
  -- kill -9 produces the very same id.
  id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
  fingerprint text NOT NULL,
  host text NOT NULL,
  type text NOT NULL,
  rule text NOT NULL,
  title text NOT NULL,
  severity text NOT NULL CHECK (severity IN ('info', 'warning', 'high', 'critical')),
  count integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  acknowledged_at timestamptz,
  acknowledged_by text,
  resolved_at timestamptz,
  resolved_by text CHECK (resolved_by IN ('manual', 'auto')),
  resolved_by_user text,
  reopened_count integer NOT NULL DEFAULT 0,
  rdg_flap boolean NOT NULL DEFAULT false,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
);
-- At most one live (open or acknowledged) problem per fingerprint.
CREATE UNIQUE INDEX problems_live_fingerprint_uq ON problems (fingerprint) WHERE status IN ('open', 'acknowledged');
CREATE INDEX problems_host_type_idx ON problems (host, type, created_at DESC);
CREATE INDEX problems_status_created_idx ON problems (status, created_at DESC);

-- Timeline: the events that belong to a problem.
CREATE TABLE problem_events (
  problem_id uuid NOT NULL REFERENCES problems (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  type text NOT NULL,
  severity text NOT NULL,
  title text NOT NULL,
  PRIMARY KEY (problem_id, event_id)
);
CREATE INDEX problem_events_event_idx ON problem_events (event_id);

-- Gateway connects (code 302) waiting for their disconnect (303), per host and session.
CREATE TABLE rdg_sessions (
  host text NOT NULL,
  session_id text NOT NULL,
  connect_event_id uuid NOT NULL,
  connect_occurred_at timestamptz NOT NULL,
  connect_received_at timestamptz NOT NULL,
  connect_type text NOT NULL,
  connect_severity text NOT NULL,
  connect_title text NOT NULL,
  PRIMARY KEY (host, session_id)
);

-- Both events of every flap pair, so the events list can badge the 302 and the 303 by event_id.
CREATE TABLE rdg_flap_events (
  event_id uuid PRIMARY KEY,
  problem_id uuid NOT NULL REFERENCES problems (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('connect', 'disconnect')),
  partner_event_id uuid NOT NULL,
  session_id text NOT NULL
);

-- Idempotency ledger: written in the same transaction as the event's effects.
CREATE TABLE processed_events (
  event_id uuid PRIMARY KEY,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- Transactional outbox for "problem opened" messages on Kafka problems.v1. A row is written in the
-- transaction that opens (or reopens) the problem; the relay produces it and sets sent_at.
-- message_id is deterministic; consumers dedupe by it (or by problem_id for kind problem.opened).
CREATE TABLE problem_outbox (
  id bigserial PRIMARY KEY,
  message_id text NOT NULL UNIQUE,
  problem_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('problem.opened', 'problem.reopened')),
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX problem_outbox_unsent_idx ON problem_outbox (id) WHERE sent_at IS NULL;

-- Down Migration
DROP TABLE problem_outbox;
DROP TABLE processed_events;
DROP TABLE rdg_flap_events;
DROP TABLE rdg_sessions;
DROP TABLE problem_events;
DROP TABLE problems;
DROP TABLE hosts;
