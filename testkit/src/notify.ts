// Real protocol peers for notification tests, each on a real socket on 127.0.0.1: an HTTP receiver
// (webhooks, Slack-compatible hooks) with scripted answers, a Telegram Bot API `sendMessage` server,
// an SMTP server (smtp-server) that parses what it receives (mailparser), and role starters.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { importJWK, jwtVerify } from 'jose';
import ece from 'http_ece';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import selfsigned from 'selfsigned';
import { simpleParser, type ParsedMail } from 'mailparser';
import { Clients, type Config, type RoleHandle, type RoleStarter } from '@watchpost/runtime';
import { deliverRole, notifyRole } from '@watchpost/processors';
import { memoryLogger } from './logger.ts';
import { createTestStores, testConfig, type TestStores } from './stores.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface HttpReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Status codes to answer next, in order; when empty, `defaultStatus`. */
  script: number[];
  defaultStatus: number;
  /** Milliseconds to wait before answering (a slow or hanging peer). */
  delayMs: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startHttpReceiver(
  answer: (r: ReceivedRequest) => string | { status: number; body: string } = () => '{"ok":true}',
): Promise<HttpReceiver> {
  const state = { script: [] as number[], defaultStatus: 200, delayMs: 0 };
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      requests.push(r);
      const status = state.script.shift() ?? state.defaultStatus;
      if (state.delayMs > 0) await new Promise((x) => setTimeout(x, state.delayMs));
      const a = status < 300 ? answer(r) : { status, body: '{"ok":false,"description":"scripted failure"}' };
      const [code, text] = typeof a === 'string' ? [status, a] : [a.status, a.body];
      res.writeHead(code, { 'content-type': 'application/json' }).end(text);
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get script() {
      return state.script;
    },
    set script(v) {
      state.script = v;
    },
    get defaultStatus() {
      return state.defaultStatus;
    },
    set defaultStatus(v) {
      state.defaultStatus = v;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v) {
      state.delayMs = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Why Telegram would refuse this text (sendMessage: 1-4096 characters after entity parsing), or null. */
export function telegramRefusal(text: string, parseMode: string | undefined): string | null {
  let plain = text;
  if (parseMode === 'HTML') {
    // Telegram's HTML mode: a few tags, balanced; only &lt; &gt; &amp; &quot; and numeric entities.
    const open: string[] = [];
    for (const m of text.matchAll(/<(\/?)([a-z-]+)(?:\s[^<>]*)?>|<|&(?:lt|gt|amp|quot|#\d+|#x[0-9a-f]+);|&/gi)) {
      if (m[0] === '<' || m[0] === '&') return "Bad Request: can't parse entities: unescaped character";
      if (m[2] === undefined) continue;
      const tag = m[2].toLowerCase();
      if (
        !['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'a', 'code', 'pre', 'tg-spoiler', 'blockquote'].includes(
          tag,
        )
      )
        return `Bad Request: can't parse entities: unsupported start tag "${tag}"`;
      if (m[1] === '') open.push(tag);
      else if (open.pop() !== tag)
        return `Bad Request: can't parse entities: can't find end tag corresponding to start tag "${tag}"`;
    }
    if (open.length > 0)
      return `Bad Request: can't parse entities: can't find end tag corresponding to start tag "${open.at(-1)!}"`;
    plain = text.replace(/<[^>]*>/g, '').replace(/&[^;]+;/g, 'x');
  }
  if (plain.length === 0) return 'Bad Request: message text is empty';
  if (plain.length > 4096) return 'Bad Request: message is too long';
  return null;
}

/**
 * A Telegram Bot API double: POST /bot<token>/sendMessage with a JSON body; refuses (400) what
 * Telegram refuses: broken HTML entities, text over 4096 characters.
 */
export async function startTelegramDouble(
  token: string,
): Promise<HttpReceiver & { messages(): { chat_id: string; text: string; parse_mode: string }[] }> {
  let nextId = 1;
  const rx = await startHttpReceiver((r) => {
    const m = JSON.parse(r.body) as { text?: string; parse_mode?: string };
    const refused = telegramRefusal(m.text ?? '', m.parse_mode);
    if (refused) return { status: 400, body: JSON.stringify({ ok: false, error_code: 400, description: refused }) };
    return JSON.stringify({ ok: true, result: { message_id: nextId++ } });
  });
  return Object.assign(rx, {
    messages: () =>
      rx.requests
        .filter((r) => r.path === `/bot${token}/sendMessage`)
        .map((r) => JSON.parse(r.body) as { chat_id: string; text: string; parse_mode: string }),
  });
}

export interface SmtpDouble {
  port: number;
  mails: ParsedMail[];
  close(): Promise<void>;
}

/**
 * An SMTP server accepting any sender and recipient. Plain by default (SMTP_SECURITY=none); `tls`
 * offers STARTTLS with a self-signed certificate and requires a login (`user`/`password`);
 * `rejectTo` answers 550 for that recipient.
 */
export async function startSmtpDouble(
  opts: { tls?: boolean; user?: string; password?: string; rejectTo?: string } = {},
): Promise<SmtpDouble> {
  const mails: ParsedMail[] = [];
  const pems = opts.tls ? await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' }) : null;
  const server = new SMTPServer({
    authOptional: !opts.user,
    disabledCommands: pems ? [] : ['STARTTLS', 'AUTH'],
    ...(pems ? { key: pems.private, cert: pems.cert } : {}),
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address === opts.rejectTo) callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
      else callback();
    },
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (m) => {
          mails.push(m);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function startRole(role: RoleStarter, config: Config) {
  const clients = new Clients(config);
  const { log, lines } = memoryLogger();
  const handle: RoleHandle = await role({ config, log, clients });
  return {
    handle,
    logLines: lines,
    async close() {
      await handle.close?.();
      await clients.close();
    },
  };
}

export const startNotifyRole = (config: Config) => startRole(notifyRole, config);
export const startDeliverRole = (config: Config) => startRole(deliverRole, config);

/**
 * The notification pipeline of the delivery tests: the test's own stores (Kafka topics included) under
 * testConfig(name, env), and the notify and deliver roles on them. `close` stops the roles, then drops
 * the stores.
 */
export async function startNotifyPipeline(name: string, env: Record<string, string>) {
  const config = testConfig(name, env);
  const stores: TestStores = await createTestStores(config);
  const roles = await Promise.all([startNotifyRole(config), startDeliverRole(config)]);
  return {
    config,
    stores,
    async close() {
      await Promise.all(roles.map((r) => r.close()));
      await stores.drop();
    },
  };
}

export interface PushMessage {
  /** the subscription the message was sent to (the path of its endpoint) */
  path: string;
  ttl: string | undefined;
  urgency: string | undefined;
  topic: string | undefined;
  /** the decrypted payload (aes128gcm with the subscription's private key) */
  payload: Record<string, unknown>;
  /** claims of the verified VAPID JWT */
  vapid: { aud: string; sub: string; exp: number };
}

export interface PushSubscriptionKeys {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushServiceDouble {
  origin: string;
  messages: PushMessage[];
  /** requests refused (bad VAPID JWT or undecryptable body), with why */
  refused: string[];
  /** status to answer per subscription path, in order (default 201) */
  script: Map<string, number[]>;
  /** A new subscription on this service (its own P-256 key pair and auth secret). */
  subscribe(): PushSubscriptionKeys;
  close(): Promise<void>;
}

/**
 * A Web Push service over HTTPS on 127.0.0.1 (self-signed certificate; clients set
 * NODE_TLS_REJECT_UNAUTHORIZED or trust it): checks the VAPID JWT (ES256, `aud` = this origin, signed
 * by the key in `k=`), decrypts the aes128gcm payload with the subscription's private key and auth
 * secret (http_ece, RFC 8291), and answers 201, or what the script says (429, 410...).
 */
export async function startPushServiceDouble(expectedPublicKey?: () => string): Promise<PushServiceDouble> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], { keyType: 'ec' });
  const subs = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  const messages: PushMessage[] = [];
  const refused: string[] = [];
  const script = new Map<string, number[]>();
  let origin = '';
  const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = req.url ?? '';
        const sub = subs.get(path);
        const auth = String(req.headers.authorization ?? '');
        const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(auth);
        try {
          if (!sub) throw new Error(`no subscription ${path}`);
          if (!m) throw new Error(`no VAPID authorization: ${auth}`);
          if (expectedPublicKey && m[2] !== expectedPublicKey()) throw new Error('VAPID key is not the service key');
          const raw = Buffer.from(m[2]!, 'base64url');
          const jwk = {
            kty: 'EC',
            crv: 'P-256',
            x: raw.subarray(1, 33).toString('base64url'),
            y: raw.subarray(33, 65).toString('base64url'),
          };
          const { payload } = await jwtVerify(m[1]!, await importJWK(jwk, 'ES256'), { audience: origin, algorithms: ['ES256'] });
          if (req.headers['content-encoding'] !== 'aes128gcm')
            throw new Error(`content-encoding ${req.headers['content-encoding']}`);
          const plain = ece.decrypt(Buffer.concat(chunks), {
            version: 'aes128gcm',
            privateKey: sub.ecdh,
            authSecret: sub.auth.toString('base64url'),
          });
          const status = script.get(path)?.shift() ?? 201;
          if (status < 300)
            messages.push({
              path,
              ttl: req.headers.ttl as string | undefined,
              urgency: req.headers.urgency as string | undefined,
              topic: req.headers.topic as string | undefined,
              payload: JSON.parse(plain.toString('utf8')) as Record<string, unknown>,
              vapid: payload as PushMessage['vapid'],
            });
          res.writeHead(status).end();
        } catch (err) {
          refused.push((err as Error).message);
          res.writeHead(400).end((err as Error).message);
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let n = 0;
  return {
    origin,
    messages,
    refused,
    script,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${++n}-${randomBytes(4).toString('hex')}`;
      subs.set(path, { ecdh, auth });
      return {
        endpoint: `${origin}${path}`,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
