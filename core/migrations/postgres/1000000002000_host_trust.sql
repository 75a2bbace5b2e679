-- Up Migration
-- Trust boundaries (issue 21). A host is bound to the agent that first spoke for it: its agent
-- instance (hosts.agent_instance_id, now never overwritten by a later event) and its agent key.
-- What remote actions rely on (addresses, fqdn, os_family, product) changes only when an admin
-- accepts it: a later event that differs, or another agent instance speaking for the host, leaves a
-- pending row in host_changes instead. The same table holds a WinRM certificate that differs from
-- the pinned one.
ALTER TABLE hosts ADD COLUMN bound_key_id bigint;
ALTER TABLE hosts ADD COLUMN bound_at timestamptz;
-- SHA-256 (hex, lower case) of the WinRM HTTPS certificate, pinned at the first admin-approved connection.
ALTER TABLE hosts ADD COLUMN winrm_cert_sha256 text;

CREATE TABLE host_changes (
  id bigserial PRIMARY KEY,
  host_id bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
  -- facts: the bound agent reports other addresses/fqdn/os_family/product;
  -- identity: another agent instance (or key) speaks for the host;
  -- winrm_certificate: the host's WinRM certificate differs from the pinned one (or none is pinned yet).
  kind text NOT NULL CHECK (kind IN ('facts', 'identity', 'winrm_certificate')),
  -- What accepting applies: any of os_family, product, fqdn, ipv4, internal_address,
  -- agent_instance_id, key_id (identity), cert_sha256 (winrm_certificate).
  proposed jsonb NOT NULL,
  -- The confirmed values at the time the change was first seen (for the UI's "from -> to").
  current jsonb NOT NULL DEFAULT '{}'::jsonb,
  agent_instance_id text,
  key_id bigint,
  event_id uuid,
  first_seen timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now(),
  seen_count integer NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
  decided_by text,
  decided_at timestamptz
);
-- One pending change per host and kind: a newer proposal replaces the older one.
CREATE UNIQUE INDEX host_changes_one_pending ON host_changes (host_id, kind) WHERE status = 'pending';
CREATE INDEX host_changes_pending ON host_changes (first_seen) WHERE status = 'pending';

-- Down Migration
DROP TABLE host_changes;
ALTER TABLE hosts DROP COLUMN winrm_cert_sha256;
ALTER TABLE hosts DROP COLUMN bound_at;
ALTER TABLE hosts DROP COLUMN bound_key_id;
