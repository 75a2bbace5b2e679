// Credentials at rest (WinRM password, SSH private key): AES-256-GCM with a random 96-bit nonce per
// value; the stored form is `v1:<nonce>:<tag>:<ciphertext>` (base64url). The key is SERVICE_SECRETS_KEY
// (base64 of 32 bytes) or one generated once into <SERVICE_STATE_DIR>/secrets-key (mode 0600); the api
// and actions roles must share it. `aad` binds a ciphertext to its setting, so values cannot be swapped.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecretFileOnce } from '@watchpost/runtime';

export const SECRETS_KEY_FILE = 'secrets-key';

function decodeKey(b64: string, where: string): Buffer {
  const k = Buffer.from(b64.trim(), 'base64');
  if (k.length !== 32) throw new Error(`${where}: expected base64 of 32 bytes, got ${k.length} bytes`);
  return k;
}

/** The configured key, else the state dir's key file, created when missing. */
export async function loadSecretsKey(configured: string | undefined, stateDir: string): Promise<Buffer> {
  if (configured) return decodeKey(configured, 'SERVICE_SECRETS_KEY');
  const file = join(stateDir, SECRETS_KEY_FILE);
  try {
    return decodeKey(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // Roles started at once (one process each) race here: the first file wins, the others read it.
  await createSecretFileOnce(stateDir, SECRETS_KEY_FILE, randomBytes(32).toString('base64'));
  return decodeKey(await readFile(file, 'utf8'), file);
}

export function encryptSecret(key: Buffer, plain: string, aad: string): string {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return ['v1', nonce, c.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join(':');
}

/** Throws when the value was not made with this key and aad (or was altered). */
export function decryptSecret(key: Buffer, stored: string, aad: string): string {
  const [v, nonce, tag, body] = stored.split(':');
  if (v !== 'v1' || nonce === undefined || tag === undefined || body === undefined) throw new Error('not an encrypted value');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
}
