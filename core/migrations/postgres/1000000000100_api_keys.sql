-- Up Migration
-- Agent API keys. Only the sha256 of a key is stored; `prefix` (its first characters) identifies
-- a key in lists without revealing it. Revoked keys stay for the record.
CREATE TABLE api_keys (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_name_idx ON api_keys (name);

-- Down Migration
DROP TABLE api_keys;
