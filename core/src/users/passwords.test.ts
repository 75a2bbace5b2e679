import { describe, expect, it } from 'vitest';
import { hashPassword, SCRYPT_PARAMS, verifyPassword } from './passwords.ts';

describe('scrypt password hashing', () => {
  it('round-trips at the OWASP parameters and stores them with the salt', async () => {
    const stored = await hashPassword('correct horse battery staple');
    const [scheme, N, r, p, salt, key] = stored.split('$');
    expect([scheme, Number(N), Number(r), Number(p)]).toEqual(['scrypt', 2 ** 17, 8, 1]);
    expect(SCRYPT_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64url')).toHaveLength(32);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    const a = await hashPassword('same password', { N: 1024, r: 8, p: 1 });
    const b = await hashPassword('same password', { N: 1024, r: 8, p: 1 });
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('verifies with the parameters stored in the hash (older, weaker hashes still work)', async () => {
    const weak = await hashPassword('pw', { N: 2 ** 10, r: 8, p: 1 });
    expect(weak.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await verifyPassword('pw', weak)).toBe(true);
  });

  it('treats unicode passwords by their NFC form', async () => {
    const stored = await hashPassword('caf\u00e9', { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['other scheme', 'bcrypt$2b$10$abc'],
    ['too few parts', 'scrypt$1024$8$1$c2FsdA'],
    ['non-numeric params', 'scrypt$x$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5'],
    ['absurd N (memory bomb)', 'scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5'],
    ['short key', 'scrypt$1024$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5'],
  ])('refuses a malformed stored hash (%s) without throwing', async (_name, stored) => {
    expect(await verifyPassword('anything', stored)).toBe(false);
  });
});
