// One small interface for every channel: send one rendered notification to one destination of the
// channel, answer a short description of the provider's answer, or throw a DeliveryError. What a
// channel's settings and destinations are is its descriptor's (core/src/notify/channels/).
import type { ChannelConfigs } from '@watchpost/core/notify';
import type { VapidKeys } from '@watchpost/core/devices';
import type { Pool } from '@watchpost/runtime';
import type { DeliveryJob, NotifyChannel } from '@watchpost/schemas';
import type { Rendered } from '../templates.ts';

export interface Delivery {
  job: Pick<DeliveryJob, 'delivery_id' | 'rule' | 'destination' | 'subject' | 'push_sent'>;
  rendered: Rendered;
  configs: ChannelConfigs;
  /** What the push channel needs besides its configuration. */
  env?: ProviderEnv;
}

export interface ProviderEnv {
  pg: Pool;
  vapid: () => Promise<VapidKeys>;
  /** Keeps what a partly done delivery already sent, so a retry does not send it again. */
  remember: (pushSent: number[]) => Promise<void>;
}

export interface Provider {
  channel: NotifyChannel;
  send(d: Delivery): Promise<string>;
}
