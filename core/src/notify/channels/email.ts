// E-mail over SMTP: a server, a sender and the recipients (each a destination; the daily report may
// name its own). Secret: the SMTP password, never offered to another server or over a weaker connection.
import type { FromSchema } from 'json-schema-to-ts';
import { ratePerSecond, setOrDrop, type ChannelDescriptor, type StoredOf } from './descriptor.ts';

const SECURITY = ['starttls', 'tls', 'none'] as const;

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    host: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_-]+$', nullable: true },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    security: { type: 'string', enum: SECURITY },
    user: { type: 'string', minLength: 1, maxLength: 256, nullable: true },
    password: { type: 'string', minLength: 1, maxLength: 1024, nullable: true },
    from: { type: 'string', minLength: 3, maxLength: 320, pattern: '^[^\\r\\n]+$' },
    recipients: { type: 'array', maxItems: 100, items: { type: 'string', format: 'email', maxLength: 320 } },
    verify_tls: { type: 'boolean' },
  },
} as const;

export type EmailBody = FromSchema<typeof bodySchema>;
type StoredEmail = StoredOf<EmailBody, 'password'>;

export interface EmailConfig {
  enabled: boolean;
  host: string | undefined;
  port: number;
  security: (typeof SECURITY)[number];
  user: string | undefined;
  password: string | undefined;
  from: string;
  recipients: string[];
  verifyTls: boolean;
}

type EmailDefaults = Omit<EmailConfig, 'enabled'> & { ratePerSecond: number };

export const email: ChannelDescriptor<
  'email',
  {
    body: EmailBody;
    stored: StoredEmail;
    defaults: EmailDefaults;
    config: EmailConfig;
    targets: { enabled: boolean; recipients: string[] };
    view: ReturnType<typeof view>;
  }
> = {
  channel: 'email',
  bodySchema,
  secrets: ['password'],

  defaults(env) {
    const security = env.oneOf('SMTP_SECURITY', SECURITY, 'starttls');
    return {
      host: env.optional('SMTP_HOST'),
      port: env.int('SMTP_PORT', security === 'tls' ? 465 : 587, 1, 65535),
      security,
      user: env.optional('SMTP_USER'),
      password: env.optional('SMTP_PASSWORD'),
      from: env.str('SMTP_FROM', 'watchpost@localhost'),
      recipients: env.csv('NOTIFY_EMAIL_RECIPIENTS'),
      verifyTls: env.bool('SMTP_VERIFY_TLS', true),
      ratePerSecond: ratePerSecond(env, 'email', 10, 10_000),
    };
  },

  config: (s, env, crypt) => ({
    enabled: s.enabled ?? true,
    host: s.host ?? env.host,
    port: s.port ?? env.port,
    security: s.security ?? env.security,
    user: s.user ?? env.user,
    password: (s.password_enc ? crypt.decrypt('password', s.password_enc) : undefined) ?? env.password,
    from: s.from ?? env.from,
    recipients: s.recipients ?? env.recipients,
    verifyTls: s.verify_tls ?? env.verifyTls,
  }),

  targets: async (s, env) => ({
    enabled: (s.enabled ?? true) && Boolean(s.host ?? env.host),
    recipients: s.recipients ?? env.recipients,
  }),

  routes(t, { recipients }) {
    const to = recipients.length > 0 ? recipients : t.recipients;
    if (to.length === 0) return 'no e-mail recipients configured';
    return to.map((r) => ({ destination: r, chosen: true }));
  },

  destinations: (c) => c.recipients,

  view,

  save(s, i, env, crypt) {
    const next: StoredEmail = { ...s };
    setOrDrop(next, 'enabled', i.enabled);
    setOrDrop(next, 'host', i.host);
    setOrDrop(next, 'port', i.port);
    setOrDrop(next, 'security', i.security);
    setOrDrop(next, 'user', i.user);
    setOrDrop(next, 'from', i.from);
    setOrDrop(next, 'recipients', i.recipients);
    setOrDrop(next, 'verify_tls', i.verify_tls);
    // A stored password is not offered to a different server, nor over a weaker connection, unless
    // given again with the change.
    const server = (e: StoredEmail) => e.host ?? env.host;
    const encrypted = (e: StoredEmail) => (e.security ?? env.security) !== 'none';
    const verified = (e: StoredEmail) => e.verify_tls ?? env.verifyTls;
    const weaker = server(next) !== server(s) || (encrypted(s) && !encrypted(next)) || (verified(s) && !verified(next));
    if (i.password === undefined && weaker) delete next.password_enc;
    if (i.password === null) delete next.password_enc;
    else if (i.password !== undefined) next.password_enc = crypt.encrypt('password', i.password);
    return next;
  },

  // A monitor sees where an e-mail went only as its domain.
  maskDestination: (d) => d.replace(/^[^@]*/, '…'),
};

function view(s: StoredEmail, env: EmailDefaults) {
  return {
    channel: 'email' as const,
    enabled: s.enabled ?? true,
    host: s.host ?? env.host ?? null,
    port: s.port ?? env.port,
    security: s.security ?? env.security,
    user: s.user ?? env.user ?? null,
    password_set: Boolean(s.password_enc ?? env.password),
    from: s.from ?? env.from,
    recipients: s.recipients ?? env.recipients,
    verify_tls: s.verify_tls ?? env.verifyTls,
  };
}
