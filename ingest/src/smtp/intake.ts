// The SMTP intake (issue 32): ssh-monitor's e-mail channel as an event source, with no line of the agent
// changed. Its client (`send_email_raw`, python3 smtplib) connects, STARTTLS (verifying the certificate)
// unless MAIL_SMTP_STARTTLS=0, logs in with MAIL_SMTP_USER / MAIL_SMTP_PASSWORD and sends one message per
// alert. Here the password is an agent key (the user name is free), every message becomes one event
// (event.ts) appended to Kafka through the same pipeline, claims and idempotency as POST /api/v1/events, and
// 250 is answered only after Kafka acknowledged. Refusals use the codes a mail client understands: 535 a
// bad key, 552 too large, 451 try again later (rate, Kafka or Redis down), 550 not the agent's message.
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { Logger, SmtpIntakeConfig } from '@watchpost/runtime';
import { envelopeBytes, type KeyVerifier } from '../app.ts';
import { AgentRateLimiter } from '../admission.ts';
import type { IngestPipeline } from '../pipeline.ts';
import { sshMonitorMailEvent } from './event.ts';

export interface SmtpIntakeDeps {
  config: SmtpIntakeConfig;
  log: Logger;
  pipeline: IngestPipeline;
  keys: KeyVerifier;
  rate: AgentRateLimiter;
  /** How often the certificate files are checked for a renewal (ms); tests shorten it. */
  certPollMs?: number;
}

/** An SMTP error with its reply code (smtp-server answers `responseCode` and the message). */
function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Reads the DATA stream, at most `limit` bytes kept (smtp-server flags sizeExceeded past its `size`). */
async function readData(stream: NodeJS.ReadableStream & { sizeExceeded?: boolean }, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    const b = c as Buffer;
    n += b.length;
    if (n <= limit) chunks.push(b);
  }
  return stream.sizeExceeded || n > limit ? null : Buffer.concat(chunks);
}

/** The operator's pair, or a start refused with the setting to fix (the agent cannot log in without it). */
function readPair(config: SmtpIntakeConfig): { cert: Buffer; key: Buffer } {
  const read = (file: string, setting: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`${setting} ${file}: cannot read it (${(err as Error).message}); STARTTLS needs the PEM pair`, {
        cause: err,
      });
    }
  };
  const pair = {
    cert: read(config.tlsCertFile, 'SERVICE_SMTP_TLS_CERT_FILE'),
    key: read(config.tlsKeyFile, 'SERVICE_SMTP_TLS_KEY_FILE'),
  };
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new Error(`SERVICE_SMTP_TLS_CERT_FILE/KEY_FILE: the pair does not load (${(err as Error).message})`, { cause: err });
  }
  return pair;
}

/**
 * Certificates are renewed in place (certbot, an ACME client, a CA's rotation): when the PEM files change,
 * new connections get the new pair without a restart. A pair that does not load (half written, key and
 * certificate not matching) is logged and the pair in use stays; the next change is tried again.
 */
function reloadOnRenewal(server: SMTPServer, config: SmtpIntakeConfig, log: Logger, pollMs: number): () => void {
  const files = [config.tlsCertFile, config.tlsKeyFile];
  const reload = () => {
    try {
      // Checked first (readPair): smtp-server drops its contexts before building new ones, so a bad pair would leave none.
      server.updateSecureContext(readPair(config));
      log.info({ cert_file: config.tlsCertFile }, 'smtp: certificate reloaded');
    } catch (err) {
      log.warn({ err, cert_file: config.tlsCertFile }, 'smtp: the changed certificate does not load; the previous one stays');
    }
  };
  for (const f of files) watchFile(f, { interval: pollMs, persistent: false }, reload);
  return () => {
    for (const f of files) unwatchFile(f, reload);
  };
}

export interface SmtpIntake {
  /** Listens; resolves with the port bound (config.port 0: any free one). */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export function createSmtpIntake(deps: SmtpIntakeDeps): SmtpIntake {
  const { config, log, pipeline, keys, rate } = deps;
  const tls = config.tlsCertFile && config.tlsKeyFile ? readPair(config) : undefined;
  const keyOf = (session: SMTPServerSession): number => Number(session.user);

  async function accept(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const keyId = keyOf(session);
    // Only the subject and the plain text are read: no HTML rendering of it, no link scan (a third of the parse).
    const mail = await simpleParser(raw, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
    });
    const built = sshMonitorMailEvent({ subject: mail.subject, text: mail.text }, keyId, new Date());
    if (!built.ok) {
      log.info({ key_id: keyId, reason: built.reason }, 'smtp: message refused');
      throw smtpError(550, `5.6.0 not an ssh-monitor alert: ${built.reason}`);
    }
    const e = built.event;
    const refused = rate.take(keyId, AgentRateLimiter.hostId(keyId, e.host.hostname), 1);
    if (refused) throw smtpError(451, `4.7.1 too many messages; retry after ${refused.wait} s`);
    const receivedAt = e.occurred_at;
    const o = await pipeline.submit({
      eventId: e.event_id,
      key: e.host.hostname,
      value: envelopeBytes(receivedAt, Buffer.from(JSON.stringify(e))),
      receivedAt,
      keyId,
    });
    log.info({ event_id: e.event_id, hostname: e.host.hostname, type: e.type, outcome: o.status }, 'smtp');
    if (o.status === 'unavailable') throw smtpError(451, `4.3.0 event store temporarily unavailable (${o.reason}); retry later`);
    return o.status === 'created' ? `2.0.0 stored as event ${e.event_id}` : `2.0.0 already stored as event ${e.event_id}`;
  }

  const server = new SMTPServer({
    name: 'watchpost',
    banner: 'watchpost SMTP intake for ssh-monitor alerts',
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    allowInsecureAuth: config.allowInsecureAuth,
    disabledCommands: tls ? [] : ['STARTTLS'],
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    size: config.maxMessageBytes,
    maxClients: config.maxClients,
    logger: false,
    // No DNS lookup of each client's address: a flood would turn into a flood of PTR queries, and nothing reads the name.
    disableReverseLookup: true,
    onAuth(auth, _session, cb) {
      // The key is the password; a LOGIN or PLAIN user name is whatever MAIL_SMTP_USER says.
      Promise.resolve(keys.verify(auth.password ?? '')).then(
        (id) =>
          id === null
            ? cb(smtpError(535, '5.7.8 invalid credentials: the password must be an agent key'))
            : cb(null, { user: String(id) }),
        (err: unknown) => {
          log.warn({ err }, 'smtp: key check unavailable');
          cb(smtpError(454, '4.7.0 cannot check credentials now; retry later'));
        },
      );
    },
    onMailFrom(_address, session, cb) {
      // A connection sends at most this many messages (smtplib sends one per connection).
      if (session.transaction > config.maxMessagesPerConnection)
        return cb(smtpError(421, '4.7.0 too many messages on one connection; reconnect'));
      cb();
    },
    onData(stream, session, cb) {
      readData(stream, config.maxMessageBytes)
        .then((raw) => {
          if (!raw) throw smtpError(552, `5.3.4 message over ${config.maxMessageBytes} bytes`);
          return accept(raw, session);
        })
        .then(
          (reply) => cb(null, reply),
          (err: Error & { responseCode?: number }) => {
            if (!err.responseCode) log.warn({ err }, 'smtp: message not taken');
            cb(err.responseCode ? err : smtpError(451, '4.3.0 message not taken; retry later'));
          },
        );
    },
  });
  server.on('error', (err) => log.warn({ err }, 'smtp server error'));
  const stopReload = tls ? reloadOnRenewal(server, config, log, deps.certPollMs ?? 30_000) : () => {};

  return {
    listen: () =>
      new Promise((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(config.port ?? 0, config.host, () => resolve((server.server.address() as AddressInfo).port));
      }),
    close: () => {
      stopReload();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
