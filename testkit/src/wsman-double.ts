// A WS-Management test double for the Windows remote shell over a real HTTP socket. It speaks the SOAP
// envelopes of MS-WSMV (Create shell, Command, Receive, Signal, Delete), demands Basic or NTLM
// authentication (NTLM as WinRM offers it: `Negotiate` carrying NTLMSSP, the connection authenticated
// after the handshake, the NTLMv2 response checked against the password; ntlm-server.ts),
// and over plain HTTP behaves as Windows does with its defaults (`winrm quickconfig`,
// AllowUnencrypted=false): Basic is refused with 401, and after the NTLM handshake only messages sealed
// with the connection's NTLM session security are accepted (MS-WSMV 2.2.9.1.1 `multipart/encrypted`
// framing; the signature and its sequence number verified, else 400), an unsealed one gets 401; the
// answers to sealed requests are sealed. `allowUnencrypted` is the lab setting that lets plain ones in.
// checks each request's addressing and WS-Man headers (the elements MS-WSMV marks required, with the
// shell resource URI and a ShellId selector where the operation needs one) and answers a SOAP fault as
// WinRM does when one is missing. Commands answer recorded outputs: qwinsta lists `sessions`, logoff
// removes one (or fails like Windows for an unknown id), hostname prints the host name, and
// powershell.exe -EncodedCommand hands the decoded script to `onPowerShell`.
// Plain HTTP by default; `tls` makes it an HTTPS listener with a self-signed certificate (its SHA-256
// in `certSha256`; `rotateCertificate` presents another one, as a reinstalled host or an impostor
// would). `connections` and `seen` record every connection and every request as it arrived, before
// authentication: what reached the double, credentials included.
// NTLM is checked as a Windows host with Extended Protection checks it: the MIC, the target name (the
// SPN `spn`, default `HTTP/127.0.0.1`, the address the tests dial) and, over HTTPS, the channel binding
// to the certificate of the connection (a missing one refused: CbtHardeningLevel=Strict).
// `ntlmChallenge` makes its CHALLENGE withhold 128-bit keys or the timestamp.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import selfsigned from 'selfsigned';
import { XMLParser } from 'fast-xml-parser';
import { inflateRawSync } from 'node:zlib';
import {
  NTLM_FLAGS,
  ServerSessionSecurity,
  acceptSession,
  challengeMessage,
  messageType,
  negotiateFlags,
  readAuthenticate,
  verifyAuthenticate,
} from './ntlm-server.ts';

export interface DoubleSession {
  session_name: string;
  username: string;
  id: number;
  state: string;
}

export interface RecordedRequest {
  action: string;
  headers: Record<string, unknown>;
  body: unknown;
  xml: string;
  command?: { command: string; args: string[] };
  /** it arrived sealed with NTLM session security (and was opened and verified) */
  sealed: boolean;
}

export interface WsmanDouble {
  port: number;
  url: string;
  sessions: DoubleSession[];
  requests: RecordedRequest[];
  /** open shells (created, not yet deleted) */
  shells: Set<string>;
  hostname: string;
  /** Authentication steps: `challenge`, `authenticated DOMAIN\\user`, `refused: <reason>` (NTLM), `basic` */
  authLog: string[];
  /** Messages refused after authentication: `unencrypted`, `signature` (sealed but altered), `framing` */
  refused: string[];
  /** Flips one byte of the next sealed reply's sealed payload (an on-path attacker). */
  tamperNextReply(): void;
  /** Script run by powershell.exe -EncodedCommand: returns what the command prints and its exit code. */
  onPowerShell: (script: string) => Promise<{ stdout: string; stderr?: string; exitCode: number }>;
  /** HTTPS (`tls`): the hex SHA-256 of the certificate presented now; undefined over plain HTTP. */
  certSha256: string | undefined;
  /** HTTPS: that certificate (PEM), self-signed: the CA an operator would trust for it. */
  certPem: string | undefined;
  /** HTTPS: presents a new self-signed certificate from now on; returns its SHA-256. */
  rotateCertificate(): Promise<string>;
  /** TCP connections accepted. */
  connections: number;
  /** Every HTTP request as it arrived, before authentication (its Authorization header included). */
  seen: { method: string; url: string; authorization: string | undefined; contentType: string | undefined }[];
  close(): Promise<void>;
}

async function selfSignedPair(): Promise<{ key: string; cert: string; sha256: string }> {
  // Its own CA (an operator's CA file may name it: SERVICE_WINRM_CA_FILE), issued for the address dialled.
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const der = new X509Certificate(pems.cert).raw;
  return { key: pems.private, cert: pems.cert, sha256: createHash('sha256').update(der).digest('hex') };
}

const SHELL_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
const A = 'http://schemas.xmlsoap.org/ws/2004/09/transfer/';
const SH = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/';
const DONE = `${SH}CommandState/Done`;
const RUNNING = `${SH}CommandState/Running`;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (n) => n === 'Arguments' || n === 'Selector' || n === 'Option',
});

const esc = (s: string) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

function reply(action: string, relatesTo: string, body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" ` +
    `xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:x="http://schemas.xmlsoap.org/ws/2004/09/transfer" ` +
    `xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" xmlns:rsp="${SH.slice(0, -1)}" xmlns:p="http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd">` +
    `<s:Header><a:Action>${action}</a:Action><a:MessageID>uuid:${randomUUID()}</a:MessageID>` +
    `<a:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:To><a:RelatesTo>${esc(relatesTo)}</a:RelatesTo></s:Header>` +
    `<s:Body>${body}</s:Body></s:Envelope>`
  );
}

export function wsmanFault(subcode: string, reason: string, message: string, code = 2150858843): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" ` +
    `xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd">` +
    `<s:Header><a:Action>http://schemas.dmtf.org/wbem/wsman/1/wsman/fault</a:Action></s:Header><s:Body><s:Fault>` +
    `<s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>${subcode}</s:Value></s:Subcode></s:Code>` +
    `<s:Reason><s:Text xml:lang="en-US">${esc(reason)}</s:Text></s:Reason>` +
    `<s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="${code}" Machine="double">` +
    `<f:Message>${esc(message)}</f:Message></f:WSManFault></s:Detail></s:Fault></s:Body></s:Envelope>`
  );
}

type X = Record<string, unknown>;
const get = (o: unknown, ...p: string[]): unknown =>
  p.reduce<unknown>((c, k) => (c && typeof c === 'object' ? (c as X)[k] : undefined), o);
const txt = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as X)['#text'] === 'string'
      ? ((v as X)['#text'] as string)
      : undefined;

export const ENCRYPTED_CONTENT_TYPE =
  'multipart/encrypted;protocol="application/HTTP-SPNEGO-session-encrypted";boundary="Encrypted Boundary"';
const BOUNDARY = '--Encrypted Boundary\r\n';

/** A reply sealed as Windows frames it (MS-WSMV 2.2.9.1.1); `tamper` flips a byte of the sealed payload. */
function sealFrame(security: ServerSessionSecurity, soap: Buffer, tamper: boolean): Buffer {
  const { sealed, signature } = security.seal(soap);
  if (tamper) sealed[Math.floor(sealed.length / 2)]! ^= 0x01;
  const len = Buffer.alloc(4);
  len.writeUInt32LE(16);
  return Buffer.concat([
    Buffer.from(
      `${BOUNDARY}\tContent-Type: application/HTTP-SPNEGO-session-encrypted\r\n` +
        `\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=${soap.length}\r\n` +
        `${BOUNDARY}\tContent-Type: application/octet-stream\r\n`,
      'latin1',
    ),
    len,
    signature,
    sealed,
    Buffer.from('--Encrypted Boundary--\r\n', 'latin1'),
  ]);
}

/** The client's sealed SOAP, opened and verified; `framing` or `signature` when it is refused. */
function openFrame(security: ServerSessionSecurity, body: Buffer): Buffer | 'framing' | 'signature' {
  const b = body.toString('latin1');
  const parts = b.split(BOUNDARY);
  // ['', metadata, octet-stream part (ending with the closing boundary)]
  if (parts.length < 3 || parts[0] !== '') return 'framing';
  const length = /OriginalContent: type=application\/soap\+xml;charset=UTF-8;Length=(\d+)\r\n$/.exec(parts[1]!);
  if (!/^\tContent-Type: application\/HTTP-SPNEGO-session-encrypted\r\n/.test(parts[1]!) || !length) return 'framing';
  const head = '\tContent-Type: application/octet-stream\r\n';
  const payloadAt = b.indexOf(head, BOUNDARY.length + parts[1]!.length + BOUNDARY.length);
  if (payloadAt < 0) return 'framing';
  let payload = body.subarray(payloadAt + head.length);
  const end = ['--Encrypted Boundary--\r\n', BOUNDARY].find((e) => payload.subarray(-e.length).toString('latin1') === e);
  if (!end) return 'framing';
  payload = payload.subarray(0, payload.length - end.length);
  if (payload.length < 20 || payload.readUInt32LE(0) !== 16) return 'framing';
  const msg = security.open(payload.subarray(20), payload.subarray(4, 20));
  if (!msg || msg.length !== Number(length[1])) return 'signature';
  return msg;
}

/** qwinsta output for the sessions, in the column layout Windows prints. */
export function qwinstaOutput(sessions: DoubleSession[]): string {
  const row = (cur: boolean, name: string, user: string, id: number, state: string) =>
    `${cur ? '>' : ' '}${name.padEnd(18)}${user.padEnd(22)}${String(id).padStart(5)}  ${state.padEnd(8)}`;
  return [
    ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE ',
    ...sessions.map((s) => row(s.id === 1, s.session_name, s.username, s.id, s.state)),
    '',
  ].join('\r\n');
}

/**
 * The WinRM part of a harness environment whose hosts are this double. Over HTTPS (`tls`) its
 * certificate is self-signed, so the CA check is off and the host's pinned certificate is the only
 * check; over plain HTTP (NTLM only, sealed: Basic is never sent there) the service must be allowed
 * to use plain HTTP (it cannot verify the host there).
 */
export function wsmanDoubleEnv(double: { port: number; certSha256: string | undefined }): Record<string, string> {
  if (double.certSha256 !== undefined)
    return { SERVICE_WINRM_PORT: String(double.port), SERVICE_WINRM_TRANSPORT: 'https', SERVICE_WINRM_VERIFY_TLS: 'false' };
  return { SERVICE_WINRM_PORT: String(double.port), SERVICE_WINRM_TRANSPORT: 'http', SERVICE_WINRM_ALLOW_UNENCRYPTED: 'true' };
}

export async function startWsmanDouble(opts: {
  username: string;
  password: string;
  sessions?: DoubleSession[];
  hostname?: string;
  /** basic (default) or ntlm */
  auth?: 'basic' | 'ntlm';
  /** an HTTPS listener with a self-signed certificate (default: plain HTTP) */
  tls?: boolean;
  /**
   * Windows' AllowUnencrypted (default false, as Windows ships): over plain HTTP, false refuses Basic
   * and every message not sealed with NTLM session security.
   */
  allowUnencrypted?: boolean;
  /** NTLM: the SPN the client must name (MsvAvTargetName); default `HTTP/127.0.0.1`. */
  spn?: string;
  /** NTLM: a CHALLENGE without 128-bit keys (`key128: false`) or without a timestamp (`timestamp: false`). */
  ntlmChallenge?: { key128?: boolean; timestamp?: boolean };
}): Promise<WsmanDouble> {
  const plainAllowed = Boolean(opts.tls) || opts.allowUnencrypted === true;
  const pair = opts.tls ? await selfSignedPair() : undefined;
  const outputs = new Map<string, { chunks: string[]; stderr: string; exitCode: number }>();
  const d: WsmanDouble = {
    port: 0,
    url: '',
    sessions: opts.sessions ?? [
      { session_name: 'services', username: '', id: 0, state: 'Disc' },
      { session_name: 'console', username: 'Administrator', id: 1, state: 'Active' },
      { session_name: 'rdp-tcp#12', username: 'alice', id: 2, state: 'Active' },
      { session_name: '', username: 'bob', id: 3, state: 'Disc' },
      { session_name: 'rdp-tcp', username: '', id: 65536, state: 'Listen' },
    ],
    requests: [],
    shells: new Set(),
    hostname: opts.hostname ?? 'WIN-SRV01',
    authLog: [],
    refused: [],
    tamperNextReply: () => {
      tamper = true;
    },
    onPowerShell: async () => ({ stdout: '', stderr: 'no PowerShell behaviour set', exitCode: 1 }),
    certSha256: pair?.sha256,
    certPem: pair?.cert,
    rotateCertificate: async () => {
      throw new Error('a plain HTTP double has no certificate');
    },
    connections: 0,
    seen: [],
    close: async () => {},
  };

  async function run(command: string, args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const c = command.toLowerCase();
    if (c === 'hostname' && args.length === 0) return { stdout: `${d.hostname}\r\n`, stderr: '', exitCode: 0 };
    if (c === 'qwinsta' && args.length === 0) return { stdout: qwinstaOutput(d.sessions), stderr: '', exitCode: 0 };
    if (c === 'logoff' && args.length === 1) {
      const id = /^\d+$/.test(args[0]!) ? Number(args[0]) : NaN;
      const i = d.sessions.findIndex((s) => s.id === id && s.username !== '');
      if (i < 0) return { stdout: '', stderr: `Invalid session identifier ${args[0]}.\r\n`, exitCode: 1 };
      d.sessions.splice(i, 1);
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    if (c === 'powershell.exe') {
      const at = args.findIndex((a) => a.toLowerCase() === '-encodedcommand');
      if (at < 0 || !args[at + 1]) return { stdout: '', stderr: 'only -EncodedCommand is supported here', exitCode: 1 };
      const r = await d.onPowerShell(Buffer.from(args[at + 1]!, 'base64').toString('utf16le'));
      return { stdout: r.stdout, stderr: r.stderr ?? '', exitCode: r.exitCode };
    }
    return {
      stdout: '',
      stderr: `'${command}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n`,
      exitCode: 1,
    };
  }

  let tamper = false;
  // NTLM authenticates the connection: the challenge, the authenticated state and the session
  // security belong to the socket.
  const ntlmState = new WeakMap<
    Socket,
    {
      challenge?: Buffer;
      transcript?: { negotiate: Buffer; challenge: Buffer };
      authenticated: boolean;
      security?: ServerSessionSecurity;
    }
  >();
  const domain = opts.username.includes('\\') ? opts.username.split('\\')[0]!.toUpperCase() : 'WORKGROUP';

  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const refuse = (challenge = opts.auth === 'ntlm' ? 'Negotiate' : 'Basic realm="WSMAN"') => {
      res.writeHead(401, { 'www-authenticate': challenge, 'content-length': 0 });
      res.end();
      return false;
    };
    const header = req.headers.authorization ?? '';
    if (opts.auth !== 'ntlm') {
      // Windows refuses Basic over HTTP unless AllowUnencrypted (the password would travel readable).
      if (!plainAllowed) {
        if (header.startsWith('Basic ')) d.authLog.push('refused: Basic over HTTP (AllowUnencrypted=false)');
        return refuse('Negotiate');
      }
      const expected = `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`;
      if (header !== expected) return refuse();
      d.authLog.push('basic');
      return true;
    }
    const st = ntlmState.get(req.socket) ?? { authenticated: false };
    ntlmState.set(req.socket, st);
    const m = /^(Negotiate|NTLM) ([A-Za-z0-9+/]+=*)$/i.exec(header);
    if (!m) return st.authenticated && header === '' ? true : refuse();
    const msg = Buffer.from(m[2]!, 'base64');
    const type = messageType(msg);
    st.authenticated = false;
    st.security = undefined;
    if (type === 1) {
      const c = challengeMessage({
        domain,
        computer: d.hostname,
        requested: negotiateFlags(msg) ?? 0,
        ...opts.ntlmChallenge,
      });
      st.challenge = c.challenge;
      st.transcript = { negotiate: msg, challenge: c.message };
      d.authLog.push('challenge');
      return refuse(`${m[1]} ${c.message.toString('base64')}`);
    }
    const challenge = st.challenge;
    st.challenge = undefined;
    const a = type === 3 ? readAuthenticate(msg) : null;
    let reason = !challenge
      ? 'no challenge on this connection'
      : !a
        ? 'not an NTLM AUTHENTICATE message'
        : verifyAuthenticate(a, challenge, opts);
    // Extended Protection: the SPN always, over TLS the certificate this connection presented.
    const ownCertificate = pair ? ((req.socket as TLSSocket).getCertificate() as { raw?: Buffer } | null)?.raw : undefined;
    const session =
      !reason && st.transcript
        ? acceptSession(a!, opts, st.transcript, {
            spn: opts.spn ?? 'HTTP/127.0.0.1',
            ...(ownCertificate ? { certificate: ownCertificate } : {}),
          })
        : undefined;
    if (session && 'error' in session) reason = session.error;
    if (reason) {
      d.authLog.push(`refused: ${reason}`);
      return refuse();
    }
    if (session && !('error' in session) && session.flags & NTLM_FLAGS.SEAL)
      st.security = new ServerSessionSecurity(session.exportedSessionKey, session.flags);
    st.authenticated = true;
    d.authLog.push(`authenticated ${a!.domain}\\${a!.user}`);
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    let security: ServerSessionSecurity | undefined; // set when the request came sealed: the reply is sealed too
    const send = (status: number, body: string): void => {
      if (!security) {
        res.writeHead(status, { 'content-type': 'application/soap+xml;charset=UTF-8' });
        res.end(body);
        return;
      }
      const framed = sealFrame(security, Buffer.from(body, 'utf8'), tamper);
      tamper = false;
      res.writeHead(status, { 'content-type': ENCRYPTED_CONTENT_TYPE, 'content-length': framed.length });
      res.end(framed);
    };
    const refuseMessage = (status: number, why: string) => {
      d.refused.push(why);
      res.writeHead(status, { 'content-length': 0, ...(status === 401 ? { 'www-authenticate': 'Negotiate' } : {}) });
      res.end();
    };
    if (!authorized(req, res)) return;
    if (req.url !== '/wsman') return send(404, '');
    // pywinrm's flow: the handshake's last leg carries no body; Windows answers it 200, empty.
    if (raw.length === 0) {
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    }
    const st = ntlmState.get(req.socket);
    let xml: string;
    if (/^multipart\/encrypted/i.test(req.headers['content-type'] ?? '')) {
      if (!st?.security) return refuseMessage(400, 'framing');
      const opened = openFrame(st.security, raw);
      if (opened === 'framing' || opened === 'signature') {
        res.shouldKeepAlive = false; // the connection's keystreams are out of step now
        return refuseMessage(400, opened);
      }
      security = st.security;
      xml = opened.toString('utf8');
    } else {
      if (!plainAllowed) return refuseMessage(401, 'unencrypted');
      if (!/^application\/soap\+xml/i.test(req.headers['content-type'] ?? '')) return send(415, '');
      xml = raw.toString('utf8');
    }
    let doc: unknown;
    try {
      doc = parser.parse(xml, true);
    } catch {
      return send(400, wsmanFault('w:InvalidMessageInformationHeader', 'malformed XML', 'The request is not well-formed XML.'));
    }
    const h = get(doc, 'Envelope', 'Header') as X | undefined;
    const body = get(doc, 'Envelope', 'Body');
    const action = txt(get(h, 'Action')) ?? '';
    const messageId = txt(get(h, 'MessageID')) ?? '';
    const rec: RecordedRequest = { action, headers: h ?? {}, body, xml, sealed: security !== undefined };
    d.requests.push(rec);
    // Headers MS-WSMV requires on every shell request.
    const missing = ['To', 'ReplyTo', 'Action', 'MessageID', 'ResourceURI', 'MaxEnvelopeSize', 'OperationTimeout'].filter(
      (k) => get(h, k) === undefined,
    );
    if (missing.length || !messageId.startsWith('uuid:') || get(h, 'ReplyTo', 'Address') === undefined)
      return send(
        500,
        wsmanFault(
          'w:InvalidMessageInformationHeader',
          'invalid header',
          `The request lacks ${missing.join(', ') || 'a valid MessageID/ReplyTo'}.`,
        ),
      );
    if (txt(get(h, 'ResourceURI')) !== SHELL_URI)
      return send(
        500,
        wsmanFault(
          'w:DestinationUnreachable',
          'unknown resource',
          'The WS-Management service cannot process the request. The resource URI is not supported.',
        ),
      );
    const shellId = ((get(h, 'SelectorSet', 'Selector') as unknown[] | undefined) ?? [])
      .map((s) => (get(s, '@Name') === 'ShellId' ? txt(s) : undefined))
      .find(Boolean);
    const needShell = action !== `${A}Create`;
    if (needShell && (!shellId || !d.shells.has(shellId)))
      return send(
        500,
        wsmanFault(
          'w:InvalidSelectors',
          'invalid selectors',
          `The request for the Windows Remote Shell with ShellId ${shellId ?? '(none)'} failed because the shell was not found on the server.`,
        ),
      );

    switch (action) {
      case `${A}Create`: {
        if (get(body, 'Shell') === undefined)
          return send(500, wsmanFault('w:SchemaValidationError', 'schema', 'The Create body holds no Shell.'));
        const id = randomUUID().toUpperCase();
        d.shells.add(id);
        return send(
          200,
          reply(
            `${A}CreateResponse`,
            messageId,
            `<x:ResourceCreated><a:Address>${d.url}</a:Address><a:ReferenceParameters><w:ResourceURI>${SHELL_URI}</w:ResourceURI><w:SelectorSet><w:Selector Name="ShellId">${id}</w:Selector></w:SelectorSet></a:ReferenceParameters></x:ResourceCreated><rsp:Shell><rsp:ShellId>${id}</rsp:ShellId><rsp:ResourceUri>${SHELL_URI}</rsp:ResourceUri></rsp:Shell>`,
          ),
        );
      }
      case `${SH}Command`: {
        const line = get(body, 'CommandLine');
        const command = txt(get(line, 'Command'));
        if (!command) return send(500, wsmanFault('w:SchemaValidationError', 'schema', 'The Command body holds no Command.'));
        const args = ((get(line, 'Arguments') as unknown[] | undefined) ?? []).map((a) => txt(a) ?? '');
        rec.command = { command, args };
        const r = await run(command, args);
        const id = randomUUID().toUpperCase();
        const half = Math.ceil(r.stdout.length / 2);
        // The output arrives over two Receives: the client must loop until Done.
        outputs.set(id, { chunks: [r.stdout.slice(0, half), r.stdout.slice(half)], stderr: r.stderr, exitCode: r.exitCode });
        return send(
          200,
          reply(
            `${SH}CommandResponse`,
            messageId,
            `<rsp:CommandResponse><rsp:CommandId>${id}</rsp:CommandId></rsp:CommandResponse>`,
          ),
        );
      }
      case `${SH}Receive`: {
        const ds = get(body, 'Receive', 'DesiredStream');
        const cid = txt(get(ds, '@CommandId'));
        const o = cid ? outputs.get(cid) : undefined;
        if (!cid || !o) return send(500, wsmanFault('w:InvalidParameter', 'unknown command', 'The command id is not valid.'));
        const chunk = o.chunks.shift() ?? '';
        const last = o.chunks.length === 0;
        const streams =
          `<rsp:Stream Name="stdout" CommandId="${cid}">${Buffer.from(chunk).toString('base64')}</rsp:Stream>` +
          (last && o.stderr
            ? `<rsp:Stream Name="stderr" CommandId="${cid}">${Buffer.from(o.stderr).toString('base64')}</rsp:Stream>`
            : '') +
          (last ? `<rsp:Stream Name="stdout" CommandId="${cid}" End="true"></rsp:Stream>` : '');
        const state = last
          ? `<rsp:CommandState CommandId="${cid}" State="${DONE}"><rsp:ExitCode>${o.exitCode}</rsp:ExitCode></rsp:CommandState>`
          : `<rsp:CommandState CommandId="${cid}" State="${RUNNING}"></rsp:CommandState>`;
        return send(
          200,
          reply(`${SH}ReceiveResponse`, messageId, `<rsp:ReceiveResponse>${streams}${state}</rsp:ReceiveResponse>`),
        );
      }
      case `${SH}Signal`: {
        const cid = txt(get(body, 'Signal', '@CommandId'));
        if (cid) outputs.delete(cid);
        return send(200, reply(`${SH}SignalResponse`, messageId, '<rsp:SignalResponse/>'));
      }
      case `${A}Delete`:
        d.shells.delete(shellId!);
        return send(200, reply(`${A}DeleteResponse`, messageId, ''));
      default:
        return send(500, wsmanFault('a:ActionNotSupported', 'action not supported', `The action ${action} is not supported.`));
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    d.seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
  };
  const server: Server | HttpsServer = pair
    ? createHttpsServer({ key: pair.key, cert: pair.cert }, onRequest)
    : createServer(onRequest);
  server.on('connection', () => d.connections++);
  if (pair)
    d.rotateCertificate = async () => {
      const next = await selfSignedPair();
      (server as HttpsServer).setSecureContext({ key: next.key, cert: next.cert });
      d.certSha256 = next.sha256;
      d.certPem = next.cert;
      return next.sha256;
    };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  d.port = (server.address() as { port: number }).port;
  d.url = `${pair ? 'https' : 'http'}://127.0.0.1:${d.port}/wsman`;
  d.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return d;
}

/** One file of a zip archive (stored or deflated), read from its local file headers; null when absent. */
export function readZipEntry(zip: Buffer, name: string): Buffer | null {
  let at = 0;
  while (at + 30 <= zip.length && zip.readUInt32LE(at) === 0x04034b50) {
    const flags = zip.readUInt16LE(at + 6);
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLen = zip.readUInt16LE(at + 26);
    const extraLen = zip.readUInt16LE(at + 28);
    const entry = zip.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const start = at + 30 + nameLen + extraLen;
    if (flags & 0x08) throw new Error('zip entries with data descriptors are not supported here');
    const data = zip.subarray(start, start + size);
    if (entry === name) return method === 0 ? Buffer.from(data) : inflateRawSync(data);
    at = start + size;
  }
  return null;
}
