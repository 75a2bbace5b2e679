-- Up Migration
-- Mobile devices (api/MOBILE.md). A device is enrolled with an admin-issued code; its session is a
-- refresh-token family (refresh_tokens.device_id), so device access tokens are checked per request
-- like a user's: revoking the device revokes its families, deleting it deletes them.
CREATE TABLE devices (
  id bigserial PRIMARY KEY,
  device_uuid uuid NOT NULL UNIQUE,
  name text NOT NULL,
  platform text NOT NULL,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  enrolled_at timestamptz NOT NULL DEFAULT now(),
  enroll_count integer NOT NULL DEFAULT 1,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by text
);

-- Single-use codes, stored as sha256 hex; shown once to the admin who issued them.
CREATE TABLE enrollment_codes (
  id bigserial PRIMARY KEY,
  code_hash text NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  device_id bigint REFERENCES devices (id) ON DELETE SET NULL
);

ALTER TABLE refresh_tokens ADD COLUMN device_id bigint REFERENCES devices (id) ON DELETE CASCADE;
CREATE INDEX refresh_tokens_device ON refresh_tokens (device_id) WHERE device_id IS NOT NULL;

-- Web Push subscriptions (endpoint + keys), many per device.
CREATE TABLE push_subscriptions (
  id bigserial PRIMARY KEY,
  device_id bigint NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  endpoint text NOT NULL UNIQUE,
  p256dh text NOT NULL,
  auth text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_device ON push_subscriptions (device_id);

-- Down Migration
DROP TABLE push_subscriptions;
DROP INDEX refresh_tokens_device;
ALTER TABLE refresh_tokens DROP COLUMN device_id;
DROP TABLE enrollment_codes;
DROP TABLE devices;
