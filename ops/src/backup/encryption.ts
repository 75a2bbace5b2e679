// Backup encryption: the age format (age-encryption.org/v1) through `age-encryption`, the TypeScript age
// by age's author (Filippo Valsorda). Chosen because it is a small, specified format with a second,
// independent implementation an operator can open a backup with by hand (the `age` CLI), it takes a
// passphrase (scrypt) or public keys (X25519, hybrid post-quantum), and its payload is a stream of 64 KiB
// ChaCha20-Poly1305 chunks, each authenticated, truncation detected: a ClickHouse table of any size goes
// through in bounded memory. Nothing here does cryptography of its own; it only calls the library.
//
// An encrypted backup: `key.age`, a fresh age identity made for this backup alone, encrypted to the
// operator's passphrase or public key(s); every other file is `<name>.age`, encrypted to that identity.
// Why the extra identity: scrypt costs about 2.5 s in JavaScript, so one per backup and one per restore
// instead of one per file; a file cannot be swapped in from another backup (it would not open); and the
// age CLI reads key.age as a passphrase-protected identity file (`age -d -i key.age postgres.dump.age`).
// The identity is hybrid post-quantum (ML-KEM-768 + X25519): it adds nothing weaker than the operator's
// own choice to a backup encrypted to a passphrase.
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { Decrypter, Encrypter, generateHybridIdentity, identityToRecipient } from 'age-encryption';

export const KEY_FILE = 'key.age';
const SUFFIX = '.age';
/** An unencrypted backup's manifest (manifest.ts); in an encrypted one it is manifest.json.age. */
const PLAIN_MANIFEST = 'manifest.json';

export const ENV_PASSPHRASE = 'BACKUP_PASSPHRASE';
export const ENV_RECIPIENT = 'BACKUP_RECIPIENT';
export const ENV_IDENTITY_FILE = 'BACKUP_IDENTITY_FILE';

/** How `backup` writes: to one passphrase, to age public keys, or in clear (only when asked for). */
export type Seal = { passphrase: string } | { recipients: string[] } | { unencrypted: true };

/** How `restore` opens: a passphrase and/or age identities; `unencrypted` accepts a backup written in clear. */
export interface Unseal {
  passphrase?: string;
  identities?: string[];
  unencrypted?: boolean;
}

/** A missing or contradictory setting (the CLI exits 2). */
export class UsageError extends Error {}

export const REFUSE_UNENCRYPTED =
  `refusing to write an unencrypted backup (it would hold password hashes and encrypted credentials in clear): ` +
  `set ${ENV_PASSPHRASE} (a passphrase) or ${ENV_RECIPIENT} (an age public key, age1...), ` +
  'or pass --unencrypted to write it in clear anyway';

/** The files of one backup, by their names in the manifest (`postgres.dump`, `clickhouse/events.tsv.gz`). */
export interface BackupFiles {
  readonly encrypted: boolean;
  /** Where a file is on disk (`<name>.age` when encrypted). */
  path(name: string): string;
  /** Creates the file (mode 0600; never over an existing one). */
  write(name: string, data: string | Uint8Array | Readable): Promise<void>;
  /** The plaintext, streamed; an encrypted file's header is checked before this resolves. */
  open(name: string): Promise<Readable>;
  read(name: string): Promise<Buffer>;
  /** Throws unless the file is there and (encrypted) opens with this backup's key. */
  check(name: string): Promise<void>;
  /**
   * Runs `fn` on a file holding the plaintext: the file itself, or a decrypted copy (0600, in a 0700
   * folder under TMPDIR) removed afterwards. For pg_restore, which seeks in its archive.
   */
  withPlainFile<T>(name: string, fn: (path: string) => Promise<T>): Promise<T>;
}

// Node's stream/web types and the DOM's (which age-encryption's declarations use) are the same objects
// at run time but distinct declarations.
const toWeb = (r: Readable) => Readable.toWeb(r) as unknown as ReadableStream<Uint8Array>;
const fromWeb = (s: ReadableStream<Uint8Array>) => Readable.fromWeb(s as unknown as NodeReadableStream<Uint8Array>);
const CREATE = { mode: 0o600, flag: 'wx' } as const;

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

/** `backup`'s encryption from BACKUP_PASSPHRASE / BACKUP_RECIPIENT and --unencrypted. */
export function sealFromEnv(env: NodeJS.ProcessEnv, unencrypted: boolean): Seal {
  const passphrase = env[ENV_PASSPHRASE] || undefined;
  const recipients = splitList(env[ENV_RECIPIENT]);
  if (unencrypted) {
    if (passphrase || recipients.length)
      throw new UsageError(`--unencrypted contradicts ${ENV_PASSPHRASE} / ${ENV_RECIPIENT}: give one or the other`);
    return { unencrypted: true };
  }
  if (passphrase && recipients.length)
    throw new UsageError(`set ${ENV_PASSPHRASE} or ${ENV_RECIPIENT}, not both (age encrypts to a passphrase alone)`);
  if (passphrase) return { passphrase };
  if (!recipients.length) throw new UsageError(REFUSE_UNENCRYPTED);
  for (const r of recipients) {
    try {
      new Encrypter().addRecipient(r);
    } catch (err) {
      throw new UsageError(`${ENV_RECIPIENT}: "${r}" is not an age public key (age1...): ${(err as Error).message}`);
    }
  }
  return { recipients };
}

/** The identities of an age identity file (`AGE-SECRET-KEY-1...` lines; `#` comments and blank lines skipped). */
export function parseIdentities(text: string, where: string): string[] {
  const ids = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  if (!ids.length) throw new UsageError(`${where} holds no age identity (AGE-SECRET-KEY-1...)`);
  for (const id of ids) {
    try {
      new Decrypter().addIdentity(id);
    } catch (err) {
      throw new UsageError(
        `${where}: a line is not an age identity (AGE-SECRET-KEY-1...; a passphrase-protected identity file is not read): ${(err as Error).message}`,
      );
    }
  }
  return ids;
}

/** `restore`'s keys from BACKUP_PASSPHRASE / BACKUP_IDENTITY_FILE and --unencrypted. */
export async function unsealFromEnv(env: NodeJS.ProcessEnv, unencrypted: boolean): Promise<Unseal> {
  const file = env[ENV_IDENTITY_FILE] || undefined;
  let identities: string[] | undefined;
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`${ENV_IDENTITY_FILE}: cannot read ${file} (${(err as Error).message})`);
    }
    identities = parseIdentities(text, `${ENV_IDENTITY_FILE} ${file}`);
  }
  return { passphrase: env[ENV_PASSPHRASE] || undefined, identities, unencrypted };
}

function plainFiles(dir: string): BackupFiles {
  const path = (name: string) => join(dir, name);
  return {
    encrypted: false,
    path,
    async write(name, data) {
      if (data instanceof Readable) await pipeline(data, createWriteStream(path(name), { mode: 0o600, flags: 'wx' }));
      else await writeFile(path(name), data, CREATE);
    },
    async open(name) {
      await stat(path(name));
      return createReadStream(path(name));
    },
    read: (name) => readFile(path(name)),
    async check(name) {
      await stat(path(name));
    },
    withPlainFile: (name, fn) => fn(path(name)),
  };
}

/**
 * Decryption errors name the file: one at the end of a stream means it was altered or cut short. Closing
 * the result (a consumer that stops early) closes the file.
 */
function naming(src: Readable, file: string): Readable {
  const out = new PassThrough();
  src.on('error', (err) =>
    out.destroy(new Error(`${file}: cannot decrypt: damaged, cut short or altered (${err.message})`, { cause: err })),
  );
  out.on('close', () => src.destroy());
  return src.pipe(out);
}

async function sealedFiles(dir: string, identity: string): Promise<BackupFiles> {
  const enc = new Encrypter();
  enc.addRecipient(await identityToRecipient(identity));
  const dec = new Decrypter();
  dec.addIdentity(identity);
  const path = (name: string) => join(dir, `${name}${SUFFIX}`);
  /** The file's plaintext as a web stream, once its header has opened with this backup's key. */
  const decrypting = async (name: string) => {
    await stat(path(name));
    const src = createReadStream(path(name));
    try {
      return { src, out: await dec.decrypt(toWeb(src)) };
    } catch (err) {
      src.destroy();
      throw new Error(`${path(name)} does not open with this backup's key: ${(err as Error).message}`, { cause: err });
    }
  };
  const files: BackupFiles = {
    encrypted: true,
    path,
    async write(name, data) {
      if (data instanceof Readable)
        await pipeline(fromWeb(await enc.encrypt(toWeb(data))), createWriteStream(path(name), { mode: 0o600, flags: 'wx' }));
      else await writeFile(path(name), await enc.encrypt(data), CREATE);
    },
    async open(name) {
      const { out } = await decrypting(name);
      return naming(fromWeb(out), path(name));
    },
    async read(name) {
      try {
        return Buffer.from(await dec.decrypt(await readFile(path(name))));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
        throw new Error(`${path(name)} does not open with this backup's key: ${(err as Error).message}`, { cause: err });
      }
    },
    async check(name) {
      const { src, out } = await decrypting(name);
      await out.cancel();
      src.destroy();
    },
    async withPlainFile(name, fn) {
      const tmp = await mkdtemp(join(tmpdir(), 'watchpost-restore-'));
      try {
        const plain = join(tmp, basename(name));
        await pipeline(await files.open(name), createWriteStream(plain, { mode: 0o600, flags: 'wx' }));
        return await fn(plain);
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },
  };
  return files;
}

/** Starts a backup in `dir`: writes key.age (encrypted) and returns where the other files go. */
export async function createBackupFiles(dir: string, seal: Seal): Promise<BackupFiles> {
  if ('unencrypted' in seal) return plainFiles(dir);
  const outer = new Encrypter();
  if ('passphrase' in seal) outer.setPassphrase(seal.passphrase);
  else for (const r of seal.recipients) outer.addRecipient(r);
  const identity = await generateHybridIdentity();
  const text = `# watchpost backup key: opens the other files of this backup only (age -d -i key.age <file>.age)\n${identity}\n`;
  await writeFile(join(dir, KEY_FILE), await outer.encrypt(text), CREATE);
  return sealedFiles(dir, identity);
}

/** What key.age is encrypted to, from its header's stanza types (read in clear, as the age CLI does). */
function sealedTo(file: Buffer): 'passphrase' | 'public key' {
  const header = file.subarray(0, file.indexOf('\n---')).toString('latin1').split('\n');
  if (header[0] !== 'age-encryption.org/v1') throw new Error(`${KEY_FILE} is not an age file`);
  return header.some((l) => l.startsWith('-> scrypt ')) ? 'passphrase' : 'public key';
}

/** Opens the backup in `dir`: key.age with the operator's passphrase or identity, else a backup in clear. */
export async function openBackupFiles(dir: string, unseal: Unseal): Promise<BackupFiles> {
  const keyFile = join(dir, KEY_FILE);
  if (!existsSync(keyFile)) {
    if (!existsSync(join(dir, PLAIN_MANIFEST)))
      throw new Error(`${dir} is not a backup: neither ${KEY_FILE} nor ${PLAIN_MANIFEST} is there`);
    if (!unseal.unencrypted)
      throw new Error(`${dir} is not encrypted (written with --unencrypted): pass --unencrypted to restore it as it is`);
    return plainFiles(dir);
  }
  const sealed = await readFile(keyFile);
  const to = sealedTo(sealed);
  const need = to === 'passphrase' ? ENV_PASSPHRASE : `${ENV_IDENTITY_FILE} (the age identity of its public key)`;
  if (!unseal.passphrase && !unseal.identities?.length) throw new Error(`${dir} is encrypted to a ${to}: set ${need}`);
  const outer = new Decrypter();
  if (unseal.passphrase) outer.addPassphrase(unseal.passphrase);
  for (const id of unseal.identities ?? []) outer.addIdentity(id);
  let text: string;
  try {
    text = await outer.decrypt(sealed, 'text');
  } catch (err) {
    throw new Error(
      `wrong key: ${keyFile} does not open with the ${[unseal.passphrase && 'passphrase', unseal.identities?.length && 'identity'].filter(Boolean).join(' or ')} given; it is encrypted to a ${to} (${need}): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const [identity] = parseIdentities(text, keyFile);
  return sealedFiles(dir, identity!);
}
