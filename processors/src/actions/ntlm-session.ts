// The client side of NTLM (MS-NLMP) with session security, as WinRM needs it: NEGOTIATE, then an
// AUTHENTICATE answering the host's CHALLENGE with an NTLMv2 response (NTOWFv2, NTProofStr over the
// server challenge and a blob with the host's target information), a random exported session key sent
// RC4-encrypted under the key-exchange key (NEGOTIATE_KEY_EXCH) and always a MIC over the three
// messages. A CHALLENGE that does not grant 128-bit keys, or carries no timestamp (without one no MIC
// can be sent), is refused. The blob names the service the client means (MsvAvTargetName, the SPN
// `HTTP/<host>`) and the channel it runs on (MsvAvChannelBindings: the MD5 of the
// gss_channel_bindings_struct holding RFC 5929's tls-server-end-point of the host's certificate over
// HTTPS, 16 zero bytes without TLS), so a host with Extended Protection (WinRM CbtHardeningLevel=Strict)
// can tell a relayed or redirected handshake from its own.
// The exported session key yields the signing and sealing keys of each direction (3.4.5, 128-bit,
// extended session security); `NtlmSessionSecurity` seals (RC4, one keystream per direction for the
// whole connection) and signs (HMAC-MD5 over the sequence number and the message, the checksum
// RC4-encrypted under key exchange) as GSS_WrapEx does (3.4.4.2, 3.4.6). NTLMv1 and LM are never sent.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { md4, rc4, Rc4 } from './ntlm-crypto.ts';

export const NTLM_FLAG = {
  UNICODE: 0x1,
  REQUEST_TARGET: 0x4,
  SIGN: 0x10,
  SEAL: 0x20,
  NTLM: 0x200,
  ALWAYS_SIGN: 0x8000,
  EXTENDED_SESSIONSECURITY: 0x80000,
  TARGET_INFO: 0x800000,
  VERSION: 0x2000000,
  KEY_128: 0x20000000,
  KEY_EXCH: 0x40000000,
  KEY_56: 0x80000000,
} as const;

const F = NTLM_FLAG;
/**
 * What the client asks for (the host answers the subset it grants in its CHALLENGE). Not KEY_56: only
 * 128-bit keys are accepted.
 */
const REQUESTED =
  (F.UNICODE |
    F.REQUEST_TARGET |
    F.SIGN |
    F.SEAL |
    F.NTLM |
    F.ALWAYS_SIGN |
    F.EXTENDED_SESSIONSECURITY |
    F.VERSION |
    F.KEY_128 |
    F.KEY_EXCH) >>>
  0;
const SIGNATURE = Buffer.from('NTLMSSP\0', 'ascii');
// Windows 10.0 build 20348, NTLM revision 15: the VERSION field is for debugging only (2.2.2.10).
const VERSION = Buffer.from([10, 0, 0x4c, 0x4f, 0, 0, 0, 15]);
/** AV_PAIR ids (2.2.2.1) the client reads or writes. */
export const AV_ID = { EOL: 0, FLAGS: 6, TIMESTAMP: 7, TARGET_NAME: 9, CHANNEL_BINDINGS: 10 } as const;
const AV = AV_ID;
const AV_FLAG_MIC = 0x2;
const utf16 = (s: string) => Buffer.from(s, 'utf16le');
const hmacMd5 = (key: Uint8Array, ...data: Uint8Array[]) => {
  const h = createHmac('md5', key);
  for (const d of data) h.update(d);
  return h.digest();
};

/** NT hash: MD4 of the UTF-16LE password. */
export const ntHash = (password: string) => md4(utf16(password));

/** NTOWFv2: HMAC-MD5 keyed with the NT hash over UPPER(user) || domain, both UTF-16LE (3.3.2). */
export const ntowfv2 = (password: string, user: string, domain: string) =>
  hmacMd5(ntHash(password), utf16(user.toUpperCase() + domain));

/** NEGOTIATE_MESSAGE (type 1) with no domain or workstation supplied. */
export function negotiateMessage(): Buffer {
  const m = Buffer.alloc(40);
  SIGNATURE.copy(m, 0);
  m.writeUInt32LE(1, 8);
  m.writeUInt32LE(REQUESTED, 12);
  m.writeUInt32LE(40, 20); // empty DomainNameFields / WorkstationFields point past the header
  m.writeUInt32LE(40, 28);
  VERSION.copy(m, 32);
  return m;
}

export interface NtlmChallenge {
  raw: Buffer;
  flags: number;
  serverChallenge: Buffer;
  targetName: string;
  targetInfo: Buffer;
}

/** Reads a CHALLENGE_MESSAGE (type 2); throws with the reason when it is not one. */
export function readChallenge(msg: Buffer): NtlmChallenge {
  if (msg.length < 48 || !msg.subarray(0, 8).equals(SIGNATURE) || msg.readUInt32LE(8) !== 2)
    throw new Error('not an NTLM CHALLENGE message');
  const field = (at: number) => {
    const len = msg.readUInt16LE(at);
    const off = msg.readUInt32LE(at + 4);
    if (off + len > msg.length) throw new Error('NTLM CHALLENGE field outside the message');
    return msg.subarray(off, off + len);
  };
  const flags = msg.readUInt32LE(20);
  const targetName = field(12);
  return {
    raw: msg,
    flags,
    serverChallenge: Buffer.from(msg.subarray(24, 32)),
    targetName: flags & F.UNICODE ? targetName.toString('utf16le') : targetName.toString('latin1'),
    targetInfo: flags & F.TARGET_INFO ? Buffer.from(field(40)) : Buffer.alloc(0),
  };
}

/** AV_PAIRs (2.2.2.1) up to MsvAvEOL. */
export function readAvPairs(info: Buffer): { id: number; value: Buffer }[] {
  const out: { id: number; value: Buffer }[] = [];
  for (let at = 0; at + 4 <= info.length;) {
    const id = info.readUInt16LE(at);
    const len = info.readUInt16LE(at + 2);
    if (id === AV.EOL) return out;
    if (at + 4 + len > info.length) throw new Error('NTLM target information is truncated');
    out.push({ id, value: Buffer.from(info.subarray(at + 4, at + 4 + len)) });
    at += 4 + len;
  }
  throw new Error('NTLM target information has no end marker');
}

const avPairs = (pairs: { id: number; value: Buffer }[]) =>
  Buffer.concat([
    ...pairs.flatMap(({ id, value }) => {
      const h = Buffer.alloc(4);
      h.writeUInt16LE(id, 0);
      h.writeUInt16LE(value.length, 2);
      return [h, value];
    }),
    Buffer.alloc(4),
  ]);

/**
 * The NTLMv2 response (3.3.2): NTProofStr || blob, the LMv2 response (zeros when the host sent a
 * timestamp) and the session base key. `targetInfo` is what the client returns in the blob.
 */
export function ntlmv2Response(o: {
  ntowf: Buffer;
  serverChallenge: Buffer;
  clientChallenge: Buffer;
  time: Buffer;
  targetInfo: Buffer;
  timestampFromServer: boolean;
}): { ntResponse: Buffer; lmResponse: Buffer; sessionBaseKey: Buffer } {
  const blob = Buffer.concat([
    Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]),
    o.time,
    o.clientChallenge,
    Buffer.alloc(4),
    o.targetInfo,
    Buffer.alloc(4),
  ]);
  const proof = hmacMd5(o.ntowf, o.serverChallenge, blob);
  const lmResponse = o.timestampFromServer
    ? Buffer.alloc(24)
    : Buffer.concat([hmacMd5(o.ntowf, o.serverChallenge, o.clientChallenge), o.clientChallenge]);
  return { ntResponse: Buffer.concat([proof, blob]), lmResponse, sessionBaseKey: hmacMd5(o.ntowf, proof) };
}

export interface NtlmAuthenticated {
  message: Buffer;
  flags: number;
  exportedSessionKey: Buffer;
}

const md5 = (...parts: Uint8Array[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * A gss_channel_bindings_struct (RFC 2744 3.11) flattened as NTLM hashes it (MS-NLMP 2.2.2.1,
 * MsvAvChannelBindings): initiator_addrtype, initiator_address.length, acceptor_addrtype,
 * acceptor_address.length (all 0: no addresses), application_data.length, each a 32-bit little-endian
 * integer, then application_data. The same bytes as pyspnego's GssChannelBindings.pack()
 * (src/spnego/channel_bindings.py: `_pack_value` per field, the two address types 0 and no addresses).
 */
export function channelBindingsStruct(applicationData: Buffer): Buffer {
  const head = Buffer.alloc(20);
  head.writeUInt32LE(applicationData.length, 16);
  return Buffer.concat([head, applicationData]);
}

/** Dotted text of a DER OBJECT IDENTIFIER's content octets. */
function oidText(b: Buffer): string {
  const parts: number[] = [];
  let v = 0;
  for (const byte of b) {
    v = v * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (parts.length === 0) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
    else parts.push(v);
    v = 0;
  }
  return parts.join('.');
}

/** One DER element at `at`: its tag and where its content starts and ends. */
function derElement(der: Buffer, at: number): { tag: number; start: number; end: number } {
  if (at + 2 > der.length) throw new Error('the certificate is truncated');
  let len = der[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > der.length) throw new Error('the certificate has an unreadable length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i]!;
    start += n;
  }
  if (start + len > der.length) throw new Error('the certificate is truncated');
  return { tag: der[at]!, start, end: start + len };
}

/** The hash of each certificate signature algorithm that uses a single one (RFC 5929 4.1). */
const SIGNATURE_HASH: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'md5', // md5WithRSAEncryption
  '1.2.840.113549.1.1.5': 'sha1', // sha1WithRSAEncryption
  '1.2.840.113549.1.1.14': 'sha224', // sha224WithRSAEncryption
  '1.2.840.113549.1.1.11': 'sha256', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'sha384', // sha384WithRSAEncryption
  '1.2.840.113549.1.1.13': 'sha512', // sha512WithRSAEncryption
  '1.2.840.10045.4.1': 'sha1', // ecdsa-with-SHA1
  '1.2.840.10045.4.3.1': 'sha224', // ecdsa-with-SHA224
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384', // ecdsa-with-SHA384
  '1.2.840.10045.4.3.4': 'sha512', // ecdsa-with-SHA512
  '1.2.840.10040.4.3': 'sha1', // dsa-with-sha1
  '2.16.840.1.101.3.4.3.1': 'sha224', // dsa-with-sha224
  '2.16.840.1.101.3.4.3.2': 'sha256', // dsa-with-sha256
};
/** Hash algorithm identifiers, as RSASSA-PSS parameters name them. */
const HASH_OID: Record<string, string> = {
  '1.2.840.113549.2.5': 'md5',
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const RSASSA_PSS = '1.2.840.113549.1.1.10';

/**
 * The hash RFC 5929 (4.1) binds a certificate (DER) with: the one its signature algorithm uses, or
 * SHA-256 when that is MD5 or SHA-1 (RSASSA-PSS: the hash its parameters name, SHA-1 by default).
 * Throws for a signature without a single hash (Ed25519, Ed448): RFC 5929 defines no binding for it.
 */
export function certificateBindingHash(certDer: Buffer): string {
  const cert = derElement(certDer, 0);
  const tbs = derElement(certDer, cert.start);
  const alg = derElement(certDer, tbs.end);
  const oid = derElement(certDer, alg.start);
  if (cert.tag !== 0x30 || tbs.tag !== 0x30 || alg.tag !== 0x30 || oid.tag !== 0x06)
    throw new Error('the host presented something other than an X.509 certificate');
  const algorithm = oidText(certDer.subarray(oid.start, oid.end));
  let hash = SIGNATURE_HASH[algorithm];
  if (algorithm === RSASSA_PSS) {
    // RSASSA-PSS-params ::= SEQUENCE { hashAlgorithm [0] AlgorithmIdentifier DEFAULT sha1, ... }
    hash = 'sha1';
    const params = oid.end < alg.end ? derElement(certDer, oid.end) : undefined;
    const first = params?.tag === 0x30 && params.start < params.end ? derElement(certDer, params.start) : undefined;
    if (first?.tag === 0xa0) {
      const hashOid = derElement(certDer, derElement(certDer, first.start).start);
      hash = HASH_OID[oidText(certDer.subarray(hashOid.start, hashOid.end))];
    }
  }
  if (!hash)
    throw new Error(
      `the host's certificate is signed with ${algorithm}, for which RFC 5929 defines no channel binding (tls-server-end-point)`,
    );
  return hash === 'md5' || hash === 'sha1' ? 'sha256' : hash;
}

/**
 * The channel bindings (unhashed) of a TLS connection whose server presented `certDer`: RFC 5929
 * tls-server-end-point, "tls-server-end-point:" followed by the hash of the certificate (DER), as the
 * application data of a gss_channel_bindings_struct.
 */
export function tlsChannelBindings(certDer: Buffer): Buffer {
  const hash = createHash(certificateBindingHash(certDer)).update(certDer).digest();
  return channelBindingsStruct(Buffer.concat([Buffer.from('tls-server-end-point:', 'ascii'), hash]));
}

/**
 * AUTHENTICATE_MESSAGE (type 3) answering `challenge` for `user` in `domain` (undefined: the host's
 * target name, which for a local account is the computer name). `negotiate` is the type 1 message
 * sent (for the MIC); `targetName` the SPN of the service (`HTTP/<host>` for WinRM), sent as
 * MsvAvTargetName; `channelBindings` the unhashed gss_channel_bindings_struct of the connection
 * (`tlsChannelBindings` over HTTPS; undefined without TLS: 16 zero bytes, "no bindings", as Windows
 * clients send); `random` fixes the client challenge and session key (tests). Throws, naming what the
 * host offered, when its CHALLENGE grants no NTLMv2, no 128-bit keys or carries no timestamp.
 */
export function authenticateMessage(o: {
  negotiate: Buffer;
  challenge: NtlmChallenge;
  user: string;
  domain: string | undefined;
  password: string;
  workstation: string;
  targetName: string;
  channelBindings: Buffer | undefined;
  random?: { clientChallenge: Buffer; exportedSessionKey: Buffer };
}): NtlmAuthenticated {
  const c = o.challenge;
  const flags = (c.flags & REQUESTED) >>> 0;
  if (!(flags & F.UNICODE)) throw new Error('the host does not negotiate Unicode NTLM');
  if (!(flags & F.EXTENDED_SESSIONSECURITY) || !(c.flags & F.TARGET_INFO) || c.targetInfo.length === 0)
    throw new Error('the host did not offer NTLMv2 (extended session security with target information)');
  if (!(flags & F.KEY_128))
    throw new Error(
      `the host grants only ${c.flags & F.KEY_56 ? '56' : '40'}-bit NTLM session keys (no NTLMSSP_NEGOTIATE_128 in its CHALLENGE); 128-bit keys are required`,
    );
  const domain = o.domain ?? c.targetName;
  const pairs = readAvPairs(c.targetInfo);
  const timestamp = pairs.find((p) => p.id === AV.TIMESTAMP)?.value;
  // The MIC (the three messages unaltered, 3.1.5.1.2) needs the host's timestamp: without one, refuse.
  if (timestamp === undefined || timestamp.length !== 8)
    throw new Error(
      `the host's CHALLENGE carries no timestamp (MsvAvTimestamp; it offered AV pairs ${pairs.map((p) => p.id).join(', ') || 'none'}), so the handshake could not be protected by a MIC`,
    );
  // The host's pairs, then MsvAvFlags (MIC present), the channel bindings and the target name: ours only.
  const own = pairs.filter((p) => p.id !== AV.FLAGS && p.id !== AV.TARGET_NAME && p.id !== AV.CHANNEL_BINDINGS);
  const avFlags = Buffer.alloc(4);
  avFlags.writeUInt32LE(((pairs.find((p) => p.id === AV.FLAGS)?.value.readUInt32LE(0) ?? 0) | AV_FLAG_MIC) >>> 0);
  own.push(
    { id: AV.FLAGS, value: avFlags },
    { id: AV.CHANNEL_BINDINGS, value: o.channelBindings ? md5(o.channelBindings) : Buffer.alloc(16) },
    { id: AV.TARGET_NAME, value: utf16(o.targetName) },
  );
  const clientChallenge = o.random?.clientChallenge ?? randomBytes(8);
  const r = ntlmv2Response({
    ntowf: ntowfv2(o.password, o.user, domain),
    serverChallenge: c.serverChallenge,
    clientChallenge,
    time: timestamp,
    targetInfo: avPairs(own),
    timestampFromServer: true,
  });
  // NTLMv2: the key exchange key is the session base key (3.4.5.1).
  let exportedSessionKey = r.sessionBaseKey;
  let encryptedKey: Buffer = Buffer.alloc(0);
  if (flags & F.KEY_EXCH) {
    exportedSessionKey = o.random?.exportedSessionKey ?? randomBytes(16);
    encryptedKey = rc4(r.sessionBaseKey, exportedSessionKey);
  }
  const payload = [utf16(domain), utf16(o.user), utf16(o.workstation), r.lmResponse, r.ntResponse, encryptedKey];
  const head = Buffer.alloc(88);
  SIGNATURE.copy(head, 0);
  head.writeUInt32LE(3, 8);
  let at = head.length;
  // LmChallengeResponse, NtChallengeResponse, DomainName, UserName, Workstation, EncryptedRandomSessionKey
  const fieldAt = { lm: 12, nt: 20, domain: 28, user: 36, workstation: 44, key: 52 };
  const order: [number, Buffer][] = [
    [fieldAt.domain, payload[0]!],
    [fieldAt.user, payload[1]!],
    [fieldAt.workstation, payload[2]!],
    [fieldAt.lm, payload[3]!],
    [fieldAt.nt, payload[4]!],
    [fieldAt.key, payload[5]!],
  ];
  for (const [pos, buf] of order) {
    head.writeUInt16LE(buf.length, pos);
    head.writeUInt16LE(buf.length, pos + 2);
    head.writeUInt32LE(at, pos + 4);
    at += buf.length;
  }
  head.writeUInt32LE(flags, 60);
  VERSION.copy(head, 64);
  const message = Buffer.concat([head, ...order.map(([, b]) => b)]);
  // MIC = HMAC_MD5(ExportedSessionKey, NEGOTIATE || CHALLENGE || AUTHENTICATE with the MIC zeroed).
  hmacMd5(exportedSessionKey, o.negotiate, c.raw, message).copy(message, 72);
  return { message, flags, exportedSessionKey };
}

const MAGIC = {
  clientSign: 'session key to client-to-server signing key magic constant\0',
  serverSign: 'session key to server-to-client signing key magic constant\0',
  clientSeal: 'session key to client-to-server sealing key magic constant\0',
  serverSeal: 'session key to server-to-client sealing key magic constant\0',
};
/** SIGNKEY (3.4.5.2) with extended session security. */
export const signKey = (exportedSessionKey: Buffer, mode: 'client' | 'server') =>
  md5(exportedSessionKey, Buffer.from(mode === 'client' ? MAGIC.clientSign : MAGIC.serverSign, 'ascii'));

/** SEALKEY (3.4.5.3) with extended session security and 128-bit keys (the only strength accepted). */
export const sealKey = (exportedSessionKey: Buffer, mode: 'client' | 'server') =>
  md5(exportedSessionKey, Buffer.from(mode === 'client' ? MAGIC.clientSeal : MAGIC.serverSeal, 'ascii'));

/** The NTLM signature of one message did not verify: altered, replayed or out of order. */
export class NtlmIntegrityError extends Error {}

/**
 * Message confidentiality and integrity of one NTLM-authenticated connection (GSS_WrapEx/UnwrapEx
 * with extended session security). `side` is who holds it: the client seals with the client-to-server
 * keys and opens with the server-to-client ones.
 */
export class NtlmSessionSecurity {
  private readonly sendSign: Buffer;
  private readonly recvSign: Buffer;
  private readonly sendSeal: Rc4;
  private readonly recvSeal: Rc4;
  private sendSeq = 0;
  private recvSeq = 0;
  private readonly keyExch: boolean;

  constructor(exportedSessionKey: Buffer, flags: number, side: 'client' | 'server' = 'client') {
    if (!(flags & F.SEAL) || !(flags & F.SIGN) || !(flags & F.EXTENDED_SESSIONSECURITY) || !(flags & F.KEY_128))
      throw new Error('the host did not grant NTLM signing and sealing with extended session security and 128-bit keys');
    const other = side === 'client' ? 'server' : 'client';
    this.sendSign = signKey(exportedSessionKey, side);
    this.recvSign = signKey(exportedSessionKey, other);
    this.sendSeal = new Rc4(sealKey(exportedSessionKey, side));
    this.recvSeal = new Rc4(sealKey(exportedSessionKey, other));
    this.keyExch = Boolean(flags & F.KEY_EXCH);
  }

  /** Seals `message`; returns the 16-byte signature and the sealed bytes (3.4.4.2). */
  wrap(message: Buffer): { signature: Buffer; sealed: Buffer } {
    const sealed = this.sendSeal.update(message);
    const signature = this.signature(this.sendSign, this.sendSeal, this.sendSeq++, message);
    return { signature, sealed };
  }

  /** Opens a sealed message and checks its signature (and so its sequence number); throws NtlmIntegrityError. */
  unwrap(sealed: Buffer, signature: Buffer): Buffer {
    const message = this.recvSeal.update(sealed);
    const expected = this.signature(this.recvSign, this.recvSeal, this.recvSeq++, message);
    if (signature.length !== 16 || !timingSafeEqual(signature, expected))
      throw new NtlmIntegrityError('the NTLM signature of the message does not verify');
    return message;
  }

  private signature(key: Buffer, seal: Rc4, seq: number, message: Buffer): Buffer {
    const seqBuf = Buffer.alloc(4);
    seqBuf.writeUInt32LE(seq >>> 0);
    let checksum: Buffer = hmacMd5(key, seqBuf, message).subarray(0, 8);
    if (this.keyExch) checksum = seal.update(checksum);
    return Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, seqBuf]);
  }
}
