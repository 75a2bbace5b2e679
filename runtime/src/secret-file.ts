// Generated secrets (bootstrap key, first admin password) go to a file only the service user can read.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Writes `content` to `<dir>/<name>` with mode 0600 (also when the file existed); returns the path. */
export async function writeSecretFile(dir: string, name: string, content: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  await writeFile(file, `${content}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // writeFile's mode applies only when it creates the file
  return file;
}
