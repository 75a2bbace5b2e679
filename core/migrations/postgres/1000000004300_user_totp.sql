-- Up Migration
-- Issue 33 item 8: a second factor (TOTP, RFC 6238) per user, and recovery codes.
-- totp_secret_enc: the base32 secret, AES-256-GCM with the secrets key (core/src/actions/secrets.ts), bound
--   to the user by its aad: set by the start of an enrolment, active once totp_enabled_at is set.
-- totp_last_step: the highest time step a code was accepted for; a code is only accepted for a later
--   step, so a code once used (or any older one) is refused (RFC 6238 section 5.2).
ALTER TABLE users
  ADD COLUMN totp_secret_enc text,
  ADD COLUMN totp_enabled_at timestamptz,
  ADD COLUMN totp_last_step bigint,
  ADD CONSTRAINT users_totp_enabled_has_secret CHECK (totp_enabled_at IS NULL OR totp_secret_enc IS NOT NULL);

-- Single-use recovery codes (120 random bits each, so a SHA-256 hex is enough: ASVS 5.0 6.5.2), shown
-- once at enrolment. They go with the second factor (disabled or reset) and with the user.
CREATE TABLE user_recovery_codes (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz,
  UNIQUE (user_id, code_hash)
);

-- Down Migration
DROP TABLE user_recovery_codes;
ALTER TABLE users
  DROP CONSTRAINT users_totp_enabled_has_secret,
  DROP COLUMN totp_last_step,
  DROP COLUMN totp_enabled_at,
  DROP COLUMN totp_secret_enc;
