// The server side of NTLM (MS-NLMP) for the WS-Management double: a CHALLENGE_MESSAGE with target
// information, and verification of the client's NTLMv2 response against the known password (NTOWFv2,
// NTProofStr = HMAC-MD5(NTOWFv2, server challenge || blob)). NTLMv1 responses are refused, as a
// Windows host with the default "send NTLMv2 response only" policy does. The NT hash is MD4 of the
// UTF-16LE password, computed in JavaScript (js-md4): Node's OpenSSL 3 has no MD4.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import md4 from 'js-md4';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'ascii');
export const NTLM_FLAGS = {
  UNICODE: 0x1,
  REQUEST_TARGET: 0x4,
  NTLM: 0x200,
  ALWAYS_SIGN: 0x8000,
  TARGET_TYPE_DOMAIN: 0x10000,
  EXTENDED_SESSIONSECURITY: 0x80000,
  TARGET_INFO: 0x800000,
  VERSION: 0x2000000,
} as const;

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

/** A CHALLENGE_MESSAGE (type 2) for `domain`/`computer` with a fresh 8-byte server challenge. */
export function challengeMessage(o: { domain: string; computer: string }): { challenge: Buffer; message: Buffer } {
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
    avPair(7, filetime),
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
      f.VERSION) >>>
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
