// Generated secrets (bootstrap key, first admin password, secrets key) go to a file only the service user can read.
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Writes `content` to `<dir>/<name>` with mode 0600 (also when the file existed); returns the path. */
export async function writeSecretFile(dir: string, name: string, content: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  await writeFile(file, `${content}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // writeFile's mode applies only when it creates the file
  return file;
}

/**
 * Creates `<dir>/<name>` (mode 0600) holding `content` unless it exists; true when this call created it.
 * Written whole to a temporary file, then linked into place: roles starting at once as separate processes
 * never read a half-written file, and only the first one's content is kept.
 */
export async function createSecretFileOnce(dir: string, name: string, content: string): Promise<boolean> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, `${content}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, join(dir, name));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}
