// Push: Web Push to every subscription of every enrolled, unrevoked device (api/MOBILE.md); the VAPID
// keys are the devices' (core/src/devices.ts). Its only setting is whether it is on.
import type { FromSchema } from 'json-schema-to-ts';
import { countPushDevices } from '../../devices.ts';
import type { SsrfAllow } from './allow.ts';
import { ratePerSecond, type ChannelDescriptor, type StoredOf } from './descriptor.ts';

const bodySchema = { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } } as const;

export type PushBody = FromSchema<typeof bodySchema>;

export interface PushConfig {
  enabled: boolean;
  /** NOTIFY_PUSH_ALLOW: private addresses/CIDRs/host names push endpoints may use (SSRF guard; tests, an internal push relay). */
  allow: SsrfAllow;
}

export const push: ChannelDescriptor<
  'push',
  {
    body: PushBody;
    stored: StoredOf<PushBody>;
    defaults: { allow: string[]; ratePerSecond: number };
    config: PushConfig;
    /** devices that can receive a push (enrolled, not revoked, with a subscription) */
    targets: { enabled: boolean; devices: number };
    view: { channel: 'push'; enabled: boolean };
  }
> = {
  channel: 'push',
  bodySchema,
  secrets: [],
  defaults: (env) => ({ allow: env.csv('NOTIFY_PUSH_ALLOW'), ratePerSecond: ratePerSecond(env, 'push', 100, 100_000) }),
  config: (s, env) => ({ enabled: s.enabled ?? true, allow: { environment: env.allow, admin: [] } }),
  targets: async (s, _env, pg) => ({ enabled: s.enabled ?? true, devices: await countPushDevices(pg) }),
  routes: (t) => (t.devices === 0 ? 'no devices enrolled for push' : [{ destination: 'devices', chosen: true }]),
  // One delivery fans out to every subscription.
  destinations: () => ['devices'],
  view: (s) => ({ channel: 'push', enabled: s.enabled ?? true }),
  save: (s, i) => ({ ...s, ...('enabled' in i ? { enabled: i.enabled } : {}) }),
};
