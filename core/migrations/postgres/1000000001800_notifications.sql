-- Up Migration
-- Notifications (api/NOTIFICATIONS.md). The policy and channel configuration live in `settings`
-- (keys notify.*). A decision is written only when a rule matched (an event below the minimum leaves
-- no row: explaining it recomputes the decision with the current policy).
CREATE TABLE notification_decisions (
  -- event:<event_id> | problem:<message_id> | report:<id> | lockout:<user>:<address>:<at> | test:<nonce>
  subject_key text PRIMARY KEY,
  subject_kind text NOT NULL,
  subject_id text NOT NULL,
  rule text NOT NULL,
  reason text NOT NULL,
  -- every channel considered: chosen or skipped, and why
  routes jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_decisions_subject ON notification_decisions (subject_kind, subject_id);
CREATE INDEX notification_decisions_created ON notification_decisions (created_at);

-- One row per (trigger, channel, destination); its id is the BullMQ job id.
CREATE TABLE notification_deliveries (
  id text PRIMARY KEY,
  subject_key text NOT NULL REFERENCES notification_decisions (subject_key) ON DELETE CASCADE,
  rule text NOT NULL,
  channel text NOT NULL,
  destination text NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  response text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX notification_deliveries_subject ON notification_deliveries (subject_key);
CREATE INDEX notification_deliveries_state ON notification_deliveries (state, updated_at);

-- The service's daily reports (one per local day and time zone).
CREATE TABLE daily_reports (
  id bigserial PRIMARY KEY,
  day date NOT NULL,
  timezone text NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  figures jsonb NOT NULL,
  html text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (day, timezone)
);

-- Down Migration
DROP TABLE daily_reports;
DROP TABLE notification_deliveries;
DROP TABLE notification_decisions;
