// A WS-Management test double for the Windows remote shell over a real HTTP socket. It speaks the SOAP
// envelopes of MS-WSMV (Create shell, Command, Receive, Signal, Delete), demands Basic or NTLM
// authentication (NTLM as WinRM offers it: `Negotiate` carrying NTLMSSP, the connection authenticated
// after the handshake, the NTLMv2 response checked against the password; ntlm-server.ts),
// checks each request's addressing and WS-Man headers (the elements MS-WSMV marks required, with the
// shell resource URI and a ShellId selector where the operation needs one) and answers a SOAP fault as
// WinRM does when one is missing. Commands answer recorded outputs: qwinsta lists `sessions`, logoff
// removes one (or fails like Windows for an unknown id), hostname prints the host name, and
// powershell.exe -EncodedCommand hands the decoded script to `onPowerShell`.
// Plain HTTP by default; `tls` makes it an HTTPS listener with a self-signed certificate (its SHA-256
// in `certSha256`; `rotateCertificate` presents another one, as a reinstalled host or an impostor
// would). `connections` and `seen` record every connection and every request as it arrived, before
// authentication: what reached the double, credentials included.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import selfsigned from 'selfsigned';
import { XMLParser } from 'fast-xml-parser';
import { inflateRawSync } from 'node:zlib';
import { challengeMessage, messageType, readAuthenticate, verifyAuthenticate } from './ntlm-server.ts';

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
  /** Script run by powershell.exe -EncodedCommand: returns what the command prints and its exit code. */
  onPowerShell: (script: string) => Promise<{ stdout: string; stderr?: string; exitCode: number }>;
  /** HTTPS (`tls`): the hex SHA-256 of the certificate presented now; undefined over plain HTTP. */
  certSha256: string | undefined;
  /** HTTPS: presents a new self-signed certificate from now on; returns its SHA-256. */
  rotateCertificate(): Promise<string>;
  /** TCP connections accepted. */
  connections: number;
  /** Every HTTP request as it arrived, before authentication (its Authorization header included). */
  seen: { method: string; url: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

async function selfSignedPair(): Promise<{ key: string; cert: string; sha256: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], { keyType: 'ec' });
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
 * check; over plain HTTP (NTLM only: Basic is never sent there) unencrypted WinRM must be allowed.
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
}): Promise<WsmanDouble> {
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
    onPowerShell: async () => ({ stdout: '', stderr: 'no PowerShell behaviour set', exitCode: 1 }),
    certSha256: pair?.sha256,
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

  // NTLM authenticates the connection: the challenge and the authenticated state belong to the socket.
  const ntlmState = new WeakMap<Socket, { challenge?: Buffer; authenticated: boolean }>();
  const domain = opts.username.includes('\\') ? opts.username.split('\\')[0]!.toUpperCase() : 'WORKGROUP';

  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const refuse = (challenge = opts.auth === 'ntlm' ? 'Negotiate' : 'Basic realm="WSMAN"') => {
      res.writeHead(401, { 'www-authenticate': challenge, 'content-length': 0 });
      res.end();
      return false;
    };
    const header = req.headers.authorization ?? '';
    if (opts.auth !== 'ntlm') {
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
    if (type === 1) {
      const c = challengeMessage({ domain, computer: d.hostname });
      st.challenge = c.challenge;
      d.authLog.push('challenge');
      return refuse(`${m[1]} ${c.message.toString('base64')}`);
    }
    const challenge = st.challenge;
    st.challenge = undefined;
    const a = type === 3 ? readAuthenticate(msg) : null;
    const reason = !challenge
      ? 'no challenge on this connection'
      : !a
        ? 'not an NTLM AUTHENTICATE message'
        : verifyAuthenticate(a, challenge, opts);
    if (reason) {
      d.authLog.push(`refused: ${reason}`);
      return refuse();
    }
    st.authenticated = true;
    d.authLog.push(`authenticated ${a!.domain}\\${a!.user}`);
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, xml: string): Promise<void> {
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/soap+xml;charset=UTF-8' });
      res.end(body);
    };
    if (!authorized(req, res)) return;
    if (req.url !== '/wsman') return send(404, '');
    if (!/^application\/soap\+xml/i.test(req.headers['content-type'] ?? '')) return send(415, '');
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
    const rec: RecordedRequest = { action, headers: h ?? {}, body, xml };
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
    d.seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
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
