// The server side of NTLM (MS-NLMP) for the WS-Management double: a CHALLENGE_MESSAGE with target
// information, and verification of the client's NTLMv2 response against the known password (NTOWFv2,
// NTProofStr = HMAC-MD5(NTOWFv2, server challenge || blob)). NTLMv1 responses are refused, as a
// Windows host with the default "send NTLMv2 response only" policy does. The NT hash is MD4 of the
// UTF-16LE password, computed in JavaScript (js-md4): Node's OpenSSL 3 has no MD4.
// Session security as Windows keeps it: the exported session key recovered from the AUTHENTICATE
// (key exchange), the MIC checked (required once the CHALLENGE carried a timestamp), and, as a host
// with Extended Protection does, the client's MsvAvTargetName compared with the expected SPN and its
// MsvAvChannelBindings with the hash of the host's own TLS certificate (RFC 5929
// tls-server-end-point; missing or zero bindings refused, as CbtHardeningLevel=Strict does).
// `ServerSessionSecurity` opens the client's sealed messages (signature and sequence number verified)
// and seals the answers. Written apart from the client's ntlm-session.ts on purpose: both are held to
// MS-NLMP's vectors and to channel bindings computed in the tests (ntlm-server.test.ts), so a mistake
// shared by the two cannot pass unseen.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import md4 from 'js-md4';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'ascii');
export const NTLM_FLAGS = {
  UNICODE: 0x1,
  REQUEST_TARGET: 0x4,
  SIGN: 0x10,
  SEAL: 0x20,
  NTLM: 0x200,
  ALWAYS_SIGN: 0x8000,
  TARGET_TYPE_DOMAIN: 0x10000,
  EXTENDED_SESSIONSECURITY: 0x80000,
  TARGET_INFO: 0x800000,
  VERSION: 0x2000000,
  KEY_128: 0x20000000,
  KEY_EXCH: 0x40000000,
  KEY_56: 0x80000000,
} as const;
/** What the double grants of what a NEGOTIATE asks for (Windows grants all of these). */
const GRANTABLE = (NTLM_FLAGS.SIGN | NTLM_FLAGS.SEAL | NTLM_FLAGS.KEY_128 | NTLM_FLAGS.KEY_EXCH | NTLM_FLAGS.KEY_56) >>> 0;

export function ntHash(password: string): Buffer {
  return Buffer.from(md4.create().update(Buffer.from(password, 'utf16le')).arrayBuffer());
}

/** NTOWFv2: HMAC-MD5 keyed with the NT hash over UPPER(user) || domain, both UTF-16LE. */
export function ntowfv2(password: string, user: string, domain: string): Buffer {
  return createHmac('md5', ntHash(password))
    .update(Buffer.from(user.toUpperCase() + domain, 'utf16le'))
    .digest();
}

export function messageType(msg: Buffer): number | null {
  if (msg.length < 12 || !msg.subarray(0, 8).equals(SIGNATURE)) return null;
  return msg.readUInt32LE(8);
}

const avPair = (id: number, value: Buffer) => {
  const h = Buffer.alloc(4);
  h.writeUInt16LE(id, 0);
  h.writeUInt16LE(value.length, 2);
  return Buffer.concat([h, value]);
};

/** The flags a NEGOTIATE_MESSAGE (type 1) asks for; null when it is not one. */
export function negotiateFlags(msg: Buffer): number | null {
  return messageType(msg) === 1 && msg.length >= 16 ? msg.readUInt32LE(12) : null;
}

/**
 * A CHALLENGE_MESSAGE (type 2) for `domain`/`computer` with a fresh 8-byte server challenge, granting
 * the signing, sealing and key-exchange flags the NEGOTIATE asked for (`requested`). `key128: false`
 * withholds 128-bit keys (a host that grants 56-bit ones at most), `timestamp: false` leaves out
 * MsvAvTimestamp (a host older than Windows Vista / Server 2008): what a hardened client must refuse.
 */
export function challengeMessage(o: {
  domain: string;
  computer: string;
  requested?: number;
  key128?: boolean;
  timestamp?: boolean;
}): {
  challenge: Buffer;
  message: Buffer;
} {
  const challenge = randomBytes(8);
  const u = (s: string) => Buffer.from(s, 'utf16le');
  const filetime = Buffer.alloc(8);
  filetime.writeBigUInt64LE((BigInt(Date.now()) + 11_644_473_600_000n) * 10_000n);
  const targetName = u(o.domain);
  const targetInfo = Buffer.concat([
    avPair(2, u(o.domain)),
    avPair(1, u(o.computer)),
    avPair(4, u(`${o.domain.toLowerCase()}.example`)),
    avPair(3, u(`${o.computer.toLowerCase()}.${o.domain.toLowerCase()}.example`)),
    ...(o.timestamp === false ? [] : [avPair(7, filetime)]),
    avPair(0, Buffer.alloc(0)),
  ]);
  const head = Buffer.alloc(56);
  SIGNATURE.copy(head, 0);
  head.writeUInt32LE(2, 8);
  head.writeUInt16LE(targetName.length, 12);
  head.writeUInt16LE(targetName.length, 14);
  head.writeUInt32LE(56, 16);
  const f = NTLM_FLAGS;
  head.writeUInt32LE(
    (f.UNICODE |
      f.REQUEST_TARGET |
      f.NTLM |
      f.ALWAYS_SIGN |
      f.TARGET_TYPE_DOMAIN |
      f.EXTENDED_SESSIONSECURITY |
      f.TARGET_INFO |
      f.VERSION |
      ((o.requested ?? 0) & GRANTABLE & (o.key128 === false ? ~NTLM_FLAGS.KEY_128 : ~0))) >>>
      0,
    20,
  );
  challenge.copy(head, 24);
  head.writeUInt16LE(targetInfo.length, 40);
  head.writeUInt16LE(targetInfo.length, 42);
  head.writeUInt32LE(56 + targetName.length, 44);
  // Version: Windows 10.0 build 20348, NTLM revision 15
  Buffer.from([10, 0, 0x4c, 0x4f, 0, 0, 0, 15]).copy(head, 48);
  return { challenge, message: Buffer.concat([head, targetName, targetInfo]) };
}

export interface NtlmAuthenticate {
  user: string;
  domain: string;
  workstation: string;
  ntResponse: Buffer;
  encryptedSessionKey: Buffer;
  flags: number;
  /** the whole message (for the MIC) */
  raw: Buffer;
}

/** Reads an AUTHENTICATE_MESSAGE (type 3); null when it is not one. */
export function readAuthenticate(msg: Buffer): NtlmAuthenticate | null {
  if (messageType(msg) !== 3 || msg.length < 52) return null;
  const field = (at: number) => {
    const len = msg.readUInt16LE(at);
    const off = msg.readUInt32LE(at + 4);
    if (off + len > msg.length) throw new Error('security buffer outside the message');
    return msg.subarray(off, off + len);
  };
  try {
    // The double negotiates Unicode (UTF-16LE) only.
    return {
      ntResponse: Buffer.from(field(20)),
      domain: field(28).toString('utf16le'),
      user: field(36).toString('utf16le'),
      workstation: field(44).toString('utf16le'),
      encryptedSessionKey: msg.length >= 64 ? Buffer.from(field(52)) : Buffer.alloc(0),
      flags: msg.length >= 64 ? msg.readUInt32LE(60) : 0,
      raw: Buffer.from(msg),
    };
  } catch {
    return null;
  }
}

/**
 * Checks a type 3 message against the expected account: `DOMAIN\user` (domain compared without case)
 * or `user` (a local account: any domain). Returns null when valid, else the reason.
 */
export function verifyAuthenticate(
  a: NtlmAuthenticate,
  serverChallenge: Buffer,
  expected: { username: string; password: string },
): string | null {
  const [expDomain, expUser] = expected.username.includes('\\')
    ? (expected.username.split('\\', 2) as [string, string])
    : [null, expected.username];
  if (a.user.toLowerCase() !== expUser.toLowerCase()) return `unknown user ${a.domain}\\${a.user}`;
  if (expDomain !== null && a.domain.toLowerCase() !== expDomain.toLowerCase()) return `unknown domain ${a.domain}`;
  if (a.ntResponse.length <= 24) return 'NTLMv1 responses are refused (NTLMv2 only)';
  const proof = a.ntResponse.subarray(0, 16);
  const blob = a.ntResponse.subarray(16);
  if (blob.readUInt16BE(0) !== 0x0101) return 'malformed NTLMv2 blob';
  const expectedProof = createHmac('md5', ntowfv2(expected.password, a.user, a.domain))
    .update(Buffer.concat([serverChallenge, blob]))
    .digest();
  return timingSafeEqual(proof, expectedProof) ? null : 'wrong password';
}

const rc4Init = (key: Buffer) => {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  let i = 0;
  let j = 0;
  return (data: Buffer) =>
    Buffer.from(
      data.map((b) => {
        i = (i + 1) & 255;
        j = (j + s[i]!) & 255;
        [s[i], s[j]] = [s[j]!, s[i]!];
        return b ^ s[(s[i]! + s[j]!) & 255]!;
      }),
    );
};

/** AV pairs (id -> value) of a list ending in MsvAvEOL; stops at a malformed one. */
function avPairs(info: Buffer): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  for (let at = 0; at + 4 <= info.length;) {
    const id = info.readUInt16LE(at);
    const len = info.readUInt16LE(at + 2);
    if (id === 0 || at + 4 + len > info.length) break;
    out.set(id, info.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/** The AV pairs of an NTLMv2 response's blob (after NTProofStr and 28 bytes of blob header). */
const blobPairs = (ntResponse: Buffer) => avPairs(ntResponse.subarray(16 + 28));

/** Whether a CHALLENGE_MESSAGE's target information holds MsvAvTimestamp. */
function challengeHasTimestamp(challenge: Buffer): boolean {
  if (challenge.length < 48 || !(challenge.readUInt32LE(20) & NTLM_FLAGS.TARGET_INFO)) return false;
  const len = challenge.readUInt16LE(40);
  const off = challenge.readUInt32LE(44);
  return avPairs(challenge.subarray(off, off + len)).has(7);
}

/** A DER TLV at `at`: tag, content start and end. */
function tlv(der: Buffer, at: number): [tag: number, start: number, end: number] {
  const first = der[at + 1]!;
  const n = first & 0x80 ? first & 0x7f : 0;
  const len = n ? der.subarray(at + 2, at + 2 + n).readUIntBE(0, n) : first;
  return [der[at]!, at + 2 + n, at + 2 + n + len];
}

/**
 * RFC 5929 tls-server-end-point of a certificate (DER): its hash with the signature algorithm's hash,
 * SHA-256 for MD5 and SHA-1. The double's own certificates are ECDSA or RSA (PKCS #1 v1.5); an
 * algorithm it does not know throws.
 */
export function tlsServerEndPoint(certDer: Buffer): Buffer {
  const [, certStart] = tlv(certDer, 0);
  const [, , tbsEnd] = tlv(certDer, certStart);
  const [, algStart] = tlv(certDer, tbsEnd);
  const [, oidStart, oidEnd] = tlv(certDer, algStart);
  const oid = certDer.subarray(oidStart, oidEnd).toString('hex');
  const byOid: Record<string, string> = {
    '2a864886f70d010104': 'sha256', // md5WithRSAEncryption
    '2a864886f70d010105': 'sha256', // sha1WithRSAEncryption
    '2a864886f70d01010b': 'sha256',
    '2a864886f70d01010c': 'sha384',
    '2a864886f70d01010d': 'sha512',
    '2a8648ce3d0401': 'sha256', // ecdsa-with-SHA1
    '2a8648ce3d040302': 'sha256',
    '2a8648ce3d040303': 'sha384',
    '2a8648ce3d040304': 'sha512',
  };
  const hash = byOid[oid];
  if (!hash) throw new Error(`the double knows no tls-server-end-point hash for the signature algorithm ${oid}`);
  return Buffer.concat([Buffer.from('tls-server-end-point:'), createHash(hash).update(certDer).digest()]);
}

/**
 * MsvAvChannelBindings a client must send for the TLS connection with `certDer`: MD5 over the
 * gss_channel_bindings_struct (five 32-bit little-endian fields, the addresses' types and lengths 0,
 * then the application data's length) followed by the application data (tls-server-end-point).
 */
export function expectedChannelBindings(certDer: Buffer): Buffer {
  const app = tlsServerEndPoint(certDer);
  const fields = Buffer.alloc(20);
  fields.writeUInt32LE(app.length, 16);
  return createHash('md5').update(fields).update(app).digest();
}

/** What a host with Extended Protection checks beyond the response (all optional). */
export interface ExtendedProtection {
  /** The SPN the client must name in MsvAvTargetName (compared without case), e.g. `HTTP/host.corp.example`. */
  spn?: string;
  /** The host's TLS certificate (DER) on this connection: MsvAvChannelBindings must bind it. */
  certificate?: Buffer;
}

/**
 * The session an AUTHENTICATE establishes once `verifyAuthenticate` passed: the exported session key
 * (RC4-decrypted with the session base key under key exchange) and the MIC over the three messages,
 * required once the CHALLENGE carried a timestamp (else checked when the client's MsvAvFlags announce
 * one); then, with `ep`, the client's target name and channel bindings. Returns the reason of a refusal.
 */
export function acceptSession(
  a: NtlmAuthenticate,
  expected: { password: string },
  transcript: { negotiate: Buffer; challenge: Buffer },
  ep: ExtendedProtection = {},
): { exportedSessionKey: Buffer; flags: number } | { error: string } {
  const proof = a.ntResponse.subarray(0, 16);
  const baseKey = createHmac('md5', ntowfv2(expected.password, a.user, a.domain))
    .update(proof)
    .digest();
  const keyExch = (a.flags & NTLM_FLAGS.KEY_EXCH) !== 0 && a.encryptedSessionKey.length === 16;
  const exportedSessionKey = keyExch ? rc4Init(baseKey)(a.encryptedSessionKey) : baseKey;
  const pairs = blobPairs(a.ntResponse);
  const micAnnounced = ((pairs.get(6)?.readUInt32LE(0) ?? 0) & 0x2) !== 0;
  if (!micAnnounced && challengeHasTimestamp(transcript.challenge))
    return { error: 'no MIC (MsvAvFlags) although the CHALLENGE carried a timestamp' };
  if (micAnnounced) {
    if (a.raw.length < 88) return { error: 'MIC announced but missing' };
    const zeroed = Buffer.from(a.raw);
    zeroed.fill(0, 72, 88);
    const mic = createHmac('md5', exportedSessionKey)
      .update(Buffer.concat([transcript.negotiate, transcript.challenge, zeroed]))
      .digest();
    if (!timingSafeEqual(mic, a.raw.subarray(72, 88))) return { error: 'MIC does not verify (messages altered)' };
  }
  if (ep.spn !== undefined) {
    const name = pairs.get(9)?.toString('utf16le');
    if (name === undefined) return { error: 'no target name (MsvAvTargetName)' };
    if (name.toLowerCase() !== ep.spn.toLowerCase()) return { error: `target name ${name} is not ${ep.spn}` };
  }
  if (ep.certificate) {
    const cb = pairs.get(10);
    if (!cb || cb.length !== 16 || cb.equals(Buffer.alloc(16)))
      return { error: 'no channel binding (MsvAvChannelBindings) over TLS (Extended Protection: Strict)' };
    if (!cb.equals(expectedChannelBindings(ep.certificate)))
      return { error: "the channel binding is not this connection's certificate (relayed?)" };
  }
  return { exportedSessionKey, flags: a.flags };
}

const magic = (dir: 'client-to-server' | 'server-to-client', kind: 'signing' | 'sealing') =>
  Buffer.from(`session key to ${dir} ${kind} key magic constant\0`, 'ascii');

/**
 * The host's half of NTLM session security (MS-NLMP 3.4.4.2 with extended session security): opens
 * the client's sealed messages with the client-to-server keys, verifying signature and sequence
 * number, and seals its replies with the server-to-client keys. One RC4 keystream per direction for
 * the life of the connection.
 */
export class ServerSessionSecurity {
  private readonly inSign: Buffer;
  private readonly outSign: Buffer;
  private readonly inSeal: (b: Buffer) => Buffer;
  private readonly outSeal: (b: Buffer) => Buffer;
  private inSeq = 0;
  private outSeq = 0;
  private readonly keyExch: boolean;

  constructor(exportedSessionKey: Buffer, flags: number) {
    const md5 = (...p: Buffer[]) => createHash('md5').update(Buffer.concat(p)).digest();
    const sealLen = flags & NTLM_FLAGS.KEY_128 ? 16 : flags & NTLM_FLAGS.KEY_56 ? 7 : 5;
    const k = exportedSessionKey.subarray(0, sealLen);
    this.inSign = md5(exportedSessionKey, magic('client-to-server', 'signing'));
    this.outSign = md5(exportedSessionKey, magic('server-to-client', 'signing'));
    this.inSeal = rc4Init(md5(k, magic('client-to-server', 'sealing')));
    this.outSeal = rc4Init(md5(k, magic('server-to-client', 'sealing')));
    this.keyExch = (flags & NTLM_FLAGS.KEY_EXCH) !== 0;
  }

  private sign(key: Buffer, seal: (b: Buffer) => Buffer, seq: number, msg: Buffer): Buffer {
    const s = Buffer.alloc(4);
    s.writeUInt32LE(seq);
    let checksum: Buffer = createHmac('md5', key)
      .update(Buffer.concat([s, msg]))
      .digest()
      .subarray(0, 8);
    if (this.keyExch) checksum = seal(checksum);
    return Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, s]);
  }

  /** The client's message, or null when its signature (or sequence number) does not verify. */
  open(sealed: Buffer, signature: Buffer): Buffer | null {
    const msg = this.inSeal(sealed);
    const expected = this.sign(this.inSign, this.inSeal, this.inSeq++, msg);
    return signature.length === 16 && timingSafeEqual(signature, expected) ? msg : null;
  }

  seal(msg: Buffer): { sealed: Buffer; signature: Buffer } {
    const sealed = this.outSeal(msg);
    return { sealed, signature: this.sign(this.outSign, this.outSeal, this.outSeq++, msg) };
  }
}
