// The double's NTLM verification against the test vectors of MS-NLMP section 4.2 (user "User", domain
// "Domain", password "Password", server challenge 0123456789abcdef, client challenge aa..aa, time 0),
// so a client passing against the double computes what Windows computes; and its Extended Protection
// checks (MIC, target name, channel binding) against AUTHENTICATE messages built here by hand.
import { X509Certificate, createHash, createHmac } from 'node:crypto';
import { TEST_CERT_PEM } from './test-certificates.ts';
import { describe, expect, it } from 'vitest';
import {
  NTLM_FLAGS as F,
  ServerSessionSecurity,
  acceptSession,
  challengeMessage,
  expectedChannelBindings,
  messageType,
  ntHash,
  ntowfv2,
  verifyAuthenticate,
  type ExtendedProtection,
  type NtlmAuthenticate,
} from './ntlm-server.ts';

const u = (s: string) => Buffer.from(s, 'utf16le');
const SERVER_CHALLENGE = Buffer.from('0123456789abcdef', 'hex');
// AV pairs of the vector's CHALLENGE_MESSAGE: NbDomainName "Domain", NbComputerName "Server", EOL
const AV = Buffer.concat([Buffer.from([2, 0, 12, 0]), u('Domain'), Buffer.from([1, 0, 12, 0]), u('Server'), Buffer.alloc(4)]);
const BLOB = Buffer.concat([
  Buffer.from('0101000000000000', 'hex'),
  Buffer.alloc(8),
  Buffer.from('aaaaaaaaaaaaaaaa', 'hex'),
  Buffer.alloc(4),
  AV,
  Buffer.alloc(4),
]);

describe('NTLM server side (MS-NLMP 4.2 vectors)', () => {
  it('NT hash (MD4 in JavaScript) and NTOWFv2', () => {
    expect(ntHash('Password').toString('hex')).toBe('a4f49c406510bdcab6824ee7c30fd852');
    expect(ntowfv2('Password', 'User', 'Domain').toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
  });

  it('accepts the NTProofStr of the vector and refuses a wrong password, user or domain', () => {
    const proof = createHmac('md5', ntowfv2('Password', 'User', 'Domain'))
      .update(Buffer.concat([SERVER_CHALLENGE, BLOB]))
      .digest();
    expect(proof.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    const auth = {
      user: 'User',
      domain: 'Domain',
      workstation: 'COMPUTER',
      ntResponse: Buffer.concat([proof, BLOB]),
      encryptedSessionKey: Buffer.alloc(0),
      flags: 0,
      raw: Buffer.alloc(0),
    };
    expect(verifyAuthenticate(auth, SERVER_CHALLENGE, { username: 'Domain\\User', password: 'Password' })).toBeNull();
    expect(verifyAuthenticate(auth, SERVER_CHALLENGE, { username: 'user', password: 'Password' })).toBeNull();
    expect(verifyAuthenticate(auth, SERVER_CHALLENGE, { username: 'Domain\\User', password: 'password' })).toBe('wrong password');
    expect(verifyAuthenticate(auth, Buffer.alloc(8), { username: 'Domain\\User', password: 'Password' })).toBe('wrong password');
    expect(verifyAuthenticate(auth, SERVER_CHALLENGE, { username: 'Other\\User', password: 'Password' })).toMatch(
      /unknown domain/,
    );
    expect(verifyAuthenticate(auth, SERVER_CHALLENGE, { username: 'Domain\\Eve', password: 'Password' })).toMatch(/unknown user/);
    const v1 = { ...auth, ntResponse: Buffer.alloc(24) };
    expect(verifyAuthenticate(v1, SERVER_CHALLENGE, { username: 'Domain\\User', password: 'Password' })).toMatch(/NTLMv1/);
  });

  it('builds a CHALLENGE_MESSAGE with a fresh challenge and target information', () => {
    const a = challengeMessage({ domain: 'CORP', computer: 'WIN-SRV01' });
    const b = challengeMessage({ domain: 'CORP', computer: 'WIN-SRV01' });
    expect(messageType(a.message)).toBe(2);
    expect(a.message.subarray(24, 32)).toEqual(a.challenge);
    expect(a.challenge.equals(b.challenge)).toBe(false);
    const infoLen = a.message.readUInt16LE(40);
    const infoAt = a.message.readUInt32LE(44);
    expect(a.message.subarray(infoAt, infoAt + infoLen).toString('utf16le')).toContain('WIN-SRV01');
  });

  it('grants signing, sealing and key exchange only when the NEGOTIATE asks for them', () => {
    const asked = (F.SIGN | F.SEAL | F.KEY_128 | F.KEY_EXCH) >>> 0;
    const granted = challengeMessage({ domain: 'CORP', computer: 'W', requested: asked }).message.readUInt32LE(20);
    expect((granted & asked) >>> 0).toBe(asked);
    const plain = challengeMessage({ domain: 'CORP', computer: 'W' }).message.readUInt32LE(20);
    expect(plain & (F.SEAL | F.SIGN)).toBe(0);
  });

  it('recovers the exported session key (4.2.4.2.3) and opens the sealed "Plaintext" of 4.2.4.4', () => {
    const flags = (F.KEY_EXCH | F.KEY_56 | F.KEY_128 | F.EXTENDED_SESSIONSECURITY | F.SEAL | F.SIGN | F.UNICODE) >>> 0;
    const proof = createHmac('md5', ntowfv2('Password', 'User', 'Domain'))
      .update(Buffer.concat([SERVER_CHALLENGE, BLOB]))
      .digest();
    const s = acceptSession(
      {
        user: 'User',
        domain: 'Domain',
        workstation: 'COMPUTER',
        ntResponse: Buffer.concat([proof, BLOB]),
        encryptedSessionKey: Buffer.from('c5dad2544fc9799094ce1ce90bc9d03e', 'hex'),
        flags,
        raw: Buffer.alloc(88),
      },
      { password: 'Password' },
      { negotiate: Buffer.alloc(0), challenge: Buffer.alloc(0) },
    );
    expect(s).toEqual({ exportedSessionKey: Buffer.alloc(16, 0x55), flags });
    const sealed = Buffer.from('54e50165bf1936dc996020c1811b0f06fb5f', 'hex');
    const signature = Buffer.from('010000007fb38ec5c55d497600000000', 'hex');
    expect(new ServerSessionSecurity(Buffer.alloc(16, 0x55), flags).open(sealed, signature)).toEqual(u('Plaintext'));
    // one flipped bit in the sealed text, or the same message again (sequence 1), fails the signature
    const flipped = Buffer.from(sealed);
    flipped[0]! ^= 0x80;
    expect(new ServerSessionSecurity(Buffer.alloc(16, 0x55), flags).open(flipped, signature)).toBeNull();
    const twice = new ServerSessionSecurity(Buffer.alloc(16, 0x55), flags);
    twice.open(sealed, signature);
    expect(twice.open(sealed, signature)).toBeNull();
  });

  it('withholds 128-bit keys or the timestamp when told to (what a hardened client refuses)', () => {
    const asked = (F.SIGN | F.SEAL | F.KEY_128 | F.KEY_EXCH | F.KEY_56) >>> 0;
    const info = (m: Buffer) => m.subarray(m.readUInt32LE(44), m.readUInt32LE(44) + m.readUInt16LE(40));
    const ids = (m: Buffer) => {
      const out: number[] = [];
      for (let at = 0, i = info(m); i.readUInt16LE(at) !== 0; at += 4 + i.readUInt16LE(at + 2)) out.push(i.readUInt16LE(at));
      return out;
    };
    const normal = challengeMessage({ domain: 'CORP', computer: 'W', requested: asked }).message;
    expect(normal.readUInt32LE(20) & F.KEY_128).toBeTruthy();
    expect(ids(normal)).toContain(7);
    const weak = challengeMessage({ domain: 'CORP', computer: 'W', requested: asked, key128: false }).message;
    expect(weak.readUInt32LE(20) & F.KEY_128).toBe(0);
    expect(weak.readUInt32LE(20) & F.KEY_56).toBeTruthy();
    const old = challengeMessage({ domain: 'CORP', computer: 'W', requested: asked, timestamp: false }).message;
    expect(ids(old)).toEqual([2, 1, 4, 3]);
  });
});

// Self-signed test certificates (CN=win-srv01): ECDSA-SHA256, and ECDSA-SHA1 (RFC 5929 binds that with SHA-256 too).
const CERT = new X509Certificate(TEST_CERT_PEM.ecdsaSha256).raw;
const OTHER_CERT = new X509Certificate(TEST_CERT_PEM.ecdsaSha1).raw;

/** MD5 over the gss_channel_bindings_struct: 16 zero bytes, the 32-bit length, tls-server-end-point data. */
function binding(cert: Buffer): Buffer {
  const app = Buffer.concat([Buffer.from('tls-server-end-point:'), createHash('sha256').update(cert).digest()]);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(app.length);
  return createHash('md5')
    .update(Buffer.concat([Buffer.alloc(16), len, app]))
    .digest();
}

const pair = (id: number, value: Buffer) => {
  const h = Buffer.alloc(4);
  h.writeUInt16LE(id, 0);
  h.writeUInt16LE(value.length, 2);
  return Buffer.concat([h, value]);
};

/**
 * An AUTHENTICATE for User/Domain/Password answering `challenge` (no key exchange: the exported key
 * is the session base key), its blob holding `pairs`, with a MIC unless `mic` is false.
 */
function authenticate(
  challenge: Buffer,
  pairs: Buffer[],
  mic = true,
): { a: NtlmAuthenticate; transcript: { negotiate: Buffer; challenge: Buffer } } {
  const serverChallenge = challenge.subarray(24, 32);
  const blob = Buffer.concat([
    Buffer.from('0101000000000000', 'hex'),
    Buffer.alloc(8),
    Buffer.alloc(8, 0xaa),
    Buffer.alloc(4),
    ...pairs,
    Buffer.alloc(4),
    Buffer.alloc(4),
  ]);
  const ntowf = ntowfv2('Password', 'User', 'Domain');
  const proof = createHmac('md5', ntowf)
    .update(Buffer.concat([serverChallenge, blob]))
    .digest();
  const baseKey = createHmac('md5', ntowf).update(proof).digest();
  const raw = Buffer.alloc(120);
  raw.write('NTLMSSP\0', 'latin1');
  raw.writeUInt32LE(3, 8);
  const transcript = { negotiate: Buffer.from('NTLMSSP\0\x01\0\0\0', 'latin1'), challenge };
  if (mic)
    createHmac('md5', baseKey)
      .update(Buffer.concat([transcript.negotiate, challenge, raw]))
      .digest()
      .copy(raw, 72);
  const a = {
    user: 'User',
    domain: 'Domain',
    workstation: 'W',
    ntResponse: Buffer.concat([proof, blob]),
    encryptedSessionKey: Buffer.alloc(0),
    flags: (F.UNICODE | F.EXTENDED_SESSIONSECURITY | F.KEY_128) >>> 0,
    raw,
  };
  return { a, transcript };
}

describe('NTLM server side: what a host with Extended Protection checks', () => {
  const micPresent = pair(6, Buffer.from([2, 0, 0, 0])); // MsvAvFlags: MIC present
  const spn = (s: string) => pair(9, Buffer.from(s, 'utf16le'));
  const cb = (v: Buffer) => pair(10, v);
  const ep = { spn: 'HTTP/win-srv01.corp.example', certificate: CERT };
  const withTimestamp = () => challengeMessage({ domain: 'Domain', computer: 'W' }).message;
  const accept = (x: ReturnType<typeof authenticate>, e: ExtendedProtection = ep) =>
    acceptSession(x.a, { password: 'Password' }, x.transcript, e);

  it("the channel binding it expects is the MD5 of the struct around its certificate's tls-server-end-point", () => {
    expect(expectedChannelBindings(CERT)).toEqual(binding(CERT));
    // computed with Python's hashlib over pyspnego's GssChannelBindings().pack() layout
    expect(expectedChannelBindings(CERT).toString('hex')).toBe('9d19cc22ecd4a1a47c831692e7017dd9');
    expect(expectedChannelBindings(OTHER_CERT)).toEqual(binding(OTHER_CERT)); // SHA-1 signature: SHA-256
  });

  it('accepts the MIC, the expected SPN (any case) and the binding of its own certificate', () => {
    const x = authenticate(withTimestamp(), [micPresent, cb(binding(CERT)), spn('http/WIN-SRV01.corp.example')]);
    expect(accept(x)).toEqual({ exportedSessionKey: expect.any(Buffer), flags: x.a.flags });
  });

  it('refuses a missing or altered MIC once the CHALLENGE carried a timestamp', () => {
    const pairs = [cb(binding(CERT)), spn(ep.spn)];
    expect(accept(authenticate(withTimestamp(), pairs, false))).toEqual({
      error: 'no MIC (MsvAvFlags) although the CHALLENGE carried a timestamp',
    });
    const altered = authenticate(withTimestamp(), [micPresent, ...pairs]);
    altered.a.raw[80]! ^= 1;
    expect(accept(altered)).toEqual({ error: 'MIC does not verify (messages altered)' });
    // without a timestamp in the CHALLENGE (an old host) a client may send none
    const old = challengeMessage({ domain: 'Domain', computer: 'W', timestamp: false }).message;
    expect(accept(authenticate(old, pairs, false))).not.toHaveProperty('error');
  });

  it('refuses another or no target name', () => {
    const other = authenticate(withTimestamp(), [micPresent, cb(binding(CERT)), spn('HTTP/10.0.0.5')]);
    expect(accept(other)).toEqual({ error: 'target name HTTP/10.0.0.5 is not HTTP/win-srv01.corp.example' });
    const none = authenticate(withTimestamp(), [micPresent, cb(binding(CERT))]);
    expect(accept(none)).toEqual({ error: 'no target name (MsvAvTargetName)' });
  });

  it('over TLS refuses no binding, an all-zero one and the binding of another certificate (a relay)', () => {
    const x = (pairs: Buffer[]) => accept(authenticate(withTimestamp(), [micPresent, ...pairs, spn(ep.spn)]));
    const strict = /^no channel binding \(MsvAvChannelBindings\) over TLS/;
    expect(x([])).toEqual({ error: expect.stringMatching(strict) });
    expect(x([cb(Buffer.alloc(16))])).toEqual({ error: expect.stringMatching(strict) });
    expect(x([cb(binding(OTHER_CERT))])).toEqual({
      error: "the channel binding is not this connection's certificate (relayed?)",
    });
    // without TLS (no certificate) the binding is not checked
    const plain = authenticate(withTimestamp(), [micPresent, cb(Buffer.alloc(16)), spn(ep.spn)]);
    expect(accept(plain, { spn: ep.spn })).not.toHaveProperty('error');
  });
});
