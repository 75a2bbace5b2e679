-- Up Migration
-- Issue 22: a Windows session action (qwinsta, logoff) runs over WinRM or, when WinRM is not configured
-- or not reachable, through the host's bound rdp-login-monitor agent (its command poll). The action says
-- which; agent_commands.action_id (already there) links the commands an action queued for the agent.
ALTER TABLE actions ADD COLUMN transport text CHECK (transport IN ('winrm', 'agent'));
UPDATE actions SET transport = 'winrm' WHERE kind LIKE 'winrm.%';
CREATE INDEX actions_agent_open_idx ON actions (id) WHERE transport = 'agent' AND status IN ('queued', 'running');
CREATE INDEX agent_commands_action_idx ON agent_commands (action_id, id) WHERE action_id IS NOT NULL;

-- Down Migration
DROP INDEX agent_commands_action_idx;
DROP INDEX actions_agent_open_idx;
ALTER TABLE actions DROP COLUMN transport;
