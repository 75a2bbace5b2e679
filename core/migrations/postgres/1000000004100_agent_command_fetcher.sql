-- Up Migration
-- Issue 33: a command's result is taken only from the agent that fetched it. The poll that delivers a
-- command records who fetched it: the agent key and agent instance of the poll (the hostname is the
-- command's own: a poll takes only its host's commands), and a random delivery handle, the id the Windows
-- agent's poll hands out in place of the command id. That agent's result names nothing but this id (no
-- host, no instance), so knowing the handle is what shows it comes from the fetcher. Commands delivered
-- before this migration have no fetcher: their results are refused (an action's command expires after
-- 10 minutes; an admin's command is delivered again, and bound then).
ALTER TABLE agent_commands
  ADD COLUMN delivered_key_id bigint,
  ADD COLUMN delivered_instance_id text,
  ADD COLUMN delivery_handle bigint;
CREATE UNIQUE INDEX agent_commands_delivery_handle_idx ON agent_commands (delivery_handle) WHERE delivery_handle IS NOT NULL;

-- Down Migration
DROP INDEX agent_commands_delivery_handle_idx;
ALTER TABLE agent_commands DROP COLUMN delivery_handle, DROP COLUMN delivered_instance_id, DROP COLUMN delivered_key_id;
