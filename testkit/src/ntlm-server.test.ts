// The double's NTLM verification against the test vectors of MS-NLMP section 4.2 (user "User", domain
// "Domain", password "Password", server challenge 0123456789abcdef, client challenge aa..aa, time 0),
// so a client passing against the double computes what Windows computes.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  NTLM_FLAGS as F,
  ServerSessionSecurity,
  acceptSession,
  challengeMessage,
  messageType,
  ntHash,
  ntowfv2,
  verifyAuthenticate,
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
});
