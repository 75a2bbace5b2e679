-- Up Migration
-- Remote actions (api/ACTIONS.md): one row per action a person (or the service) started on a managed
-- host, written by the API when it enqueues the job and completed by the `actions` worker. Kept when the
-- host is deleted (history), hence no foreign key.
CREATE TABLE actions (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  host_id bigint,
  hostname text,
  actor text NOT NULL,
  address text,
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  result jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  duration_ms integer
);
CREATE INDEX actions_host_idx ON actions (host_id, id DESC);
CREATE INDEX actions_created_idx ON actions (created_at DESC);

-- SSH host key pinned at the first successful connection (trust on first use); a different key later is
-- refused until an admin clears it. Hex sha256 of the raw public key blob.
ALTER TABLE hosts ADD COLUMN ssh_host_key_sha256 text;
ALTER TABLE hosts ADD COLUMN ssh_admin_checked_at timestamptz;

-- Commands waiting for an agent's poll (ingest, GET /api/v1/agent/poll) and their results.
CREATE TABLE agent_commands (
  id bigserial PRIMARY KEY,
  hostname text NOT NULL,
  kind text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'succeeded', 'failed', 'expired')),
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  finished_at timestamptz,
  result jsonb,
  action_id bigint
);
CREATE INDEX agent_commands_pending_idx ON agent_commands (hostname, id) WHERE status IN ('pending', 'delivered');

-- Self-updates the agent poll delivered (ingest): one row per host and offered version. When the host
-- still reports an older version SERVICE_AGENT_UPDATE_FALLBACK_MINUTES after the first offer, the actions
-- worker starts the SSH (Linux) or WinRM (Windows) update itself and records its action here.
CREATE TABLE agent_update_offers (
  hostname text NOT NULL,
  version text NOT NULL,
  offered_at timestamptz NOT NULL DEFAULT now(),
  last_offered_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  fallback_action_id bigint,
  PRIMARY KEY (hostname, version)
);
CREATE INDEX agent_update_offers_open_idx ON agent_update_offers (offered_at) WHERE done_at IS NULL AND fallback_action_id IS NULL;

-- Windows agent bundles: the zip of the update repository at its branch (git archive) plus a VERSION
-- file, built by the actions worker and served by the API over short-lived signed URLs.
CREATE TABLE agent_bundles (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  git_url text NOT NULL,
  branch text NOT NULL,
  commit text NOT NULL,
  version text NOT NULL,
  sha256 text NOT NULL,
  size integer NOT NULL,
  zip bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, git_url, branch, commit)
);

-- Down Migration
DROP TABLE agent_bundles;
DROP TABLE agent_update_offers;
DROP TABLE agent_commands;
ALTER TABLE hosts DROP COLUMN ssh_admin_checked_at;
ALTER TABLE hosts DROP COLUMN ssh_host_key_sha256;
DROP TABLE actions;
