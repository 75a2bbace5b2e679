-- Up Migration
-- API users. Usernames are stored lower-case. password_hash is `scrypt$N$r$p$salt$hash`.
-- token_version is a claim of every access token; bumping it (password reset) refuses older tokens.
CREATE TABLE users (
  id bigserial PRIMARY KEY,
  username text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9][a-z0-9._@-]{0,63}$'),
  role text NOT NULL CHECK (role IN ('admin', 'monitor')),
  active boolean NOT NULL DEFAULT true,
  password_hash text NOT NULL,
  token_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Opaque refresh tokens, stored as sha256 hex. Each use marks the row used and issues the next one in
-- the same family; presenting a used token again revokes the whole family.
CREATE TABLE refresh_tokens (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  family_id uuid NOT NULL,
  token_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor text,
  address text,
  action text NOT NULL,
  target text,
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_action ON audit_log (action, id);

-- Per event type: severity override (applied at read time by the API, and by correlate when deciding
-- whether an event opens/extends a problem) and visibility (false hides the type from lists and counts).
CREATE TABLE event_type_settings (
  type text PRIMARY KEY,
  severity_override text NULL CHECK (severity_override IN ('info', 'warning', 'high', 'critical')),
  visible boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);

-- Down Migration
DROP TABLE event_type_settings;
DROP TABLE audit_log;
DROP TABLE refresh_tokens;
DROP TABLE users;
