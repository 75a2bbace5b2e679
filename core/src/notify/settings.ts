// The notification policy and channel configuration (spec: Other records). Stored in `settings` under
// notify.*; each database value overrides its environment default (NOTIFY_*, SMTP_*). What each channel
// stores, shows and needs is its descriptor's (./channels/); this file reads and writes the rows.
// Secrets are encrypted with the service's secrets key (../actions/secrets.ts) and never returned:
// views say only whether one is set.
import type { NotifyConfig, Pool } from '@watchpost/runtime';
import { NOTIFY_CHANNELS, SEVERITIES, type NotifyChannel, type Severity } from '@watchpost/schemas';
import { auditableInput, settingsCrypt, type Crypt } from '../settings/section.ts';
import { writeSetting } from '../settings/store.ts';
import type { NotifyPolicy } from './policy.ts';
import {
  channelDefaults,
  descriptorOf,
  perChannel,
  perChannelAsync,
  type ChannelConfigs,
  type ChannelTargets,
  type ChannelTypesOf,
  type PerChannel,
} from './channels/index.ts';

export const NOTIFY_POLICY_KEY = 'notify.policy';
export const channelKey = (c: NotifyChannel) => `notify.${c}`;

/** The settings body of channel C (fields left out keep their value). */
export type ChannelInput<C extends NotifyChannel> = ChannelTypesOf<C>['body'];

interface StoredPolicy {
  min_severity?: Severity;
  channels?: NotifyChannel[];
}

async function readSettings(pg: Pool, keys: string[]): Promise<Map<string, unknown>> {
  const r = await pg.query<{ key: string; value: unknown }>('SELECT key, value FROM settings WHERE key = ANY($1)', [keys]);
  return new Map(r.rows.map((x) => [x.key, x.value]));
}

async function readStored(pg: Pool): Promise<PerChannel<'stored'>> {
  const m = await readSettings(pg, NOTIFY_CHANNELS.map(channelKey));
  return perChannel<'stored'>((c) => (m.get(channelKey(c)) as ChannelTypesOf<typeof c>['stored'] | undefined) ?? {});
}

/** A channel's secrets bound to their place (channel and field): a ciphertext moved elsewhere does not decrypt. */
function channelCrypt(key: Buffer, c: NotifyChannel): Crypt {
  return settingsCrypt(key, (field) => `${channelKey(c)}:${field}`);
}

export async function loadPolicy(pg: Pool, env: NotifyConfig): Promise<NotifyPolicy & { source: 'database' | 'environment' }> {
  const db = (await readSettings(pg, [NOTIFY_POLICY_KEY])).get(NOTIFY_POLICY_KEY) as StoredPolicy | undefined;
  return {
    minSeverity: db?.min_severity ?? env.minSeverity,
    channels: db?.channels ?? env.channels,
    source: db ? 'database' : 'environment',
  };
}

export async function savePolicy(pg: Pool, policy: NotifyPolicy, by: string): Promise<void> {
  if (!SEVERITIES.includes(policy.minSeverity)) throw new Error(`unknown severity ${policy.minSeverity}`);
  await writeSetting(pg, NOTIFY_POLICY_KEY, { min_severity: policy.minSeverity, channels: [...new Set(policy.channels)] }, by);
}

/** Every channel's effective configuration, secrets decrypted (delivery workers only). */
export async function loadChannelConfigs(pg: Pool, notify: NotifyConfig, key: Buffer): Promise<ChannelConfigs> {
  const [s, env] = [await readStored(pg), channelDefaults(notify)];
  return perChannel<'config'>((c) => descriptorOf(c).config(s[c], env[c], channelCrypt(key, c)));
}

/** What the policy needs to route (no secrets, nothing decrypted: any role can load it). */
export async function loadChannelTargets(pg: Pool, notify: NotifyConfig): Promise<ChannelTargets> {
  const [s, env] = [await readStored(pg), channelDefaults(notify)];
  return perChannelAsync<'targets'>((c) => descriptorOf(c).targets(s[c], env[c], pg));
}

/** What the API shows: secrets masked (only whether set). */
export async function channelConfigView<C extends NotifyChannel>(
  pg: Pool,
  notify: NotifyConfig,
  channel: C,
): Promise<ChannelTypesOf<C>['view']> {
  const s = await readStored(pg);
  return descriptorOf(channel).view(s[channel], channelDefaults(notify)[channel]);
}

/** Fields left out keep their stored value. Throws Error with a readable message on an invalid value. */
export async function saveChannelConfig<C extends NotifyChannel>(
  pg: Pool,
  key: Buffer,
  notify: NotifyConfig,
  channel: C,
  input: ChannelInput<C>,
  by: string,
): Promise<void> {
  const s = await readStored(pg);
  const next = descriptorOf(channel).save(s[channel], input, channelDefaults(notify)[channel], channelCrypt(key, channel));
  await writeSetting(pg, channelKey(channel), next, by);
}

/** A settings body as the audit log keeps it: secrets only as "set" or "removed" (../settings/section.ts). */
export function auditableChannelInput<C extends NotifyChannel>(channel: C, input: ChannelInput<C>): Record<string, unknown> {
  return auditableInput(descriptorOf(channel), input);
}
