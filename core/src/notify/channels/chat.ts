// Chat: Telegram chats (one bot token) and Slack-compatible incoming hooks (Slack, Mattermost,
// Rocket.Chat), each a destination with the agent.lifecycle routes it receives. Secrets: the bot token
// and every hook URL (its path is the secret).
import type { FromSchema } from 'json-schema-to-ts';
import { checkAdminAllowList, type SsrfAllow } from './allow.ts';
import { allowListSchema, ratePerSecond, setOrDrop, type ChannelDescriptor, type StoredOf } from './descriptor.ts';
import { nextStored } from '../../settings/section.ts';

const destinationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$' },
    kind: { type: 'string', enum: ['telegram', 'slack'] },
    chat_id: {
      type: 'string',
      pattern: '^(-?[0-9]{1,20}|@[A-Za-z0-9_]{5,32})$',
      description: 'telegram: numeric chat id or @channel',
    },
    url: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2048,
      description: 'slack-compatible hook URL (write-only)',
    },
    routes: {
      type: 'array',
      maxItems: 50,
      items: { type: 'string', minLength: 1, maxLength: 128 },
      description: 'agent.lifecycle routing values; empty: all',
    },
  },
} as const;

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    telegram_api_base: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 512 },
    /** null removes the stored token (the environment's applies again) */
    telegram_token: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9:_-]+$', nullable: true },
    /** Replaces the list. A slack destination without `url` keeps the stored URL of the same id. */
    destinations: { type: 'array', maxItems: 50, items: destinationSchema },
    allow: allowListSchema,
  },
} as const;

export type ChatBody = FromSchema<typeof bodySchema>;
type DestinationBody = FromSchema<typeof destinationSchema>;

type StoredChat = Omit<StoredOf<ChatBody, 'telegram_token'>, 'destinations'> & {
  /** The API base the stored token was saved for: a token never goes to another host. */
  telegram_token_base?: string;
  destinations?: StoredOf<DestinationBody, 'url'>[];
};

export interface ChatDestination {
  id: string;
  kind: 'telegram' | 'slack';
  /** telegram: the chat id */
  chatId?: string;
  /** slack-compatible incoming webhook URL (its path is the secret) */
  url?: string;
  /** agent.lifecycle routing values this destination receives (empty: all) */
  routes: string[];
}

export interface ChatConfig {
  enabled: boolean;
  telegram: { apiBase: string; token: string | undefined };
  destinations: ChatDestination[];
  /** What the SSRF guard lets through for chat endpoints: the environment's and the saved list. */
  allow: SsrfAllow;
}

interface ChatDefaults {
  telegramApiBase: string;
  telegramToken: string | undefined;
  telegramChatIds: string[];
  slackWebhookUrls: string[];
  /** SSRF-guard allow list for chat endpoints (a self-hosted Mattermost or Bot API server on a private address) */
  allow: string[];
  ratePerSecond: number;
  /** At most `max` login-lockout alerts in any `windowSeconds` (the notify role counts the rest). */
  lockoutAlerts: { max: number; windowSeconds: number };
}

interface ChatTargets {
  enabled: boolean;
  destinations: { id: string; routes: string[] }[];
}

/** The environment's destinations: `telegram:<chat id>` for each chat, `slack:<n>` for each hook. */
function envDestinations(env: ChatDefaults): ChatDestination[] {
  return [
    ...env.telegramChatIds.map((chatId) => ({ id: `telegram:${chatId}`, kind: 'telegram' as const, chatId, routes: [] })),
    ...env.slackWebhookUrls.map((url, i) => ({ id: `slack:${i + 1}`, kind: 'slack' as const, url, routes: [] })),
  ];
}

/**
 * Where the bot token may be sent: the stored token only to the base it was saved with, the
 * environment's only to the environment's base. Changing the base alone (an admin account taken
 * over, a typo) must not hand the secret to another host.
 */
function telegramToken(s: StoredChat, env: ChatDefaults, dec: (v: string) => string): string | undefined {
  const base = s.telegram_api_base ?? env.telegramApiBase;
  if (s.telegram_token_enc) return (s.telegram_token_base ?? base) === base ? dec(s.telegram_token_enc) : undefined;
  return env.telegramApiBase === base ? env.telegramToken : undefined;
}

const origin = (u: string | undefined) => {
  if (!u) return null;
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
};

const destinationField = (id: string) => `destination:${id}`;

export const chat: ChannelDescriptor<
  'chat',
  {
    body: ChatBody;
    stored: StoredChat;
    defaults: ChatDefaults;
    config: ChatConfig;
    targets: ChatTargets;
    view: ReturnType<typeof view>;
  }
> = {
  channel: 'chat',
  bodySchema,
  secrets: ['telegram_token'],
  audited: { destinations: (ds) => ds.map(({ url, ...d }) => ({ ...d, ...(url ? { url: 'set' } : {}) })) },

  defaults: (env) => ({
    telegramApiBase: env.url('NOTIFY_TELEGRAM_API_BASE', 'https://api.telegram.org', ['https:', 'http:']),
    telegramToken: env.optional('NOTIFY_TELEGRAM_TOKEN'),
    telegramChatIds: env.csv('NOTIFY_TELEGRAM_CHAT_IDS'),
    slackWebhookUrls: env.urls('NOTIFY_SLACK_WEBHOOK_URLS', ['https:', 'http:']),
    allow: env.csv('NOTIFY_CHAT_ALLOW'),
    ratePerSecond: ratePerSecond(env, 'chat', 20, 10_000),
    lockoutAlerts: {
      max: env.int('NOTIFY_LOCKOUT_ALERTS_MAX', 10, 1, 10_000),
      windowSeconds: env.int('NOTIFY_LOCKOUT_ALERTS_WINDOW_SECONDS', 3600, 60, 7 * 86_400),
    },
  }),

  config: (s, env, crypt) => ({
    enabled: s.enabled ?? true,
    telegram: {
      apiBase: s.telegram_api_base ?? env.telegramApiBase,
      token: telegramToken(s, env, (v) => crypt.decrypt('telegram_token', v)),
    },
    destinations: s.destinations
      ? s.destinations.map((d) => ({
          id: d.id,
          kind: d.kind,
          ...(d.chat_id ? { chatId: d.chat_id } : {}),
          ...(d.url_enc ? { url: crypt.decrypt(destinationField(d.id), d.url_enc) } : {}),
          routes: d.routes ?? [],
        }))
      : envDestinations(env),
    allow: { environment: env.allow, admin: s.allow ?? [] },
  }),

  async targets(s, env) {
    const dests = s.destinations
      ? s.destinations.map((d) => ({ id: d.id, kind: d.kind, routes: d.routes ?? [] }))
      : envDestinations(env).map((d) => ({ id: d.id, kind: d.kind, routes: d.routes }));
    const hasToken = telegramToken(s, env, () => 'set') !== undefined;
    return {
      enabled: s.enabled ?? true,
      // Telegram destinations without a usable bot token cannot be sent to.
      destinations: (hasToken ? dests : dests.filter((d) => d.kind !== 'telegram')).map(({ id, routes }) => ({ id, routes })),
    };
  },

  routes(t, { routing }) {
    if (t.destinations.length === 0) return 'no chat destinations configured';
    return t.destinations.map((d) =>
      routing !== undefined && d.routes.length > 0 && !d.routes.includes(routing)
        ? { destination: d.id, chosen: false, reason: `routes ${d.routes.join(', ')} do not include "${routing}"` }
        : { destination: d.id, chosen: true },
    );
  },

  destinations: (c) => c.destinations.map((d) => d.id),

  view,

  save(s, i, env, crypt) {
    checkAdminAllowList(i.allow, 'NOTIFY_CHAT_ALLOW');
    const next = nextStored(chat, s, i, ['enabled', 'telegram_api_base', 'allow'], crypt);
    // The token goes with the API base it is saved for (telegramToken): removed with it, else set to the base now in force.
    if (i.telegram_token !== undefined)
      setOrDrop(next, 'telegram_token_base', i.telegram_token === null ? null : (next.telegram_api_base ?? env.telegramApiBase));
    if (i.destinations) {
      const old = new Map((s.destinations ?? []).map((d) => [d.id, d]));
      // The first save from the UI re-sends the environment's hooks by id, without their (secret) URLs.
      const fromEnv = new Map(s.destinations ? [] : envDestinations(env).map((d) => [d.id, d.url]));
      const ids = new Set<string>();
      next.destinations = i.destinations.map((d) => {
        if (ids.has(d.id)) throw new Error(`destination id "${d.id}" is used twice`);
        ids.add(d.id);
        if (d.kind === 'telegram') {
          if (!d.chat_id) throw new Error(`telegram destination "${d.id}" needs chat_id`);
          return { id: d.id, kind: d.kind, chat_id: d.chat_id, routes: d.routes ?? [] };
        }
        const url = d.url ?? fromEnv.get(d.id);
        const url_enc = url ? crypt.encrypt(destinationField(d.id), url) : old.get(d.id)?.url_enc;
        if (!url_enc) throw new Error(`slack destination "${d.id}" needs url`);
        return { id: d.id, kind: d.kind, url_enc, routes: d.routes ?? [] };
      });
    }
    return next;
  },
};

/** Hook URLs only as whether set (an environment hook's origin too); the token only as whether usable. */
function view(s: StoredChat, env: ChatDefaults) {
  const dests = s.destinations
    ? s.destinations.map((d) => ({
        id: d.id,
        kind: d.kind,
        chat_id: d.chat_id ?? null,
        url_set: Boolean(d.url_enc),
        url_origin: null,
        routes: d.routes ?? [],
      }))
    : envDestinations(env).map((d) => ({
        id: d.id,
        kind: d.kind,
        chat_id: d.chatId ?? null,
        url_set: Boolean(d.url),
        url_origin: origin(d.url),
        routes: d.routes,
      }));
  return {
    channel: 'chat' as const,
    enabled: s.enabled ?? true,
    telegram_api_base: s.telegram_api_base ?? env.telegramApiBase,
    telegram_token_set: telegramToken(s, env, () => 'set') !== undefined,
    destinations: dests,
    source: s.destinations ? 'database' : 'environment',
    /** the saved allow list (private networks only); NOTIFY_CHAT_ALLOW is shown read-only */
    allow: s.allow ?? [],
    allow_environment: env.allow,
  };
}
