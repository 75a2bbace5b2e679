// What a notification channel is, said once per channel (api/NOTIFICATIONS.md, Channels): its settings
// body (JSON Schema: the API's body and, through FromSchema, the type), the stored form (secrets
// encrypted), the environment defaults, the effective configuration the deliver role sends with, the
// masked view, and where it can deliver (what the policy routes to). The sender is the deliver role's
// provider of the same name (processors/src/deliver/providers/); the form is web/src/components/notify/.
import type { EnvReader, Pool } from '@watchpost/runtime';
import type { NotifyChannel } from '@watchpost/schemas';

/** A channel's secrets at rest: encrypted with the service's secrets key, bound to the channel and field. */
export interface Crypt {
  encrypt(field: string, plain: string): string;
  decrypt(field: string, stored: string): string;
}

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

/** The types one channel is made of. */
export interface ChannelTypes {
  /** PUT body (derived from `bodySchema`): fields left out keep their value, null removes a value. */
  body: object;
  /** The `notify.<channel>` settings value. */
  stored: object;
  defaults: { ratePerSecond: number };
  /** Secrets decrypted: the deliver role's only. */
  config: { enabled: boolean };
  /** No secrets: any role may route with it. */
  targets: { enabled: boolean };
  /** What the API shows: secrets only as whether they are set. */
  view: object;
}

export interface ChannelDescriptor<C extends NotifyChannel, T extends ChannelTypes> {
  readonly channel: C;
  /** JSON Schema of the settings body, as the API validates it (OpenAPI). */
  readonly bodySchema: object;
  /** Write-only body fields: stored encrypted, never shown; the audit log says only "set" or "removed". */
  readonly secrets: readonly (keyof T['body'] & string)[];
  /** Other body fields that may carry a secret, as the audit log keeps them. */
  readonly audited?: { readonly [K in keyof T['body']]?: (value: NonNullable<T['body'][K]>) => unknown };
  /** The environment's defaults (a saved value overrides each); a wrong value throws ConfigError. */
  defaults(env: EnvReader): T['defaults'];
  config(stored: T['stored'], defaults: T['defaults'], crypt: Crypt): T['config'];
  targets(stored: T['stored'], defaults: T['defaults'], pg: Pool): Promise<T['targets']>;
  /** Where the channel sends one trigger (it is enabled and chosen): its destinations, or why none. */
  routes(targets: T['targets'], ctx: RouteContext): RouteTo[] | string;
  /** Every destination of the configuration (test-send goes to each). */
  destinations(config: T['config']): string[];
  view(stored: T['stored'], defaults: T['defaults']): T['view'];
  /** The next stored value; throws Error with a readable message on an invalid body. */
  save(stored: T['stored'], body: T['body'], defaults: T['defaults'], crypt: Crypt): T['stored'];
  /** A destination as a monitor sees it (explanations); unset: as is. */
  maskDestination?(destination: string): string;
}

/** The stored form of a body: secret fields as their ciphertext (`<field>_enc`), no nulls. */
export type StoredOf<Body, Secret extends keyof Body = never> = {
  [K in keyof Pick<Body, Exclude<keyof Body, Secret>>]: Exclude<Body[K], null>;
} & { [K in Secret as `${K & string}_enc`]?: string };

/** Sets `field` to `v`; null deletes it (its default applies again); undefined leaves it. */
export function setOrDrop<T extends object, K extends keyof T>(obj: T, field: K, v: T[K] | null | undefined): void {
  if (v === null) delete obj[field];
  else if (v !== undefined) obj[field] = v;
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
