// NTLM session security against the published vectors: MD4 (RFC 1320 appendix A.5), RC4 (the
// classic "Key"/"Plaintext" vector) and MS-NLMP 4.2.4 "NTLMv2 Authentication" (user "User", domain
// "Domain", password "Password", server challenge 0123456789abcdef, client challenge aa..aa, time 0,
// random session key 55..55, the sealed UTF-16 "Plaintext" with its signature), so what the client
// computes is what Windows computes. The channel bindings (RFC 5929 tls-server-end-point in a
// gss_channel_bindings_struct, MS-NLMP MsvAvChannelBindings) are checked against values computed here
// with node:crypto and, for the first certificate, against pyspnego's GssChannelBindings.pack() bytes.
import { X509Certificate, createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md4, rc4, Rc4 } from './ntlm-crypto.ts';
import {
  AV_ID,
  NTLM_FLAG as F,
  NtlmIntegrityError,
  NtlmSessionSecurity,
  authenticateMessage,
  certificateBindingHash,
  channelBindingsStruct,
  negotiateMessage,
  ntHash,
  ntlmv2Response,
  ntowfv2,
  readAvPairs,
  readChallenge,
  sealKey,
  signKey,
  tlsChannelBindings,
} from './ntlm-session.ts';
import { TEST_CERT_PEM } from '@watchpost/testkit/actions';

const hex = (b: Buffer) => b.toString('hex');
const h = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const u = (s: string) => Buffer.from(s, 'utf16le');
const SERVER_CHALLENGE = h('0123456789abcdef');
const CLIENT_CHALLENGE = Buffer.alloc(8, 0xaa);
const SESSION_KEY = Buffer.alloc(16, 0x55);
// The vector's target information: MsvAvNbDomainName "Domain", MsvAvNbComputerName "Server", MsvAvEOL.
const AV = Buffer.concat([Buffer.from([2, 0, 12, 0]), u('Domain'), Buffer.from([1, 0, 12, 0]), u('Server'), Buffer.alloc(4)]);
const FLAGS_4_2_4 =
  (F.KEY_EXCH |
    F.KEY_56 |
    F.KEY_128 |
    F.VERSION |
    F.TARGET_INFO |
    F.EXTENDED_SESSIONSECURITY |
    0x20000 | // TARGET_TYPE_SERVER
    F.ALWAYS_SIGN |
    F.NTLM |
    F.SEAL |
    F.SIGN |
    0x2 | // OEM
    F.UNICODE) >>>
  0;

const PEM = TEST_CERT_PEM;
const der = (pem: string) => new X509Certificate(pem).raw;
/** MD5 of the gss_channel_bindings_struct as documented: four zero 32-bit fields (address types and
 * lengths), the application data's length (32-bit little-endian), then "tls-server-end-point:" || hash. */
function expectedBinding(certDer: Buffer, hash: string): Buffer {
  const app = Buffer.concat([Buffer.from('tls-server-end-point:'), createHash(hash).update(certDer).digest()]);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(app.length);
  return createHash('md5')
    .update(Buffer.concat([Buffer.alloc(16), len, app]))
    .digest();
}

describe('MD4 and RC4', () => {
  it('MD4 matches RFC 1320', () => {
    const vectors: [string, string][] = [
      ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
      ['a', 'bde52cb31de33e46245e05fbdbd6fb24'],
      ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
      ['message digest', 'd9130a8164549fe818874806e1c7014b'],
      ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
      ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', 'e33b4ddc9c38f2199c3e7b164fcc0536'],
    ];
    for (const [input, digest] of vectors) expect(hex(md4(Buffer.from(input, 'ascii'))), input).toBe(digest);
  });

  it('RC4 matches the Key/Plaintext vector and keeps its keystream across calls', () => {
    expect(hex(rc4(Buffer.from('Key'), Buffer.from('Plaintext')))).toBe('bbf316e8d940af0ad3');
    const r = new Rc4(Buffer.from('Key'));
    expect(hex(Buffer.concat([r.update(Buffer.from('Plain')), r.update(Buffer.from('text'))]))).toBe('bbf316e8d940af0ad3');
  });
});

describe('NTLMv2 (MS-NLMP 4.2.4)', () => {
  it('NT hash, NTOWFv2, responses, session base key and encrypted session key', () => {
    expect(hex(ntHash('Password'))).toBe('a4f49c406510bdcab6824ee7c30fd852');
    const ntowf = ntowfv2('Password', 'User', 'Domain');
    expect(hex(ntowf)).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
    const r = ntlmv2Response({
      ntowf,
      serverChallenge: SERVER_CHALLENGE,
      clientChallenge: CLIENT_CHALLENGE,
      time: Buffer.alloc(8),
      targetInfo: AV,
      timestampFromServer: false,
    });
    expect(hex(r.ntResponse.subarray(0, 16))).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(hex(r.lmResponse)).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
    expect(hex(r.sessionBaseKey)).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
    expect(hex(rc4(r.sessionBaseKey, SESSION_KEY))).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
  });

  it('sealing and signing keys, the sealed "Plaintext" and its signature (GSS_WrapEx)', () => {
    expect(hex(sealKey(SESSION_KEY, 'client'))).toBe('59f600973cc4960a25480a7c196e4c58');
    expect(hex(signKey(SESSION_KEY, 'client'))).toBe('4788dc861b4782f35d43fd98fe1a2d39');
    const sec = new NtlmSessionSecurity(SESSION_KEY, FLAGS_4_2_4, 'client');
    const { sealed, signature } = sec.wrap(u('Plaintext'));
    expect(hex(sealed)).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(hex(signature)).toBe('010000007fb38ec5c55d497600000000');
  });

  it('without key exchange the checksum is not encrypted', () => {
    const flags = (F.SEAL | F.SIGN | F.EXTENDED_SESSIONSECURITY | F.KEY_128) >>> 0;
    const { sealed, signature } = new NtlmSessionSecurity(SESSION_KEY, flags, 'client').wrap(u('Plaintext'));
    expect(hex(sealed)).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(hex(signature)).toBe('0100000070352851f256430900000000');
  });

  it('both directions round-trip with increasing sequence numbers; an altered, replayed or reordered message is refused', () => {
    const client = new NtlmSessionSecurity(SESSION_KEY, FLAGS_4_2_4, 'client');
    const server = new NtlmSessionSecurity(SESSION_KEY, FLAGS_4_2_4, 'server');
    for (let i = 0; i < 3; i++) {
      const up = client.wrap(Buffer.from(`request ${i}`));
      expect(up.signature.readUInt32LE(12)).toBe(i);
      expect(server.unwrap(up.sealed, up.signature).toString()).toBe(`request ${i}`);
      const down = server.wrap(Buffer.from(`reply ${i}`));
      expect(client.unwrap(down.sealed, down.signature).toString()).toBe(`reply ${i}`);
    }
    const m = client.wrap(Buffer.from('logoff 2'));
    const flipped = Buffer.from(m.sealed);
    flipped[3]! ^= 0x01;
    expect(() => server.unwrap(flipped, m.signature)).toThrow(NtlmIntegrityError);

    // a second pair: replay of the first message and skipping one both fail
    const c2 = new NtlmSessionSecurity(SESSION_KEY, FLAGS_4_2_4, 'client');
    const s2 = new NtlmSessionSecurity(SESSION_KEY, FLAGS_4_2_4, 'server');
    const first = c2.wrap(Buffer.from('one'));
    c2.wrap(Buffer.from('two'));
    const third = c2.wrap(Buffer.from('three'));
    expect(s2.unwrap(first.sealed, first.signature).toString()).toBe('one');
    expect(() => s2.unwrap(third.sealed, third.signature)).toThrow(NtlmIntegrityError);
  });

  it('refuses a session without sealing or without 128-bit keys granted', () => {
    expect(() => new NtlmSessionSecurity(SESSION_KEY, (F.SIGN | F.EXTENDED_SESSIONSECURITY | F.KEY_128) >>> 0)).toThrow(
      /signing and sealing/,
    );
    const fiftySix = (F.SIGN | F.SEAL | F.EXTENDED_SESSIONSECURITY | F.KEY_56) >>> 0;
    expect(() => new NtlmSessionSecurity(SESSION_KEY, fiftySix)).toThrow(/128-bit keys/);
  });
});

describe('NEGOTIATE and AUTHENTICATE', () => {
  /** A CHALLENGE as a host sends it, with a timestamp (so the client adds a MIC). */
  function challenge(flags: number, withTimestamp = true): Buffer {
    const ts = Buffer.from([7, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const info = withTimestamp ? Buffer.concat([AV.subarray(0, AV.length - 4), ts, Buffer.alloc(4)]) : AV;
    const name = u('Domain');
    const head = Buffer.alloc(56);
    Buffer.from('NTLMSSP\0').copy(head);
    head.writeUInt32LE(2, 8);
    head.writeUInt16LE(name.length, 12);
    head.writeUInt16LE(name.length, 14);
    head.writeUInt32LE(56, 16);
    head.writeUInt32LE(flags, 20);
    SERVER_CHALLENGE.copy(head, 24);
    head.writeUInt16LE(info.length, 40);
    head.writeUInt16LE(info.length, 42);
    head.writeUInt32LE(56 + name.length, 44);
    return Buffer.concat([head, name, info]);
  }
  const field = (m: Buffer, at: number) => m.subarray(m.readUInt32LE(at + 4), m.readUInt32LE(at + 4) + m.readUInt16LE(at));

  it('asks for 128-bit sealing, signing, key exchange and extended session security', () => {
    const n = negotiateMessage();
    expect(n.subarray(0, 12)).toEqual(Buffer.from('NTLMSSP\0\x01\0\0\0', 'latin1'));
    const flags = n.readUInt32LE(12);
    for (const f of [F.SIGN, F.SEAL, F.KEY_128, F.KEY_EXCH, F.EXTENDED_SESSIONSECURITY, F.UNICODE, F.NTLM])
      expect(flags & f).toBeTruthy();
  });

  it('answers with the vector NTLMv2 response, the encrypted session key and a MIC the host can check', () => {
    const negotiate = negotiateMessage();
    const raw = challenge(FLAGS_4_2_4);
    const c = readChallenge(raw);
    expect(c.targetName).toBe('Domain');
    const a = authenticateMessage({
      negotiate,
      challenge: c,
      user: 'User',
      domain: undefined, // the host's target name
      password: 'Password',
      workstation: 'COMPUTER',
      targetName: 'HTTP/win-srv01.corp.example',
      channelBindings: undefined,
      random: { clientChallenge: CLIENT_CHALLENGE, exportedSessionKey: SESSION_KEY },
    });
    expect(a.exportedSessionKey).toEqual(SESSION_KEY);
    const m = a.message;
    expect(m.readUInt32LE(8)).toBe(3);
    expect(field(m, 28).toString('utf16le')).toBe('Domain');
    expect(field(m, 36).toString('utf16le')).toBe('User');
    expect(field(m, 44).toString('utf16le')).toBe('COMPUTER');
    expect(field(m, 12)).toEqual(Buffer.alloc(24)); // LMv2 left out: the host sent a timestamp
    const nt = field(m, 20);
    // the blob carries the host's pairs (timestamp included), MsvAvFlags = MIC present, the channel
    // bindings (none without TLS: 16 zero bytes) and the target name
    const pairs = readAvPairs(nt.subarray(16 + 28));
    expect(pairs.map((p) => p.id)).toEqual([2, 1, 7, 6, 10, 9]);
    expect(pairs[3]!.value.readUInt32LE(0)).toBe(2);
    expect(pairs[4]!.value).toEqual(Buffer.alloc(16));
    expect(pairs[5]!.value.toString('utf16le')).toBe('HTTP/win-srv01.corp.example');
    const proof = createHmac('md5', ntowfv2('Password', 'User', 'Domain'))
      .update(Buffer.concat([SERVER_CHALLENGE, nt.subarray(16)]))
      .digest();
    expect(nt.subarray(0, 16)).toEqual(proof);
    const baseKey = createHmac('md5', ntowfv2('Password', 'User', 'Domain'))
      .update(proof)
      .digest();
    expect(rc4(baseKey, field(m, 52))).toEqual(SESSION_KEY);
    // what the host granted of what was asked (not 56-bit keys: never asked for)
    expect(m.readUInt32LE(60)).toBe((FLAGS_4_2_4 & ~0x20002 & ~F.TARGET_INFO & ~F.KEY_56) >>> 0);
    const zeroed = Buffer.from(m);
    Buffer.alloc(16).copy(zeroed, 72);
    const mic = createHmac('md5', SESSION_KEY)
      .update(Buffer.concat([negotiate, raw, zeroed]))
      .digest();
    expect(m.subarray(72, 88)).toEqual(mic);
  });

  const answer = (raw: Buffer, over: { targetName?: string; channelBindings?: Buffer } = {}) =>
    authenticateMessage({
      negotiate: negotiateMessage(),
      challenge: readChallenge(raw),
      user: 'User',
      domain: 'Domain',
      password: 'Password',
      workstation: 'COMPUTER',
      targetName: over.targetName ?? 'HTTP/win-srv01',
      channelBindings: over.channelBindings,
      random: { clientChallenge: CLIENT_CHALLENGE, exportedSessionKey: SESSION_KEY },
    });
  const blobPairs = (m: Buffer) => new Map(readAvPairs(field(m, 20).subarray(16 + 28)).map((p) => [p.id, p.value]));

  it('refuses a CHALLENGE that grants no 128-bit keys, naming what the host offered', () => {
    expect(() => answer(challenge((FLAGS_4_2_4 & ~F.KEY_128) >>> 0))).toThrow(
      /^the host grants only 56-bit NTLM session keys \(no NTLMSSP_NEGOTIATE_128 in its CHALLENGE\); 128-bit keys are required$/,
    );
    expect(() => answer(challenge((FLAGS_4_2_4 & ~F.KEY_128 & ~F.KEY_56) >>> 0))).toThrow(/grants only 40-bit NTLM session keys/);
    expect(() => answer(challenge(FLAGS_4_2_4))).not.toThrow();
  });

  it('refuses a CHALLENGE without a timestamp (no MIC could be sent), and a host without NTLMv2', () => {
    expect(() => answer(challenge(FLAGS_4_2_4, false))).toThrow(
      /^the host's CHALLENGE carries no timestamp \(MsvAvTimestamp; it offered AV pairs 2, 1\), so the handshake could not be protected by a MIC$/,
    );
    expect(() => answer(challenge((FLAGS_4_2_4 & ~F.EXTENDED_SESSIONSECURITY) >>> 0))).toThrow(/did not offer NTLMv2/);
    expect(() => readChallenge(negotiateMessage())).toThrow(/not an NTLM CHALLENGE/);
  });

  it('always sends the MIC: MsvAvFlags 0x2 and the HMAC over the three messages', () => {
    const negotiate = negotiateMessage();
    const raw = challenge(FLAGS_4_2_4);
    const a = authenticateMessage({
      negotiate,
      challenge: readChallenge(raw),
      user: 'User',
      domain: 'Domain',
      password: 'Password',
      workstation: 'COMPUTER',
      targetName: 'HTTP/win-srv01',
      channelBindings: undefined,
    });
    expect(blobPairs(a.message).get(AV_ID.FLAGS)!.readUInt32LE(0) & 0x2).toBe(2);
    const zeroed = Buffer.from(a.message);
    zeroed.fill(0, 72, 88);
    expect(a.message.subarray(72, 88)).toEqual(
      createHmac('md5', a.exportedSessionKey)
        .update(Buffer.concat([negotiate, raw, zeroed]))
        .digest(),
    );
  });

  it('binds the TLS channel: MsvAvChannelBindings is the MD5 of the struct around tls-server-end-point', () => {
    const cert = der(PEM.ecdsaSha256);
    const bindings = tlsChannelBindings(cert);
    // the struct as documented (and as pyspnego packs it): 16 zero bytes, length, application data
    const app = Buffer.concat([Buffer.from('tls-server-end-point:'), createHash('sha256').update(cert).digest()]);
    expect(bindings).toEqual(channelBindingsStruct(app));
    expect(bindings.subarray(0, 16)).toEqual(Buffer.alloc(16));
    expect(bindings.readUInt32LE(16)).toBe(21 + 32);
    expect(bindings.subarray(20)).toEqual(app);
    const pairs = blobPairs(answer(challenge(FLAGS_4_2_4), { channelBindings: bindings }).message);
    expect(pairs.get(AV_ID.CHANNEL_BINDINGS)).toEqual(expectedBinding(cert, 'sha256'));
    // the same value computed with Python's hashlib over pyspnego's GssChannelBindings().pack() layout
    expect(hex(pairs.get(AV_ID.CHANNEL_BINDINGS)!)).toBe('9d19cc22ecd4a1a47c831692e7017dd9');
    expect(pairs.get(AV_ID.TARGET_NAME)!.toString('utf16le')).toBe('HTTP/win-srv01');
  });

  it('hashes the certificate as RFC 5929 says: SHA-256 for MD5/SHA-1 signatures, else the signature hash', () => {
    const cases: [string, string, string][] = [
      [PEM.ecdsaSha256, 'sha256', '9d19cc22ecd4a1a47c831692e7017dd9'],
      [PEM.ecdsaSha1, 'sha256', '224b834e12906a073885d3a152083741'],
      [PEM.ecdsaSha384, 'sha384', 'd8ef043475e477e5b76580aaa64450a0'],
      [PEM.rsaPssSha512, 'sha512', '315731bb3635073c81ace54a4b87938d'],
    ];
    for (const [pem, hash, md5] of cases) {
      const cert = der(pem);
      expect(certificateBindingHash(cert)).toBe(hash);
      const cb = createHash('md5').update(tlsChannelBindings(cert)).digest();
      expect(cb).toEqual(expectedBinding(cert, hash));
      expect(hex(cb)).toBe(md5);
    }
    expect(() => tlsChannelBindings(der(PEM.ed25519))).toThrow(
      /signed with 1\.3\.101\.112, for which RFC 5929 defines no channel binding/,
    );
    expect(() => tlsChannelBindings(Buffer.from('not a certificate'))).toThrow();
  });
});
