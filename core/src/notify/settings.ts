// The notification policy and channel configuration (spec: Other records). Stored in `settings` under
// notify.*; each database value overrides its environment default (NOTIFY_*, SMTP_*). Secrets (bot
// token, Slack-style webhook URLs, webhook signing secret, SMTP password) are encrypted with the
// service's secrets key (../actions/secrets.ts) and never returned: views say only whether one is set.
import type { NotifyConfig, Pool } from '@watchpost/runtime';
import { NOTIFY_CHANNELS, SEVERITIES, type NotifyChannel, type Severity } from '@watchpost/schemas';
import { decryptSecret, encryptSecret } from '../actions/secrets.ts';
import type { ChannelTargets, NotifyPolicy } from './policy.ts';
import { countPushDevices } from '../devices.ts';

export const NOTIFY_POLICY_KEY = 'notify.policy';
export const channelKey = (c: NotifyChannel) => `notify.${c}`;

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
  /** Addresses/CIDRs or host names the SSRF guard lets through for chat endpoints. */
  allow: string[];
}
export interface WebhookConfig {
  enabled: boolean;
  url: string | undefined;
  secret: string | undefined;
  timeoutMs: number;
  /** Addresses/CIDRs or host names the SSRF guard lets through (private ranges are refused otherwise). */
  allow: string[];
}
export interface EmailConfig {
  enabled: boolean;
  host: string | undefined;
  port: number;
  security: 'starttls' | 'tls' | 'none';
  user: string | undefined;
  password: string | undefined;
  from: string;
  recipients: string[];
  verifyTls: boolean;
}
export interface PushConfig {
  enabled: boolean;
}
export interface ChannelConfigs {
  chat: ChatConfig;
  webhook: WebhookConfig;
  email: EmailConfig;
  push: PushConfig;
}

interface StoredChatDestination {
  id: string;
  kind: 'telegram' | 'slack';
  chat_id?: string;
  url_enc?: string;
  routes?: string[];
}
interface StoredChat {
  enabled?: boolean;
  telegram_api_base?: string;
  telegram_token_enc?: string;
  /** The API base the stored token was saved for: a token never goes to another host. */
  telegram_token_base?: string;
  destinations?: StoredChatDestination[];
  allow?: string[];
}

/**
 * Where the bot token may be sent: the stored token only to the base it was saved with, the
 * environment's only to the environment's base. Changing the base alone (an admin account taken
 * over, a typo) must not hand the secret to another host.
 */
function telegramToken(s: StoredChat, env: NotifyConfig, dec: (v: string) => string): string | undefined {
  const base = s.telegram_api_base ?? env.chat.telegramApiBase;
  if (s.telegram_token_enc) return (s.telegram_token_base ?? base) === base ? dec(s.telegram_token_enc) : undefined;
  return env.chat.telegramApiBase === base ? env.chat.telegramToken : undefined;
}
interface StoredWebhook {
  enabled?: boolean;
  url?: string;
  secret_enc?: string;
  timeout_ms?: number;
  allow?: string[];
}
interface StoredEmail {
  enabled?: boolean;
  host?: string;
  port?: number;
  security?: 'starttls' | 'tls' | 'none';
  user?: string;
  password_enc?: string;
  from?: string;
  recipients?: string[];
  verify_tls?: boolean;
}
interface StoredPolicy {
  min_severity?: Severity;
  channels?: NotifyChannel[];
}
interface Stored {
  chat: StoredChat;
  webhook: StoredWebhook;
  email: StoredEmail;
  push: { enabled?: boolean };
}

async function readSettings(pg: Pool, keys: string[]): Promise<Map<string, unknown>> {
  const r = await pg.query<{ key: string; value: unknown }>('SELECT key, value FROM settings WHERE key = ANY($1)', [keys]);
  return new Map(r.rows.map((x) => [x.key, x.value]));
}

async function writeSetting(pg: Pool, key: string, value: unknown, by: string): Promise<void> {
  await pg.query(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2, now(), $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [key, JSON.stringify(value), by],
  );
}

async function readStored(pg: Pool): Promise<Stored> {
  const m = await readSettings(pg, NOTIFY_CHANNELS.map(channelKey));
  return {
    chat: (m.get(channelKey('chat')) as StoredChat | undefined) ?? {},
    webhook: (m.get(channelKey('webhook')) as StoredWebhook | undefined) ?? {},
    email: (m.get(channelKey('email')) as StoredEmail | undefined) ?? {},
    push: (m.get(channelKey('push')) as { enabled?: boolean } | undefined) ?? {},
  };
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

const aad = (c: NotifyChannel, field: string) => `${channelKey(c)}:${field}`;

function envChatDestinations(env: NotifyConfig): ChatDestination[] {
  return [
    ...env.chat.telegramChatIds.map((chatId) => ({ id: `telegram:${chatId}`, kind: 'telegram' as const, chatId, routes: [] })),
    ...env.chat.slackWebhookUrls.map((url, i) => ({ id: `slack:${i + 1}`, kind: 'slack' as const, url, routes: [] })),
  ];
}

/** Every channel's effective configuration, secrets decrypted (delivery workers only). */
export async function loadChannelConfigs(pg: Pool, env: NotifyConfig, key: Buffer): Promise<ChannelConfigs> {
  const s = await readStored(pg);
  const dec = (c: NotifyChannel, field: string, v: string | undefined) => (v ? decryptSecret(key, v, aad(c, field)) : undefined);
  return {
    chat: {
      enabled: s.chat.enabled ?? true,
      telegram: {
        apiBase: s.chat.telegram_api_base ?? env.chat.telegramApiBase,
        token: telegramToken(s.chat, env, (v) => dec('chat', 'telegram_token', v)!),
      },
      destinations: s.chat.destinations
        ? s.chat.destinations.map((d) => ({
            id: d.id,
            kind: d.kind,
            ...(d.chat_id ? { chatId: d.chat_id } : {}),
            ...(d.url_enc ? { url: dec('chat', `destination:${d.id}`, d.url_enc) } : {}),
            routes: d.routes ?? [],
          }))
        : envChatDestinations(env),
      allow: s.chat.allow ?? env.chat.allow,
    },
    webhook: {
      enabled: s.webhook.enabled ?? true,
      url: s.webhook.url ?? env.webhook.url,
      secret: dec('webhook', 'secret', s.webhook.secret_enc) ?? env.webhook.secret,
      timeoutMs: s.webhook.timeout_ms ?? env.webhook.timeoutMs,
      allow: s.webhook.allow ?? env.webhook.allow,
    },
    email: {
      enabled: s.email.enabled ?? true,
      host: s.email.host ?? env.email.host,
      port: s.email.port ?? env.email.port,
      security: s.email.security ?? env.email.security,
      user: s.email.user ?? env.email.user,
      password: dec('email', 'password', s.email.password_enc) ?? env.email.password,
      from: s.email.from ?? env.email.from,
      recipients: s.email.recipients ?? env.email.recipients,
      verifyTls: s.email.verify_tls ?? env.email.verifyTls,
    },
    push: { enabled: s.push.enabled ?? true },
  };
}

/** What the policy needs to route (no secrets, nothing decrypted: any role can load it). */
export async function loadChannelTargets(pg: Pool, env: NotifyConfig): Promise<ChannelTargets> {
  const s = await readStored(pg);
  const chatDests = s.chat.destinations
    ? s.chat.destinations.map((d) => ({ id: d.id, kind: d.kind, routes: d.routes ?? [] }))
    : envChatDestinations(env).map((d) => ({ id: d.id, kind: d.kind, routes: d.routes }));
  const hasToken = telegramToken(s.chat, env, () => 'set') !== undefined;
  const webhookUrl = s.webhook.url ?? env.webhook.url;
  return {
    chat: {
      enabled: s.chat.enabled ?? true,
      // Telegram destinations without a usable bot token cannot be sent to.
      destinations: (hasToken ? chatDests : chatDests.filter((d) => d.kind !== 'telegram')).map(({ id, routes }) => ({
        id,
        routes,
      })),
    },
    webhook: { enabled: s.webhook.enabled ?? true, destinations: webhookUrl ? [{ id: 'default' }] : [] },
    email: {
      enabled: (s.email.enabled ?? true) && Boolean(s.email.host ?? env.email.host),
      recipients: s.email.recipients ?? env.email.recipients,
    },
    push: { enabled: s.push.enabled ?? true, devices: await countPushDevices(pg) },
  };
}

const origin = (u: string | undefined) => {
  if (!u) return null;
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
};

/** What the API shows: secrets masked (only whether set), the URL of a Slack-style hook only as its origin. */
export async function channelConfigView(pg: Pool, env: NotifyConfig, channel: NotifyChannel) {
  const s = await readStored(pg);
  switch (channel) {
    case 'chat': {
      const dests = s.chat.destinations
        ? s.chat.destinations.map((d) => ({
            id: d.id,
            kind: d.kind,
            chat_id: d.chat_id ?? null,
            url_set: Boolean(d.url_enc),
            url_origin: null,
            routes: d.routes ?? [],
          }))
        : envChatDestinations(env).map((d) => ({
            id: d.id,
            kind: d.kind,
            chat_id: d.chatId ?? null,
            url_set: Boolean(d.url),
            url_origin: origin(d.url),
            routes: d.routes,
          }));
      return {
        channel,
        enabled: s.chat.enabled ?? true,
        telegram_api_base: s.chat.telegram_api_base ?? env.chat.telegramApiBase,
        telegram_token_set: telegramToken(s.chat, env, () => 'set') !== undefined,
        destinations: dests,
        source: s.chat.destinations ? 'database' : 'environment',
        allow: s.chat.allow ?? env.chat.allow,
      };
    }
    case 'webhook':
      return {
        channel,
        enabled: s.webhook.enabled ?? true,
        url: s.webhook.url ?? env.webhook.url ?? null,
        secret_set: Boolean(s.webhook.secret_enc ?? env.webhook.secret),
        timeout_ms: s.webhook.timeout_ms ?? env.webhook.timeoutMs,
        allow: s.webhook.allow ?? env.webhook.allow,
      };
    case 'email':
      return {
        channel,
        enabled: s.email.enabled ?? true,
        host: s.email.host ?? env.email.host ?? null,
        port: s.email.port ?? env.email.port,
        security: s.email.security ?? env.email.security,
        user: s.email.user ?? env.email.user ?? null,
        password_set: Boolean(s.email.password_enc ?? env.email.password),
        from: s.email.from ?? env.email.from,
        recipients: s.email.recipients ?? env.email.recipients,
        verify_tls: s.email.verify_tls ?? env.email.verifyTls,
      };
    case 'push':
      return { channel, enabled: s.push.enabled ?? true };
  }
}

export interface ChatInput {
  enabled?: boolean;
  telegram_api_base?: string;
  /** null removes the stored token (the environment's applies again) */
  telegram_token?: string | null;
  /** Replaces the list. A slack destination without `url` keeps the stored URL of the same id. */
  destinations?: { id: string; kind: 'telegram' | 'slack'; chat_id?: string; url?: string; routes?: string[] }[];
  allow?: string[];
}
export interface WebhookInput {
  enabled?: boolean;
  url?: string | null;
  secret?: string | null;
  timeout_ms?: number;
  allow?: string[];
}
export interface EmailInput {
  enabled?: boolean;
  host?: string | null;
  port?: number;
  security?: 'starttls' | 'tls' | 'none';
  user?: string | null;
  password?: string | null;
  from?: string;
  recipients?: string[];
  verify_tls?: boolean;
}

/** Fields left out keep their stored value. Throws Error with a readable message on an invalid value. */
export async function saveChannelConfig(
  pg: Pool,
  key: Buffer,
  env: NotifyConfig,
  channel: NotifyChannel,
  input: ChatInput | WebhookInput | EmailInput | { enabled?: boolean },
  by: string,
): Promise<void> {
  const s = await readStored(pg);
  const setOrDrop = <T extends object>(obj: T, field: keyof T, v: unknown) => {
    if (v === null) delete obj[field];
    else if (v !== undefined) obj[field] = v as T[keyof T];
  };
  if (channel === 'chat') {
    const i = input as ChatInput;
    const next: StoredChat = { ...s.chat };
    setOrDrop(next, 'enabled', i.enabled);
    setOrDrop(next, 'telegram_api_base', i.telegram_api_base);
    setOrDrop(next, 'allow', i.allow);
    if (i.telegram_token === null) {
      delete next.telegram_token_enc;
      delete next.telegram_token_base;
    } else if (i.telegram_token !== undefined) {
      next.telegram_token_enc = encryptSecret(key, i.telegram_token, aad('chat', 'telegram_token'));
      next.telegram_token_base = next.telegram_api_base ?? env.chat.telegramApiBase;
    }
    if (i.destinations) {
      const old = new Map((s.chat.destinations ?? []).map((d) => [d.id, d]));
      // The first save from the UI re-sends the environment's hooks by id, without their (secret) URLs.
      const fromEnv = new Map(s.chat.destinations ? [] : envChatDestinations(env).map((d) => [d.id, d.url]));
      const ids = new Set<string>();
      next.destinations = i.destinations.map((d) => {
        if (ids.has(d.id)) throw new Error(`destination id "${d.id}" is used twice`);
        ids.add(d.id);
        if (d.kind === 'telegram') {
          if (!d.chat_id) throw new Error(`telegram destination "${d.id}" needs chat_id`);
          return { id: d.id, kind: d.kind, chat_id: d.chat_id, routes: d.routes ?? [] };
        }
        const url = d.url ?? fromEnv.get(d.id);
        const url_enc = url ? encryptSecret(key, url, aad('chat', `destination:${d.id}`)) : old.get(d.id)?.url_enc;
        if (!url_enc) throw new Error(`slack destination "${d.id}" needs url`);
        return { id: d.id, kind: d.kind, url_enc, routes: d.routes ?? [] };
      });
    }
    await writeSetting(pg, channelKey('chat'), next, by);
  } else if (channel === 'webhook') {
    const i = input as WebhookInput;
    const next: StoredWebhook = { ...s.webhook };
    setOrDrop(next, 'enabled', i.enabled);
    setOrDrop(next, 'url', i.url);
    setOrDrop(next, 'timeout_ms', i.timeout_ms);
    setOrDrop(next, 'allow', i.allow);
    if (i.secret === null) delete next.secret_enc;
    else if (i.secret !== undefined) next.secret_enc = encryptSecret(key, i.secret, aad('webhook', 'secret'));
    await writeSetting(pg, channelKey('webhook'), next, by);
  } else if (channel === 'email') {
    const i = input as EmailInput;
    const next: StoredEmail = { ...s.email };
    for (const f of ['enabled', 'host', 'port', 'security', 'user', 'from', 'recipients', 'verify_tls'] as const)
      setOrDrop(next, f, i[f]);
    // A stored password is not offered to a different server, nor over a weaker connection, unless
    // given again with the change.
    const server = (e: StoredEmail) => e.host ?? env.email.host;
    const encrypted = (e: StoredEmail) => (e.security ?? env.email.security) !== 'none';
    const verified = (e: StoredEmail) => e.verify_tls ?? env.email.verifyTls;
    const weaker =
      server(next) !== server(s.email) || (encrypted(s.email) && !encrypted(next)) || (verified(s.email) && !verified(next));
    if (i.password === undefined && weaker) delete next.password_enc;
    if (i.password === null) delete next.password_enc;
    else if (i.password !== undefined) next.password_enc = encryptSecret(key, i.password, aad('email', 'password'));
    await writeSetting(pg, channelKey('email'), next, by);
  } else {
    await writeSetting(pg, channelKey('push'), { ...s.push, ...('enabled' in input ? { enabled: input.enabled } : {}) }, by);
  }
}
