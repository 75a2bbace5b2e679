-- Up Migration
-- Key/value settings edited in the UI; database values override environment defaults.
CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);

-- Down Migration
DROP TABLE settings;
