// Webhook: one URL receiving a signed JSON body (version 1, api/NOTIFICATIONS.md). Secret: the
// signing secret; the URL is shown (an admin set it) but the audit log keeps only where it points.
import type { FromSchema } from 'json-schema-to-ts';
import { checkAdminAllowList, type SsrfAllow } from './allow.ts';
import { allowListSchema, ratePerSecond, type ChannelDescriptor, type StoredOf } from './descriptor.ts';
import { nextStored } from '../../settings/section.ts';

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    url: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048, nullable: true },
    secret: {
      type: 'string',
      minLength: 16,
      maxLength: 256,
      nullable: true,
      description: 'HMAC-SHA256 signing secret (write-only)',
    },
    timeout_ms: { type: 'integer', minimum: 100, maximum: 120000 },
    allow: allowListSchema,
  },
} as const;

export type WebhookBody = FromSchema<typeof bodySchema>;
type StoredWebhook = StoredOf<WebhookBody, 'secret'>;

export interface WebhookConfig {
  enabled: boolean;
  url: string | undefined;
  secret: string | undefined;
  timeoutMs: number;
  /** What the SSRF guard lets through (private ranges are refused otherwise): the environment's and the saved list. */
  allow: SsrfAllow;
}

type WebhookDefaults = Omit<WebhookConfig, 'enabled' | 'allow'> & { allow: string[]; ratePerSecond: number };

/** A URL may carry a token in its query or user part: the audit log keeps where it points. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return 'set';
  }
}

export const webhook: ChannelDescriptor<
  'webhook',
  {
    body: WebhookBody;
    stored: StoredWebhook;
    defaults: WebhookDefaults;
    config: WebhookConfig;
    targets: { enabled: boolean; destinations: { id: string }[] };
    view: {
      channel: 'webhook';
      enabled: boolean;
      url: string | null;
      secret_set: boolean;
      timeout_ms: number;
      /** the saved allow list (private networks only) */
      allow: string[];
      /** NOTIFY_WEBHOOK_ALLOW: read-only here */
      allow_environment: string[];
    };
  }
> = {
  channel: 'webhook',
  bodySchema,
  secrets: ['secret'],
  audited: { url: withoutCredentials },

  defaults: (env) => ({
    url: env.optionalUrl('NOTIFY_WEBHOOK_URL', ['https:', 'http:']),
    secret: env.optional('NOTIFY_WEBHOOK_SECRET'),
    timeoutMs: env.int('NOTIFY_WEBHOOK_TIMEOUT_MS', 5000, 100, 120_000),
    allow: env.csv('NOTIFY_WEBHOOK_ALLOW'),
    ratePerSecond: ratePerSecond(env, 'webhook', 200, 100_000),
  }),

  config: (s, env, crypt) => ({
    enabled: s.enabled ?? true,
    url: s.url ?? env.url,
    secret: (s.secret_enc ? crypt.decrypt('secret', s.secret_enc) : undefined) ?? env.secret,
    timeoutMs: s.timeout_ms ?? env.timeoutMs,
    allow: { environment: env.allow, admin: s.allow ?? [] },
  }),

  targets: async (s, env) => ({
    enabled: s.enabled ?? true,
    destinations: (s.url ?? env.url) ? [{ id: 'default' }] : [],
  }),

  routes: (t) =>
    t.destinations.length === 0 ? 'no webhook URL configured' : t.destinations.map((d) => ({ destination: d.id, chosen: true })),

  destinations: (c) => (c.url ? ['default'] : []),

  view: (s, env) => ({
    channel: 'webhook',
    enabled: s.enabled ?? true,
    url: s.url ?? env.url ?? null,
    secret_set: Boolean(s.secret_enc ?? env.secret),
    timeout_ms: s.timeout_ms ?? env.timeoutMs,
    allow: s.allow ?? [],
    allow_environment: env.allow,
  }),

  save(s, i, _env, crypt) {
    checkAdminAllowList(i.allow, 'NOTIFY_WEBHOOK_ALLOW');
    return nextStored(webhook, s, i, ['enabled', 'url', 'timeout_ms', 'allow'], crypt);
  },
};
