-- Up Migration
-- Issue 24: a Redis back without its data has lost the queued BullMQ jobs. What a job carries is kept
-- beside its row, so that the requeue sweep (processors/src/scheduler/requeue.ts) can put a job back
-- with the same id: a notification's subject on its decision (the deliveries' jobs share it) and an
-- action's job (without its id, which is the row's) on the action.
ALTER TABLE notification_decisions ADD COLUMN subject jsonb;
ALTER TABLE actions ADD COLUMN job jsonb;
CREATE INDEX actions_queued_idx ON actions (created_at) WHERE status = 'queued';

-- Down Migration
DROP INDEX actions_queued_idx;
ALTER TABLE actions DROP COLUMN job;
ALTER TABLE notification_decisions DROP COLUMN subject;
