// Every notification channel's descriptor, keyed by the channel names of schemas (NOTIFY_CHANNELS): a
// name without its descriptor (or the reverse) does not compile. A new channel is its name in
// schemas/src/notifications.ts, a descriptor here, a provider in processors/src/deliver/providers/
// and a form in web/src/components/notify/.
import { envReader, type NotifyConfig } from '@watchpost/runtime';
import { NOTIFY_CHANNELS, type NotifyChannel } from '@watchpost/schemas';
import { chat } from './chat.ts';
import type { ChannelDescriptor, ChannelTypes } from './descriptor.ts';
import { email } from './email.ts';
import { push } from './push.ts';
import { webhook } from './webhook.ts';

const descriptors = { chat, webhook, email, push };
type TypeMap = {
  [C in keyof typeof descriptors]: (typeof descriptors)[C] extends ChannelDescriptor<C, infer T> ? T : never;
};

export const CHANNEL_DESCRIPTORS: { readonly [C in NotifyChannel]: ChannelDescriptor<C, TypeMap[C]> } = descriptors;

/** The types channel C is made of (body, stored form, defaults, configuration, targets, view). */
export type ChannelTypesOf<C extends NotifyChannel> = TypeMap[C];

/** One value per channel. */
export type PerChannel<K extends keyof ChannelTypes> = { [C in NotifyChannel]: TypeMap[C][K] };

export function descriptorOf<C extends NotifyChannel>(channel: C): ChannelDescriptor<C, TypeMap[C]> {
  return CHANNEL_DESCRIPTORS[channel];
}

/** One value per channel, from one function over the channel names. */
export function perChannel<K extends keyof ChannelTypes>(
  f: <C extends NotifyChannel>(channel: C) => TypeMap[C][K],
): PerChannel<K> {
  return Object.fromEntries(NOTIFY_CHANNELS.map((c) => [c, f(c)])) as PerChannel<K>;
}

export async function perChannelAsync<K extends keyof ChannelTypes>(
  f: <C extends NotifyChannel>(channel: C) => Promise<TypeMap[C][K]>,
): Promise<PerChannel<K>> {
  return Object.fromEntries(await Promise.all(NOTIFY_CHANNELS.map(async (c) => [c, await f(c)]))) as PerChannel<K>;
}

/** Every channel's effective configuration, secrets decrypted (the deliver role's). */
export type ChannelConfigs = PerChannel<'config'>;
/** Where each channel can deliver (from its configuration); no secrets here. */
export type ChannelTargets = PerChannel<'targets'>;
export type ChannelDefaults = PerChannel<'defaults'>;
const parsed = new WeakMap<object, ChannelDefaults>();

/**
 * Every channel's environment defaults, read from the environment the config was loaded from (once per
 * environment). A wrong value throws ConfigError naming the variable: roles call it at start.
 */
export function channelDefaults(notify: Pick<NotifyConfig, 'env'>): ChannelDefaults {
  let d = parsed.get(notify.env);
  if (!d) {
    const env = envReader(notify.env);
    d = perChannel<'defaults'>((c) => descriptorOf(c).defaults(env));
    parsed.set(notify.env, d);
  }
  return d;
}

export type { ChatConfig, ChatDestination } from './chat.ts';
export type { WebhookConfig } from './webhook.ts';
export { isLoopbackHost, type EmailConfig } from './email.ts';
export type { PushConfig } from './push.ts';
export type { ChannelDescriptor, ChannelTypes, RouteContext, RouteTo } from './descriptor.ts';
export { adminAllowRefusal, adminMayOpen, checkAdminAllowList, type SsrfAllow } from './allow.ts';
