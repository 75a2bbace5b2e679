-- Up Migration
-- Windows agent bundles now hold what the agent's own deploy path takes (issue 22): the repository at
-- the commit with a UTF-8 BOM on every PowerShell file and version.txt, run on the host through
-- Deploy-LoginMonitor.ps1 -SourceShareRoot. Bundles built before (a VERSION file, no BOMs, install.ps1)
-- are a cache keyed by commit that would otherwise be served again: dropped, rebuilt on the next update.
-- `source` says where `version` was read (version.txt, Login_Monitor.ps1, ssh-monitor or tag).
DELETE FROM agent_bundles;
ALTER TABLE agent_bundles ADD COLUMN source text;

-- Down Migration
ALTER TABLE agent_bundles DROP COLUMN source;
