// E-mail over SMTP: a server, a sender and the recipients (each a destination; the daily report may
// name its own). Secret: the SMTP password, never offered to another server or over a weaker connection:
// a saved one is dropped when the server or the security changes, and the environment's (SMTP_USER and
// SMTP_PASSWORD) goes only to the environment's server (SMTP_HOST and SMTP_PORT), never to one an admin chose.
// No password is sent over `security: none` except to a loopback relay. The server passes the SSRF guard
// of webhooks (the deliver role's): private and public addresses, the rest only when the environment
// names it (NOTIFY_EMAIL_ALLOW, or SMTP_HOST itself: the operator's own server, e.g. a loopback relay).
import type { FromSchema } from 'json-schema-to-ts';
import { ConfigError } from '@watchpost/runtime';
import type { SsrfAllow } from './allow.ts';
import { ratePerSecond, type ChannelDescriptor, type StoredOf } from './descriptor.ts';
import { nextStored } from '../../settings/section.ts';

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
  /** Why the environment's password is not used for this server (the deliver role says so instead of trying without). */
  passwordWithheld?: string;
  /**
   * The SSRF guard's lists: the environment's (NOTIFY_EMAIL_ALLOW plus SMTP_HOST) opens anything it names;
   * any other server may be public or private (an admin's setting), never loopback, link-local or metadata.
   */
  allow: SsrfAllow;
}

type EmailDefaults = Omit<EmailConfig, 'enabled' | 'passwordWithheld' | 'allow'> & { allow: string[]; ratePerSecond: number };

/** A host name or address on this machine: the only place a password may go over `security: none`. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1';
}

/** The environment's password when this server is the environment's own (host and port) and the link is not plain to another host. */
function envPassword(s: StoredEmail, env: EmailDefaults): { password?: string; withheld?: string } {
  if (env.password === undefined) return {};
  const host = s.host ?? env.host;
  const port = s.port ?? env.port;
  if (host?.toLowerCase() !== env.host?.toLowerCase() || port !== env.port)
    return {
      withheld: `SMTP_PASSWORD is sent only to SMTP_HOST:SMTP_PORT (${env.host ?? 'unset'}:${env.port}), not to ${host}:${port}; save the password for this server in the e-mail settings`,
    };
  if ((s.security ?? env.security) === 'none' && !isLoopbackHost(host))
    return {
      withheld: `SMTP_PASSWORD is never sent over security "none" to ${host} (only to a loopback relay); use starttls or tls`,
    };
  return { password: env.password };
}

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
    const host = env.optional('SMTP_HOST');
    if (security === 'none' && env.optional('SMTP_PASSWORD') && !isLoopbackHost(host))
      throw new ConfigError(
        'SMTP_PASSWORD',
        `is never sent over SMTP_SECURITY=none except to a loopback relay (SMTP_HOST is ${host ?? 'unset'}); use starttls or tls`,
      );
    return {
      host,
      port: env.int('SMTP_PORT', security === 'tls' ? 465 : 587, 1, 65535),
      security,
      user: env.optional('SMTP_USER'),
      password: env.optional('SMTP_PASSWORD'),
      from: env.str('SMTP_FROM', 'watchpost@localhost'),
      recipients: env.csv('NOTIFY_EMAIL_RECIPIENTS'),
      verifyTls: env.bool('SMTP_VERIFY_TLS', true),
      // The operator's own server is theirs to choose, loopback included.
      allow: [...env.csv('NOTIFY_EMAIL_ALLOW'), ...(host ? [host] : [])],
      ratePerSecond: ratePerSecond(env, 'email', 10, 10_000),
    };
  },

  config(s, env, crypt) {
    const fromEnv = s.password_enc ? {} : envPassword(s, env);
    return {
      enabled: s.enabled ?? true,
      host: s.host ?? env.host,
      port: s.port ?? env.port,
      security: s.security ?? env.security,
      // The environment's login (SMTP_USER with SMTP_PASSWORD) goes with its password, to its server only.
      user: s.user ?? (fromEnv.withheld ? undefined : env.user),
      password: s.password_enc ? crypt.decrypt('password', s.password_enc) : fromEnv.password,
      from: s.from ?? env.from,
      recipients: s.recipients ?? env.recipients,
      verifyTls: s.verify_tls ?? env.verifyTls,
      allow: { environment: env.allow, admin: [], variable: 'NOTIFY_EMAIL_ALLOW' },
      ...(fromEnv.withheld ? { passwordWithheld: fromEnv.withheld } : {}),
    };
  },

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
    const fields = ['enabled', 'host', 'port', 'security', 'user', 'from', 'recipients', 'verify_tls'] as const;
    const next = nextStored(email, s, i, fields, crypt);
    // A stored password is not offered to a different server, nor over a weaker connection, unless
    // given again with the change.
    const server = (e: StoredEmail) => e.host ?? env.host;
    const encrypted = (e: StoredEmail) => (e.security ?? env.security) !== 'none';
    const verified = (e: StoredEmail) => e.verify_tls ?? env.verifyTls;
    const weaker = server(next) !== server(s) || (encrypted(s) && !encrypted(next)) || (verified(s) && !verified(next));
    if (i.password === undefined && weaker) delete next.password_enc;
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
    // the environment's password counts only where it is used (its own server)
    password_set: Boolean(s.password_enc ?? envPassword(s, env).password),
    from: s.from ?? env.from,
    recipients: s.recipients ?? env.recipients,
    verify_tls: s.verify_tls ?? env.verifyTls,
  };
}
