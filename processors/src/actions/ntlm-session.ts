// The client side of NTLM (MS-NLMP) with session security, as WinRM needs it over plain HTTP:
// NEGOTIATE, then an AUTHENTICATE answering the host's CHALLENGE with an NTLMv2 response (NTOWFv2,
// NTProofStr over the server challenge and a blob with the host's target information), a random
// exported session key sent RC4-encrypted under the key-exchange key (NEGOTIATE_KEY_EXCH) and a MIC
// over the three messages when the host sent a timestamp (it always does since Windows Server 2008).
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
/** What the client asks for (the host answers the subset it grants in its CHALLENGE). */
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
    F.KEY_EXCH |
    F.KEY_56) >>>
  0;
const SIGNATURE = Buffer.from('NTLMSSP\0', 'ascii');
// Windows 10.0 build 20348, NTLM revision 15: the VERSION field is for debugging only (2.2.2.10).
const VERSION = Buffer.from([10, 0, 0x4c, 0x4f, 0, 0, 0, 15]);
const AV = { EOL: 0, TIMESTAMP: 7, FLAGS: 6 } as const;
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

/**
 * AUTHENTICATE_MESSAGE (type 3) answering `challenge` for `user` in `domain` (undefined: the host's
 * target name, which for a local account is the computer name). `negotiate` is the type 1 message
 * sent (for the MIC); `random` fixes the client challenge and session key (tests).
 */
export function authenticateMessage(o: {
  negotiate: Buffer;
  challenge: NtlmChallenge;
  user: string;
  domain: string | undefined;
  password: string;
  workstation: string;
  random?: { clientChallenge: Buffer; exportedSessionKey: Buffer };
}): NtlmAuthenticated {
  const c = o.challenge;
  const flags = (c.flags & REQUESTED) >>> 0;
  if (!(flags & F.UNICODE)) throw new Error('the host does not negotiate Unicode NTLM');
  if (!(flags & F.EXTENDED_SESSIONSECURITY) || !(c.flags & F.TARGET_INFO) || c.targetInfo.length === 0)
    throw new Error('the host did not offer NTLMv2 (extended session security with target information)');
  const domain = o.domain ?? c.targetName;
  const pairs = readAvPairs(c.targetInfo);
  const timestamp = pairs.find((p) => p.id === AV.TIMESTAMP)?.value;
  // With the host's timestamp the client proves the three messages unaltered (MIC) and says so in MsvAvFlags.
  const withMic = timestamp !== undefined && timestamp.length === 8;
  const own = pairs.filter((p) => p.id !== AV.FLAGS);
  if (withMic) {
    const v = Buffer.alloc(4);
    v.writeUInt32LE(((pairs.find((p) => p.id === AV.FLAGS)?.value.readUInt32LE(0) ?? 0) | AV_FLAG_MIC) >>> 0);
    own.push({ id: AV.FLAGS, value: v });
  }
  const time = withMic ? timestamp : Buffer.alloc(8);
  if (!withMic) time.writeBigUInt64LE((BigInt(Date.now()) + 11_644_473_600_000n) * 10_000n);
  const clientChallenge = o.random?.clientChallenge ?? randomBytes(8);
  const r = ntlmv2Response({
    ntowf: ntowfv2(o.password, o.user, domain),
    serverChallenge: c.serverChallenge,
    clientChallenge,
    time,
    targetInfo: avPairs(own),
    timestampFromServer: withMic,
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
  if (withMic) hmacMd5(exportedSessionKey, o.negotiate, c.raw, message).copy(message, 72);
  return { message, flags, exportedSessionKey };
}

const MAGIC = {
  clientSign: 'session key to client-to-server signing key magic constant\0',
  serverSign: 'session key to server-to-client signing key magic constant\0',
  clientSeal: 'session key to client-to-server sealing key magic constant\0',
  serverSeal: 'session key to server-to-client sealing key magic constant\0',
};
const md5 = (...parts: Uint8Array[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** SIGNKEY (3.4.5.2) with extended session security. */
export const signKey = (exportedSessionKey: Buffer, mode: 'client' | 'server') =>
  md5(exportedSessionKey, Buffer.from(mode === 'client' ? MAGIC.clientSign : MAGIC.serverSign, 'ascii'));

/** SEALKEY (3.4.5.3) with extended session security: 128-bit (or 56/40-bit when only those were negotiated). */
export function sealKey(exportedSessionKey: Buffer, mode: 'client' | 'server', flags: number): Buffer {
  const len = flags & F.KEY_128 ? 16 : flags & F.KEY_56 ? 7 : 5;
  return md5(exportedSessionKey.subarray(0, len), Buffer.from(mode === 'client' ? MAGIC.clientSeal : MAGIC.serverSeal, 'ascii'));
}

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
    if (!(flags & F.SEAL) || !(flags & F.SIGN) || !(flags & F.EXTENDED_SESSIONSECURITY))
      throw new Error('the host did not grant NTLM signing and sealing with extended session security');
    const other = side === 'client' ? 'server' : 'client';
    this.sendSign = signKey(exportedSessionKey, side);
    this.recvSign = signKey(exportedSessionKey, other);
    this.sendSeal = new Rc4(sealKey(exportedSessionKey, side, flags));
    this.recvSeal = new Rc4(sealKey(exportedSessionKey, other, flags));
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
