// What a notification channel is, said once per channel (api/NOTIFICATIONS.md, Channels): its settings
// body (JSON Schema: the API's body and, through FromSchema, the type), the stored form (secrets
// encrypted), the environment defaults, the effective configuration the deliver role sends with, the
// masked view, and where it can deliver (what the policy routes to). The sender is the deliver role's
// provider of the same name (processors/src/deliver/providers/); the form is web/src/components/notify/.
// The settings part (body, secrets, audit, view, save) is the one every feature's settings have
// (../../settings/section.ts); the rest is the channel's delivery.
import type { EnvReader, Pool } from '@watchpost/runtime';
import type { NotifyChannel } from '@watchpost/schemas';
import type { Crypt, SettingsPart, SettingsTypes } from '../../settings/section.ts';

export type { Crypt } from '../../settings/section.ts';
export { setOrDrop, type StoredOf } from '../../settings/section.ts';

/** What the policy tells a chosen channel about its trigger. */
export interface RouteContext {
  /** agent.lifecycle: the chat-routing attribute */
  routing?: string;
  /** The daily report's own recipients (SERVICE_DAILY_REPORT_RECIPIENTS); empty: the channel's. */
  recipients: string[];
}

/** One destination of a chosen channel: `chosen: false` with its reason when this trigger skips it. */
export interface RouteTo {
  destination: string;
  chosen: boolean;
  reason?: string;
}

/** The types one channel is made of: its settings' (body, stored `notify.<channel>` value, view) and its delivery's. */
export interface ChannelTypes extends SettingsTypes {
  defaults: { ratePerSecond: number };
  /** Secrets decrypted: the deliver role's only. */
  config: { enabled: boolean };
  /** No secrets: any role may route with it. */
  targets: { enabled: boolean };
}

export interface ChannelDescriptor<C extends NotifyChannel, T extends ChannelTypes> extends SettingsPart<T> {
  readonly channel: C;
  /** The environment's defaults (a saved value overrides each); a wrong value throws ConfigError. */
  defaults(env: EnvReader): T['defaults'];
  config(stored: T['stored'], defaults: T['defaults'], crypt: Crypt): T['config'];
  targets(stored: T['stored'], defaults: T['defaults'], pg: Pool): Promise<T['targets']>;
  /** Where the channel sends one trigger (it is enabled and chosen): its destinations, or why none. */
  routes(targets: T['targets'], ctx: RouteContext): RouteTo[] | string;
  /** Every destination of the configuration (test-send goes to each). */
  destinations(config: T['config']): string[];
  /** A destination as a monitor sees it (explanations); unset: as is. */
  maskDestination?(destination: string): string;
}

/** The SSRF guard's allow list of a channel that posts to URLs (chat, webhook). */
export const allowListSchema = {
  type: 'array',
  maxItems: 50,
  items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:/_-]+$' },
  description:
    'private addresses, CIDRs (inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7) or host names the ' +
    'SSRF guard lets through (private ranges are refused otherwise); loopback, link-local, metadata and any-address ranges ' +
    'only from the environment (NOTIFY_<CHANNEL>_ALLOW)',
} as const;

/** NOTIFY_<CHANNEL>_RATE_PER_SECOND: deliveries per second of the channel's queue. */
export function ratePerSecond(env: EnvReader, channel: NotifyChannel, def: number, max: number): number {
  return env.int(`NOTIFY_${channel.toUpperCase()}_RATE_PER_SECOND`, def, 1, max);
}
