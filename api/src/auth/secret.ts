// The HS256 key: SERVICE_JWT_SECRET when set, otherwise generated once into a 0600 file in the state dir
// so tokens survive restarts without anyone having to configure a secret.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const JWT_SECRET_FILE = 'jwt-secret';
const MIN_SECRET_BYTES = 32;

export async function loadJwtSecret(configured: string | undefined, stateDir: string): Promise<Uint8Array> {
  if (configured !== undefined) {
    const key = new TextEncoder().encode(configured);
    if (key.length < MIN_SECRET_BYTES) throw new Error(`SERVICE_JWT_SECRET: must be at least ${MIN_SECRET_BYTES} bytes long`);
    return key;
  }
  const file = join(stateDir, JWT_SECRET_FILE);
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  try {
    // 'wx': two processes starting at once never overwrite each other's key.
    await writeFile(file, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const text = (await readFile(file, 'utf8')).trim();
  if (text.length < MIN_SECRET_BYTES) throw new Error(`${file}: JWT secret file is too short; delete it to generate a new one`);
  return new TextEncoder().encode(text);
}
