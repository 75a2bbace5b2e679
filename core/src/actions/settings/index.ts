// Remote-action settings edited in the UI (table `settings`), each field overriding its environment
// default (spec: authentication rule 6). One section per file (../../settings/section.ts): its schemas,
// secrets, audit, defaults, view and save; the API mounts every one of REMOTE_ACCESS_SECTIONS as
// GET/PUT /settings/<path> (api/src/routes/settings/mount.ts). A new remote-access setting is its section
// here, listed below, and its form in web/src/components/remote-access/.
import type { AnySettingsSection } from '../../settings/section.ts';
import { sshSection } from './ssh.ts';
import { targetNetworksSection } from './target-networks.ts';
import { winrmSection } from './winrm.ts';

/** In the order the API mounts them (the OpenAPI document's order). */
export const REMOTE_ACCESS_SECTIONS: readonly AnySettingsSection[] = [winrmSection, targetNetworksSection, sshSection];

export * from './winrm.ts';
export * from './ssh.ts';
export * from './target-networks.ts';
export * from './agent-updates.ts';
