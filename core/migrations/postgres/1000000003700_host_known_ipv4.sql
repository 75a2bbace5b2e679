-- Up Migration
-- Issue 31: a multi-homed host (an RD Gateway with a DMZ and a LAN leg) reports whichever address its
-- agent picks per event (Sac-Client.ps1 Get-SacHostBlock). The addresses an admin accepted before the
-- current one stay known: an event carrying one of them is no facts change.
ALTER TABLE hosts ADD COLUMN known_ipv4 text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE hosts DROP COLUMN known_ipv4;
