-- Up Migration
-- Issue 33: no credential goes to a host an admin has not confirmed. A host its first event creates is
-- unconfirmed (confirmed_at NULL) until an admin accepts its pending facts change (its addresses); the
-- actions worker connects with credentials only to a confirmed host. Hosts known before this migration
-- were accepted under the earlier rule (first event binds) and stay usable: they count as confirmed now.
ALTER TABLE hosts ADD COLUMN confirmed_at timestamptz, ADD COLUMN confirmed_by text;
UPDATE hosts SET confirmed_at = now(), confirmed_by = '(known before confirmation was required)';

-- Down Migration
ALTER TABLE hosts DROP COLUMN confirmed_at, DROP COLUMN confirmed_by;
