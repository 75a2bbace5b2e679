// A small WS-Management (MS-WSMV) client for the Windows remote shell: Create shell, Command, Receive
// (until the command is Done), Signal terminate, Delete shell. HTTP or HTTPS (certificate check
// configurable), Basic or NTLM authentication. Requests are SOAP 1.2 envelopes; replies are parsed with
// fast-xml-parser, faults become RemoteErrors carrying the WSManFault message.
//
// NTLM (MS-NLMP, NTLMv2 response, ntlm-session.ts) authenticates a connection, not a request: NEGOTIATE
// and AUTHENTICATE travel with empty bodies on one keep-alive socket (an agent with a single socket per
// client), as WinRM offers it under the `Negotiate` scheme and as pywinrm does it; the requests after
// it on that socket carry no header; a 401 (new socket) runs the handshake again. Over plain HTTP every
// message is sealed with the connection's NTLM session security (MS-WSMV 2.2.9.1.1: a
// `multipart/encrypted` body, `application/HTTP-SPNEGO-session-encrypted`, the 16-byte signature and
// the RC4-sealed SOAP), and every reply must come back sealed and signed in sequence, which is what a
// Windows host with its defaults (`winrm quickconfig`: HTTP listener, AllowUnencrypted=false) demands.
// Over HTTPS, TLS protects the messages and they travel as they are.
//
// No credential goes to an unverified peer (issue 21): the client dials the address that was checked
// against the target networks (`connectAddress`), Basic (the password itself) is sent only over HTTPS
// to a certificate `verifyPeer` approved (the host's pin), and over HTTPS every connection completes
// its TLS handshake and has its certificate's SHA-256 approved before the first byte of a request is
// written.
import { Agent as HttpAgent, request as httpRequest, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { createHash, randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { RemoteError } from './errors.ts';
import {
  NtlmIntegrityError,
  NtlmSessionSecurity,
  authenticateMessage,
  negotiateMessage,
  readChallenge,
  tlsChannelBindings,
} from './ntlm-session.ts';

export const NS = {
  s: 'http://www.w3.org/2003/05/soap-envelope',
  a: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  w: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  p: 'http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd',
  rsp: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
} as const;
export const CMD_SHELL_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
export const ACTIONS = {
  create: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Create',
  delete: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete',
  command: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command',
  receive: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Receive',
  signal: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Signal',
} as const;
const STATE_DONE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done';
const SIGNAL_TERMINATE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate';

export interface WinrmTarget {
  address: string;
  port: number;
  transport: 'http' | 'https';
  username: string;
  password: string;
  verifyTls: boolean;
  /**
   * basic (default; HTTPS with `verifyPeer` only) or ntlm (NTLMv2; over plain HTTP every message is
   * sealed with NTLM session security, over HTTPS TLS protects it)
   */
  auth?: 'basic' | 'ntlm';
  /** The IP to dial: `address` resolved once and checked against the target networks (default: `address`). */
  connectAddress?: string;
  /**
   * HTTPS: gets the SHA-256 (hex) of the certificate the first connection presents, after the TLS
   * handshake and before any request; throws (a RemoteError) to refuse the peer. Every later connection
   * of the client must present the same certificate. Without it HTTPS needs `verifyTls`.
   */
  verifyPeer?: (certSha256: string, peer: PeerCertificate) => Promise<void>;
  /**
   * The operator's CA (PEM, SERVICE_WINRM_CA_FILE): the only roots the certificate check uses (never
   * the public ones); `PeerCertificate.caTrusted` says whether it issued the host's certificate for its name.
   */
  ca?: Buffer;
}

/** What the TLS handshake showed of the host's certificate, for the pin decision and an admin's review. */
export interface PeerCertificate {
  subject: string;
  issuer: string;
  valid_from: string;
  valid_to: string;
  /** Issued by the operator's CA (`ca`) for the host's name, and in its validity period. */
  caTrusted: boolean;
}

/** A distinguished name as one line (CN=…, O=…), in the order Node gives its parts. */
function dnText(dn: Record<string, string | string[]> | undefined): string {
  return Object.entries(dn ?? {})
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

/** An HTTPS agent whose connections are opened (and verified) by `open` before any request is written. */
class VerifiedTlsAgent extends HttpsAgent {
  private readonly open: () => Promise<TLSSocket>;
  constructor(open: () => Promise<TLSSocket>) {
    super({ keepAlive: true, maxSockets: 1, maxCachedSessions: 0 });
    this.open = open;
  }
  override createConnection(_options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) {
    this.open().then(
      (socket) => callback?.(null, socket),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/** The hex SHA-256 of a certificate (DER), as hosts.winrm_cert_sha256 stores it. */
export const certificateSha256 = (der: Buffer) => createHash('sha256').update(der).digest('hex');

/** `DOMAIN\\user` -> NTLM user and domain; `user@domain` (UPN) and `user` travel with an empty or the server's domain. */
export function ntlmAccount(username: string): { user: string; domain: string | undefined } {
  const at = username.indexOf('\\');
  if (at > 0) return { user: username.slice(at + 1), domain: username.slice(0, at) };
  return { user: username, domain: username.includes('@') ? '' : undefined };
}

/** The NTLM token of a `WWW-Authenticate: Negotiate <token>` (or NTLM) header, with its scheme. */
function ntlmChallengeOf(header: string | string[] | undefined): { scheme: string; token: string } | null {
  for (const h of Array.isArray(header) ? header : header ? [header] : []) {
    const m = /(?:^|,\s*)(Negotiate|NTLM) ([A-Za-z0-9+/]+=*)/i.exec(h);
    if (m) return { scheme: m[1]!, token: m[2]! };
  }
  return null;
}

/** MS-WSMV 2.2.9.1.1: the protocol of a body sealed with the connection's SPNEGO (here NTLM) session security. */
export const ENCRYPTED_PROTOCOL = 'application/HTTP-SPNEGO-session-encrypted';
export const ENCRYPTED_CONTENT_TYPE = `multipart/encrypted;protocol="${ENCRYPTED_PROTOCOL}";boundary="Encrypted Boundary"`;
const BOUNDARY = Buffer.from('--Encrypted Boundary\r\n', 'ascii');
const FINAL_BOUNDARY = Buffer.from('--Encrypted Boundary--\r\n', 'ascii');

/** A body whose Content-Type says it is sealed (the reply to a sealed request must be). */
export const isEncryptedContentType = (contentType: string | undefined) =>
  /^multipart\/encrypted\s*;/i.test(contentType ?? '') &&
  /;\s*protocol="application\/HTTP-SPNEGO-session-encrypted"/i.test(contentType ?? '');

/**
 * The `multipart/encrypted` body carrying `soap` sealed (MS-WSMV 2.2.9.1.1, as pywinrm's
 * encryption.py frames it): a part naming the original content and its length, then an octet-stream
 * part holding the signature length (4 bytes, little-endian), the 16-byte NTLM signature and the
 * sealed message.
 */
export function sealedBody(security: NtlmSessionSecurity, soap: Buffer): Buffer {
  const { signature, sealed } = security.wrap(soap);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(signature.length);
  return Buffer.concat([
    BOUNDARY,
    Buffer.from(
      `\tContent-Type: ${ENCRYPTED_PROTOCOL}\r\n\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=${soap.length}\r\n`,
      'ascii',
    ),
    BOUNDARY,
    Buffer.from('\tContent-Type: application/octet-stream\r\n', 'ascii'),
    len,
    signature,
    sealed,
    FINAL_BOUNDARY,
  ]);
}

/**
 * Opens a `multipart/encrypted` body: unseals it, verifies its signature and sequence number
 * (NtlmIntegrityError when they fail) and checks the length it announced. Throws on any other framing.
 */
export function openedBody(security: NtlmSessionSecurity, body: Buffer): Buffer {
  if (!body.subarray(0, BOUNDARY.length).equals(BOUNDARY)) throw new Error('the encrypted body does not start with its boundary');
  const second = body.indexOf(BOUNDARY, BOUNDARY.length);
  if (second < 0) throw new Error('the encrypted body has no second part');
  const meta = body.subarray(BOUNDARY.length, second).toString('latin1');
  if (!/Content-Type:\s*application\/HTTP-SPNEGO-session-encrypted/i.test(meta))
    throw new Error('the encrypted body names another protocol');
  const length = /OriginalContent:\s*type=[^\r\n]*;Length=(\d+)/i.exec(meta);
  if (!length) throw new Error('the encrypted body does not give the original length');
  let rest = body.subarray(second + BOUNDARY.length);
  const eol = rest.indexOf('\r\n');
  if (eol < 0 || !/^\s*Content-Type:\s*application\/octet-stream\s*$/i.test(rest.subarray(0, eol).toString('latin1')))
    throw new Error('the encrypted part is not application/octet-stream');
  rest = rest.subarray(eol + 2);
  // Windows closes with `--Encrypted Boundary--`, older writers with the plain boundary.
  for (const end of [FINAL_BOUNDARY, BOUNDARY, FINAL_BOUNDARY.subarray(0, -2)])
    if (rest.length >= end.length && rest.subarray(rest.length - end.length).equals(end)) {
      rest = rest.subarray(0, rest.length - end.length);
      break;
    }
  if (rest.length < 4 || rest.readUInt32LE(0) !== 16 || rest.length < 20)
    throw new Error('the encrypted part holds no NTLM signature');
  const message = security.unwrap(rest.subarray(20), rest.subarray(4, 20));
  if (message.length !== Number(length[1]))
    throw new NtlmIntegrityError(`the unsealed message is ${message.length} bytes, the frame announced ${length[1]}`);
  return message;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

export function endpointUrl(t: Pick<WinrmTarget, 'address' | 'port' | 'transport'>): string {
  const host = t.address.includes(':') ? `[${t.address}]` : t.address;
  return `${t.transport}://${host}:${t.port}/wsman`;
}

/** One SOAP envelope of the shell protocol. */
export function envelope(o: {
  to: string;
  action: string;
  shellId?: string;
  body: string;
  options?: Record<string, string>;
}): string {
  const selector = o.shellId
    ? `<w:SelectorSet><w:Selector Name="ShellId">${xmlEscape(o.shellId)}</w:Selector></w:SelectorSet>`
    : '';
  const options = o.options
    ? `<w:OptionSet>${Object.entries(o.options)
        .map(([k, v]) => `<w:Option Name="${xmlEscape(k)}">${xmlEscape(v)}</w:Option>`)
        .join('')}</w:OptionSet>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<s:Envelope xmlns:s="${NS.s}" xmlns:a="${NS.a}" xmlns:w="${NS.w}" xmlns:p="${NS.p}" xmlns:rsp="${NS.rsp}">` +
    `<s:Header>` +
    `<a:To>${xmlEscape(o.to)}</a:To>` +
    `<a:ReplyTo><a:Address s:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo>` +
    `<a:Action s:mustUnderstand="true">${o.action}</a:Action>` +
    `<w:MaxEnvelopeSize s:mustUnderstand="true">512000</w:MaxEnvelopeSize>` +
    `<a:MessageID>uuid:${randomUUID()}</a:MessageID>` +
    `<w:Locale xml:lang="en-US" s:mustUnderstand="false"/>` +
    `<p:DataLocale xml:lang="en-US" s:mustUnderstand="false"/>` +
    `<w:OperationTimeout>PT20S</w:OperationTimeout>` +
    `<w:ResourceURI s:mustUnderstand="true">${CMD_SHELL_URI}</w:ResourceURI>` +
    selector +
    options +
    `</s:Header><s:Body>${o.body}</s:Body></s:Envelope>`
  );
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'Stream' || name === 'Selector',
});

type Xml = Record<string, unknown>;
const get = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Xml)[k] : undefined), o);
const text = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as Xml)['#text'] === 'string'
      ? ((v as Xml)['#text'] as string)
      : undefined;

/** The human message of a SOAP fault (WSManFault message first, then the SOAP reason). */
export function faultMessage(doc: unknown): string | undefined {
  const fault = get(doc, 'Envelope', 'Body', 'Fault');
  if (!fault) return undefined;
  const wsman = get(fault, 'Detail', 'WSManFault');
  const msg = text(get(wsman, 'Message')) ?? text(get(wsman, 'Message', 'ProviderFault'));
  const reason = text(get(fault, 'Reason', 'Text'));
  const code = text(get(fault, 'Code', 'Subcode', 'Value'));
  return (msg ?? reason ?? code ?? 'WS-Management fault').trim();
}

function isTimedOutFault(doc: unknown): boolean {
  return (text(get(doc, 'Envelope', 'Body', 'Fault', 'Code', 'Subcode', 'Value')) ?? '').endsWith(':TimedOut');
}

export class WinrmClient {
  private readonly t: WinrmTarget;
  private readonly signal: AbortSignal;
  readonly url: string;
  private agent: HttpAgent | undefined;
  /** The NTLM-authenticated connection: its session security when messages are sealed. */
  private ntlm: { security: NtlmSessionSecurity | undefined } | undefined;
  /** The certificate the first HTTPS connection presented and `verifyPeer` approved. */
  private peerSha256: string | undefined;

  constructor(target: WinrmTarget, signal: AbortSignal) {
    this.t = target;
    this.signal = signal;
    this.url = endpointUrl(target);
    if (target.transport === 'http' && (target.auth ?? 'basic') === 'basic')
      throw new RemoteError(
        `WinRM at ${this.url}: Basic authentication is never sent over plain HTTP (the password would travel readable)`,
      );
    if ((target.auth ?? 'basic') === 'basic' && !target.verifyPeer)
      throw new RemoteError(
        `WinRM at ${this.url}: Basic authentication is sent only to the host's pinned certificate (HTTPS with a certificate pin), never to a certificate that is merely valid`,
      );
    if (target.transport === 'https' && !target.verifyTls && !target.verifyPeer)
      throw new RemoteError(`WinRM at ${this.url}: the host's certificate is neither checked nor pinned`);
  }

  /** Whether messages travel sealed with NTLM session security (NTLM over plain HTTP: always). */
  get sealed(): boolean {
    return this.t.auth === 'ntlm' && this.t.transport === 'http';
  }

  /** The certificate (hex SHA-256) this client's connections presented, once one did. */
  get certificateSha256(): string | undefined {
    return this.peerSha256;
  }

  /** POSTs one envelope; returns the parsed reply. Faults and HTTP errors become RemoteErrors. */
  private async post(body: string, opts: { allowTimedOut?: boolean } = {}): Promise<unknown> {
    const { status, text: reply } =
      this.t.auth === 'ntlm' ? await this.ntlmHttp(body) : await this.http(Buffer.from(body, 'utf8'), this.basicAuth());
    if (status === 401) throw new RemoteError(`WinRM at ${this.url}: authentication refused (HTTP 401) for ${this.t.username}`);
    let doc: unknown;
    try {
      doc = reply.trim() ? parser.parse(reply) : undefined;
    } catch {
      throw new RemoteError(`WinRM at ${this.url}: unreadable reply (HTTP ${status})`);
    }
    if (opts.allowTimedOut && isTimedOutFault(doc)) return undefined;
    const fault = faultMessage(doc);
    if (fault) throw new RemoteError(`WinRM at ${this.url}: ${fault}`);
    if (status !== 200) throw new RemoteError(`WinRM at ${this.url}: HTTP ${status}`);
    return doc;
  }

  private basicAuth(): string {
    return `Basic ${Buffer.from(`${this.t.username}:${this.t.password}`, 'utf8').toString('base64')}`;
  }

  /**
   * One socket at a time, kept alive until `close` (NTLM authenticates the connection); over HTTPS each
   * connection is verified before the agent hands it to a request.
   */
  private connection(): HttpAgent {
    this.agent ??=
      this.t.transport === 'https'
        ? new VerifiedTlsAgent(() => this.dialTls())
        : new HttpAgent({ keepAlive: true, maxSockets: 1 });
    return this.agent;
  }

  /** The address dialled: the checked IP. */
  private get dialAddress(): string {
    return this.t.connectAddress ?? this.t.address;
  }

  /**
   * A TLS connection to the checked address whose handshake is complete (the CA and name check when
   * verifyTls) and whose certificate is the approved one: the first is approved by `verifyPeer`, later
   * ones must present the same. Nothing has been written to it yet.
   */
  private dialTls(): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(new RemoteError(`WinRM at ${this.url}: timed out`));
      const name = this.t.address;
      const socket = tlsConnect({
        host: this.dialAddress,
        port: this.t.port,
        // SNI and the certificate's name check use the host's name, not the address dialled.
        ...(isIP(name) ? {} : { servername: name }),
        rejectUnauthorized: this.t.verifyTls,
        ...(this.t.ca ? { ca: this.t.ca } : {}),
      });
      const fail = (err: unknown) => {
        this.signal.removeEventListener('abort', onAbort);
        socket.destroy();
        reject(err instanceof RemoteError ? err : this.transportError(err as NodeJS.ErrnoException));
      };
      const onAbort = () => fail(new RemoteError(`WinRM at ${this.url}: timed out`));
      this.signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', fail);
      socket.once('secureConnect', () => {
        socket.removeListener('error', fail);
        // Until the agent installs its own listeners, an error only ends this attempt.
        socket.on('error', () => {});
        const cert = socket.getPeerCertificate();
        const der = cert.raw as Buffer | undefined;
        if (!der) return fail(new RemoteError(`WinRM at ${this.url}: the host presented no certificate`));
        const sha256 = certificateSha256(der);
        const peer: PeerCertificate = {
          subject: dnText(cert.subject as unknown as Record<string, string>),
          issuer: dnText(cert.issuer as unknown as Record<string, string>),
          valid_from: cert.valid_from,
          valid_to: cert.valid_to,
          // `authorized` is the chain check against `ca` alone; the name is checked as verifyTls would.
          caTrusted: Boolean(this.t.ca) && socket.authorized && checkServerIdentity(name, cert) === undefined,
        };
        const approved = async () => {
          if (this.peerSha256 === undefined) {
            if (this.t.verifyPeer) await this.t.verifyPeer(sha256, peer);
            this.peerSha256 = sha256;
          } else if (sha256 !== this.peerSha256)
            throw new RemoteError(
              `WinRM at ${this.url}: the host presented another certificate during the action (SHA-256 ${sha256}, before ${this.peerSha256}); nothing was sent on it`,
            );
        };
        approved().then(() => {
          this.signal.removeEventListener('abort', onAbort);
          if (socket.destroyed)
            return reject(new RemoteError(`WinRM at ${this.url}: the connection closed during the certificate check`));
          resolve(socket);
        }, fail);
      });
    });
  }

  private transportError(err: NodeJS.ErrnoException): RemoteError {
    if (this.signal.aborted) return new RemoteError(`WinRM at ${this.url}: timed out`);
    if (this.t.transport === 'https' && /wrong version number/.test(err.message))
      return new RemoteError(
        `WinRM at ${this.url}: the host does not speak TLS on this port (an HTTP listener? use HTTPS, port 5986)`,
      );
    return new RemoteError(`WinRM at ${this.url}: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' ').trim());
  }

  /** A request on the NTLM-authenticated connection, running the handshake first when needed. */
  private async ntlmHttp(body: string): Promise<{ status: number; text: string }> {
    if (this.ntlm) {
      const r = await this.ntlmSend(body);
      if (r.status !== 401) return r;
      this.ntlm = undefined; // a new connection: authenticate it
    }
    const authenticated = await this.ntlmHandshake();
    if (!authenticated) return { status: 401, text: '' };
    return this.ntlmSend(body);
  }

  /**
   * NEGOTIATE / CHALLENGE / AUTHENTICATE with empty bodies on the agent's one socket (pywinrm's flow:
   * a sealed message needs the keys the AUTHENTICATE fixes). False when the host refuses the
   * credentials. The host must grant 128-bit keys and send a timestamp (for the MIC), and over HTTP
   * signing and sealing, all checked before AUTHENTICATE goes out. The AUTHENTICATE names the SPN
   * `HTTP/<host>` and, over HTTPS, binds the certificate of the connection the CHALLENGE came on
   * (RFC 5929 tls-server-end-point), so a host with Extended Protection (CbtHardeningLevel=Strict)
   * accepts it and refuses one relayed through another TLS connection.
   */
  private async ntlmHandshake(): Promise<boolean> {
    const { user, domain } = ntlmAccount(this.t.username);
    const negotiate = negotiateMessage();
    const first = await this.http(Buffer.alloc(0), `Negotiate ${negotiate.toString('base64')}`);
    const challenge = first.status === 401 ? ntlmChallengeOf(first.headers['www-authenticate']) : null;
    if (!challenge) {
      if (first.status === 401)
        throw new RemoteError(
          `WinRM at ${this.url}: the host offers no NTLM (Negotiate) authentication (WWW-Authenticate: ${String(first.headers['www-authenticate'] ?? 'none')})`,
        );
      throw new RemoteError(`WinRM at ${this.url}: unexpected HTTP ${first.status} to the NTLM negotiation`);
    }
    let auth;
    let security: NtlmSessionSecurity | undefined;
    try {
      if (this.t.transport === 'https' && !first.peerCertificate)
        throw new Error("the connection's certificate is unknown, so the handshake cannot be bound to it");
      auth = authenticateMessage({
        negotiate,
        challenge: readChallenge(Buffer.from(challenge.token, 'base64')),
        user,
        domain,
        password: this.t.password,
        workstation: 'WATCHPOST',
        targetName: `HTTP/${this.t.address}`,
        channelBindings: first.peerCertificate ? tlsChannelBindings(first.peerCertificate) : undefined,
      });
      if (this.sealed) security = new NtlmSessionSecurity(auth.exportedSessionKey, auth.flags, 'client');
    } catch (err) {
      throw new RemoteError(`WinRM at ${this.url}: NTLM: ${(err as Error).message}`);
    }
    const second = await this.http(Buffer.alloc(0), `${challenge.scheme} ${auth.message.toString('base64')}`);
    if (second.status === 401) return false;
    if (second.status !== 200)
      throw new RemoteError(`WinRM at ${this.url}: unexpected HTTP ${second.status} to the NTLM authentication`);
    this.ntlm = { security };
    return true;
  }

  /** One request on the authenticated connection: sealed over HTTP, the reply opened and verified. */
  private async ntlmSend(body: string): Promise<{ status: number; text: string }> {
    const security = this.ntlm?.security;
    const soap = Buffer.from(body, 'utf8');
    if (!security) return this.http(soap, undefined);
    const r = await this.http(sealedBody(security, soap), undefined, ENCRYPTED_CONTENT_TYPE);
    if (isEncryptedContentType(String(r.headers['content-type'] ?? ''))) {
      try {
        return { status: r.status, text: openedBody(security, r.body).toString('utf8') };
      } catch (err) {
        this.close(); // the connection's keystreams are out of step now
        throw new RemoteError(
          err instanceof NtlmIntegrityError
            ? `WinRM at ${this.url}: the host's reply fails its NTLM signature check (altered on the way?): nothing of it was used`
            : `WinRM at ${this.url}: unreadable encrypted reply (${(err as Error).message})`,
        );
      }
    }
    // A reply the host did not seal is an error status at best (401: a new connection); never a result.
    if (r.status === 200)
      throw new RemoteError(`WinRM at ${this.url}: the host answered a sealed request unsealed (HTTP 200): refused`);
    return r;
  }

  /** Frees the NTLM connection (the client can still be used: a new one is authenticated). */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.ntlm = undefined;
  }

  private http(
    body: Buffer,
    authorization: string | undefined,
    contentType = 'application/soap+xml;charset=UTF-8',
  ): Promise<{
    status: number;
    text: string;
    body: Buffer;
    headers: Record<string, string | string[] | undefined>;
    /** HTTPS: the certificate (DER) of the connection the reply came on (the NTLM channel binding). */
    peerCertificate?: Buffer;
  }> {
    const u = new URL(this.url);
    const opts = {
      method: 'POST',
      // the checked address, never the name again (no second resolution); the name stays in Host
      hostname: this.dialAddress,
      port: u.port,
      path: u.pathname,
      headers: {
        host: u.host,
        'content-type': contentType,
        'content-length': body.length,
        ...(authorization ? { authorization } : {}),
        'user-agent': 'watchpost WinRM client',
      },
      signal: this.signal,
      agent: this.connection(),
    };
    return new Promise((resolve, reject) => {
      const req = (this.t.transport === 'https' ? httpsRequest : httpRequest)(opts, (res) => {
        const socket = res.socket as Partial<TLSSocket> | null;
        const peerCertificate =
          this.t.transport === 'https' && typeof socket?.getPeerCertificate === 'function'
            ? (socket.getPeerCertificate(true).raw as Buffer | undefined)
            : undefined;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 8 * 1024 * 1024) req.destroy(new Error('reply larger than 8 MiB'));
          else chunks.push(c);
        });
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            text: raw.toString('utf8'),
            body: raw,
            headers: res.headers,
            ...(peerCertificate ? { peerCertificate } : {}),
          });
        });
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        reject(err instanceof RemoteError && !this.signal.aborted ? err : this.transportError(err));
      });
      req.end(body);
    });
  }

  async createShell(): Promise<string> {
    const doc = await this.post(
      envelope({
        to: this.url,
        action: ACTIONS.create,
        options: { WINRS_NOPROFILE: 'TRUE', WINRS_CODEPAGE: '65001' },
        body: '<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>',
      }),
    );
    const selectors = get(doc, 'Envelope', 'Body', 'ResourceCreated', 'ReferenceParameters', 'SelectorSet', 'Selector');
    const fromSelector = Array.isArray(selectors)
      ? selectors.map((s) => (get(s, '@Name') === 'ShellId' ? text(s) : undefined)).find(Boolean)
      : undefined;
    const id = text(get(doc, 'Envelope', 'Body', 'Shell', 'ShellId')) ?? fromSelector;
    if (!id) throw new RemoteError(`WinRM at ${this.url}: the reply to Create shell holds no ShellId`);
    return id;
  }

  async command(shellId: string, command: string, args: string[]): Promise<string> {
    const argXml = args.map((a) => `<rsp:Arguments>${xmlEscape(a)}</rsp:Arguments>`).join('');
    const doc = await this.post(
      envelope({
        to: this.url,
        action: ACTIONS.command,
        shellId,
        options: { WINRS_CONSOLEMODE_STDIN: 'TRUE', WINRS_SKIP_CMD_SHELL: 'FALSE' },
        body: `<rsp:CommandLine><rsp:Command>${xmlEscape(command)}</rsp:Command>${argXml}</rsp:CommandLine>`,
      }),
    );
    const id = text(get(doc, 'Envelope', 'Body', 'CommandResponse', 'CommandId'));
    if (!id) throw new RemoteError(`WinRM at ${this.url}: the reply to Command holds no CommandId`);
    return id;
  }

  /** Receives until the command is Done; output bounded at 4 MiB per stream. */
  async receive(shellId: string, commandId: string): Promise<CommandResult> {
    const out: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
    for (;;) {
      if (this.signal.aborted) throw new RemoteError(`WinRM at ${this.url}: timed out`);
      const doc = await this.post(
        envelope({
          to: this.url,
          action: ACTIONS.receive,
          shellId,
          options: { WSMAN_CMDSHELL_OPTION_KEEPALIVE: 'TRUE' },
          body: `<rsp:Receive><rsp:DesiredStream CommandId="${xmlEscape(commandId)}">stdout stderr</rsp:DesiredStream></rsp:Receive>`,
        }),
        { allowTimedOut: true },
      );
      if (doc === undefined) continue; // the operation timed out on the server with nothing new: ask again
      const resp = get(doc, 'Envelope', 'Body', 'ReceiveResponse');
      for (const s of (get(resp, 'Stream') as unknown[] | undefined) ?? []) {
        const name = get(s, '@Name');
        const data = text(s);
        if ((name === 'stdout' || name === 'stderr') && data) {
          const buf = Buffer.from(data, 'base64');
          if (out[name].reduce((n, b) => n + b.length, 0) + buf.length <= 4 * 1024 * 1024) out[name].push(buf);
        }
      }
      const state = get(resp, 'CommandState');
      if (get(state, '@State') === STATE_DONE) {
        const code = Number(text(get(state, 'ExitCode')) ?? '0');
        return {
          exitCode: Number.isFinite(code) ? code : -1,
          stdout: Buffer.concat(out.stdout).toString('utf8'),
          stderr: Buffer.concat(out.stderr).toString('utf8'),
        };
      }
    }
  }

  async signalTerminate(shellId: string, commandId: string): Promise<void> {
    await this.post(
      envelope({
        to: this.url,
        action: ACTIONS.signal,
        shellId,
        body: `<rsp:Signal CommandId="${xmlEscape(commandId)}"><rsp:Code>${SIGNAL_TERMINATE}</rsp:Code></rsp:Signal>`,
      }),
    );
  }

  async deleteShell(shellId: string): Promise<void> {
    await this.post(envelope({ to: this.url, action: ACTIONS.delete, shellId, body: '' }));
  }

  /** Runs one command in a fresh shell and always cleans up (terminate, delete, the connection) after. */
  async run(command: string, args: string[] = []): Promise<CommandResult> {
    try {
      const shellId = await this.createShell();
      try {
        const commandId = await this.command(shellId, command, args);
        try {
          return await this.receive(shellId, commandId);
        } finally {
          await this.signalTerminate(shellId, commandId).catch(() => {});
        }
      } finally {
        await this.deleteShell(shellId).catch(() => {});
      }
    } finally {
      this.close();
    }
  }
}
