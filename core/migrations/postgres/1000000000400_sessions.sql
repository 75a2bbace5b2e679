-- Up Migration
-- A session is a refresh-token family: when it started bounds its absolute lifetime
-- (SERVICE_SESSION_MAX_DAYS), and access tokens name it (claim `sid`) so that logout ends them at once.
ALTER TABLE refresh_tokens ADD COLUMN session_started_at timestamptz;
UPDATE refresh_tokens r SET session_started_at = f.started
  FROM (SELECT family_id, min(created_at) AS started FROM refresh_tokens GROUP BY family_id) f
 WHERE r.family_id = f.family_id;
ALTER TABLE refresh_tokens ALTER COLUMN session_started_at SET NOT NULL, ALTER COLUMN session_started_at SET DEFAULT now();
CREATE INDEX refresh_tokens_live_family ON refresh_tokens (family_id) WHERE revoked_at IS NULL;

-- Down Migration
DROP INDEX IF EXISTS refresh_tokens_live_family;
ALTER TABLE refresh_tokens DROP COLUMN IF EXISTS session_started_at;
