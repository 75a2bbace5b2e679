import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, loadSecretsKey, SECRETS_KEY_FILE } from './secrets.ts';

describe('credentials at rest (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh nonce each time', () => {
    const a = encryptSecret(key, 'pässwörd \u2019 "x"', 'actions.winrm');
    const b = encryptSecret(key, 'pässwörd \u2019 "x"', 'actions.winrm');
    expect(a).not.toBe(b);
    expect(a).not.toContain('wörd');
    expect(decryptSecret(key, a, 'actions.winrm')).toBe('pässwörd \u2019 "x"');
  });

  it('refuses another key, another setting (aad) and any altered byte', () => {
    const c = encryptSecret(key, 'secret', 'actions.winrm');
    expect(() => decryptSecret(randomBytes(32), c, 'actions.winrm')).toThrow();
    expect(() => decryptSecret(key, c, 'actions.ssh')).toThrow();
    const parts = c.split(':');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => decryptSecret(key, parts.join(':'), 'actions.winrm')).toThrow();
    expect(() => decryptSecret(key, 'plain text', 'actions.winrm')).toThrow(/not an encrypted value/);
  });

  it('generates the key once into the state dir (0600), or takes the configured one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchpost-secrets-'));
    try {
      const k1 = await loadSecretsKey(undefined, dir);
      const k2 = await loadSecretsKey(undefined, dir);
      expect(k1.length).toBe(32);
      expect(k2.equals(k1)).toBe(true);
      expect(statSync(join(dir, SECRETS_KEY_FILE)).mode & 0o777).toBe(0o600);
      const configured = randomBytes(32);
      expect((await loadSecretsKey(configured.toString('base64'), dir)).equals(configured)).toBe(true);
      await expect(loadSecretsKey('c2hvcnQ=', dir)).rejects.toThrow(/32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('roles starting at once (separate processes) all get the one key, never a half-written file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchpost-secrets-'));
    try {
      // Many loaders racing on a missing file: before, one could read the file another was still writing.
      const keys = await Promise.all(Array.from({ length: 20 }, () => loadSecretsKey(undefined, dir)));
      for (const k of keys) expect(k.equals(keys[0]!)).toBe(true);
      expect(readdirSync(dir)).toEqual([SECRETS_KEY_FILE]); // no temporary file left behind
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
