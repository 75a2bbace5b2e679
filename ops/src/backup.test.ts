// The parts of backup/restore that need no server: the encryption settings, the age files of a backup
// (written, read back, refused with the wrong key, altered or cut short), and the manifest's file names.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import {
  UsageError,
  createBackupFiles,
  openBackupFiles,
  parseIdentities,
  sealFromEnv,
  type BackupFiles,
} from './backup/encryption.ts';
import { checkManifestNames, type Manifest } from './backup/manifest.ts';

const dirs: string[] = [];
const newDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'watchpost-backup-unit-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const drain = async (r: Readable) => {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
};

describe('encryption settings', () => {
  it('refuses to write in clear unless --unencrypted, and contradictions', () => {
    expect(() => sealFromEnv({}, false)).toThrow(UsageError);
    expect(() => sealFromEnv({ BACKUP_PASSPHRASE: '' }, false)).toThrow(
      /refusing to write an unencrypted backup.*BACKUP_PASSPHRASE.*BACKUP_RECIPIENT.*--unencrypted/,
    );
    expect(sealFromEnv({}, true)).toEqual({ unencrypted: true });
    expect(() => sealFromEnv({ BACKUP_PASSPHRASE: 'x' }, true)).toThrow(/--unencrypted contradicts/);
    expect(() => sealFromEnv({ BACKUP_PASSPHRASE: 'x', BACKUP_RECIPIENT: 'age1x' }, false)).toThrow(/not both/);
    expect(sealFromEnv({ BACKUP_PASSPHRASE: 'a passphrase' }, false)).toEqual({ passphrase: 'a passphrase' });
  });

  it('takes age public keys (spaces or commas between) and names a malformed one', async () => {
    const [a, b] = [
      await identityToRecipient(await generateX25519Identity()),
      await identityToRecipient(await generateX25519Identity()),
    ];
    expect(sealFromEnv({ BACKUP_RECIPIENT: ` ${a}, ${b} ` }, false)).toEqual({ recipients: [a, b] });
    expect(() => sealFromEnv({ BACKUP_RECIPIENT: 'age1nope' }, false)).toThrow(
      /BACKUP_RECIPIENT: "age1nope" is not an age public key/,
    );
  });

  it('reads an age identity file (comments and blank lines skipped)', async () => {
    const id = await generateX25519Identity();
    expect(parseIdentities(`# created: today\n# public key: age1...\n\n${id}\n`, 'f')).toEqual([id]);
    expect(() => parseIdentities('# nothing\n', 'f')).toThrow(/holds no age identity/);
    expect(() => parseIdentities('AGE-SECRET-KEY-1bogus\n', 'f')).toThrow(/not an age identity/);
  });
});

describe('the files of an encrypted backup', () => {
  const secret = 'jwt-or-key-material-in-clear-0123456789';
  const big = Buffer.alloc(300_000, 'event line\n'); // several 64 KiB chunks

  /** A backup folder with its subfolders (backup() makes them). */
  async function folders() {
    const dir = await newDir();
    for (const d of ['state', 'clickhouse']) await mkdir(join(dir, d));
    return dir;
  }

  async function written(files: BackupFiles) {
    await files.write('state/secrets-key', secret);
    await files.write('clickhouse/events.tsv.gz', Readable.from([big.subarray(0, 100_000), big.subarray(100_000)]));
  }

  it('writes age files that hold nothing in clear and read back with the passphrase only', async () => {
    const dir = await folders();
    const files = await createBackupFiles(dir, { passphrase: 'correct horse' });
    await written(files);
    for (const f of ['key.age', 'state/secrets-key.age', 'clickhouse/events.tsv.gz.age']) {
      const bytes = await readFile(join(dir, f));
      expect(bytes.subarray(0, 22).toString('latin1')).toBe('age-encryption.org/v1\n');
      expect(bytes.includes(secret)).toBe(false);
      expect(bytes.includes('event line')).toBe(false);
    }
    await expect(files.write('state/secrets-key', 'again')).rejects.toThrow(/EEXIST/);

    const opened = await openBackupFiles(dir, { passphrase: 'correct horse' });
    expect((await opened.read('state/secrets-key')).toString()).toBe(secret);
    expect((await drain(await opened.open('clickhouse/events.tsv.gz'))).equals(big)).toBe(true);
    await opened.withPlainFile('clickhouse/events.tsv.gz', async (p) => expect((await readFile(p)).equals(big)).toBe(true));

    await expect(openBackupFiles(dir, { passphrase: 'wrong horse' })).rejects.toThrow(
      /wrong key: .*key\.age does not open with the passphrase given; it is encrypted to a passphrase/,
    );
    await expect(openBackupFiles(dir, {})).rejects.toThrow(/encrypted to a passphrase: set BACKUP_PASSPHRASE/);
    await expect(openBackupFiles(dir, { unencrypted: true })).rejects.toThrow(/set BACKUP_PASSPHRASE/);
  }, 60_000);

  it('opens a backup encrypted to a public key with its identity; a file altered, cut short or from another backup fails', async () => {
    const id = await generateX25519Identity();
    const mk = async () => {
      const dir = await folders();
      await written(await createBackupFiles(dir, { recipients: [await identityToRecipient(id)] }));
      return dir;
    };
    const [dir, other] = [await mk(), await mk()];
    const opened = await openBackupFiles(dir, { identities: [id] });
    expect((await opened.read('state/secrets-key')).toString()).toBe(secret);
    await opened.check('clickhouse/events.tsv.gz');
    await expect(opened.check('clickhouse/missing.tsv.gz')).rejects.toThrow(/ENOENT/);

    const table = join(dir, 'clickhouse/events.tsv.gz.age');
    const bytes = await readFile(table);
    const flip = () => bytes.writeUInt8(bytes.readUInt8(bytes.length - 70_000) ^ 1, bytes.length - 70_000);
    flip();
    await writeFile(table, bytes);
    await expect(drain(await opened.open('clickhouse/events.tsv.gz'))).rejects.toThrow(/cannot decrypt: damaged/);
    flip();
    await writeFile(table, bytes);
    await truncate(table, bytes.length - 65_552); // one whole chunk gone: only the missing last-chunk flag tells
    await expect(drain(await opened.open('clickhouse/events.tsv.gz'))).rejects.toThrow(/cannot decrypt/);

    await writeFile(join(dir, 'state/secrets-key.age'), await readFile(join(other, 'state/secrets-key.age')));
    await expect(opened.read('state/secrets-key')).rejects.toThrow(/does not open with this backup's key/);
    await expect(opened.check('state/secrets-key')).rejects.toThrow(/does not open with this backup's key/);
    await expect(openBackupFiles(dir, { identities: [await generateX25519Identity()] })).rejects.toThrow(
      /wrong key: .*encrypted to a public key/,
    );
  });

  it('opens a backup in clear only with --unencrypted', async () => {
    const dir = await newDir();
    const files = await createBackupFiles(dir, { unencrypted: true });
    await files.write('manifest.json', '{}');
    await expect(openBackupFiles(dir, { passphrase: 'x' })).rejects.toThrow(/is not encrypted .*pass --unencrypted/);
    expect((await (await openBackupFiles(dir, { unencrypted: true })).read('manifest.json')).toString()).toBe('{}');
    await expect(openBackupFiles(await newDir(), {})).rejects.toThrow(/is not a backup/);
  });
});

describe('manifest file names', () => {
  const manifest = (format: number, files: string[], tables: Record<string, string> = { events: 'clickhouse/events.tsv.gz' }) =>
    ({
      format,
      state: { files },
      clickhouse: { tables: Object.fromEntries(Object.entries(tables).map(([t, file]) => [t, { file }])) },
    }) as unknown as Manifest;

  it('accepts the names a backup holds', () => {
    expect(() => checkManifestNames(manifest(2, []))).not.toThrow();
    expect(() => checkManifestNames(manifest(2, ['secrets-key']))).not.toThrow();
    // Format 1 held the state folder's four files.
    expect(() =>
      checkManifestNames(manifest(1, ['secrets-key', 'jwt-secret', 'bootstrap-api-key', 'initial-admin-password'])),
    ).not.toThrow();
  });

  it.each([
    ['../x', 'a parent folder'],
    ['..', 'a parent folder'],
    ['/etc/x', 'an absolute path'],
    ['C:\\x', 'an absolute path'],
    ['a/b', 'a path separator'],
    ['a\\b', 'a path separator'],
    ['authorized_keys', 'an unknown name'],
    ['initial-admin-password', 'an unknown name'], // format 2 never holds it
    ['jwt-secret', 'an unknown name'],
    ['', 'not a file name'],
  ])('refuses state file %j (%s)', (name, why) => {
    expect(() => checkManifestNames(manifest(2, [name]))).toThrow(
      `refusing the backup: its manifest names files a backup does not hold (nothing was written): state file ${JSON.stringify(name)}: ${why}`,
    );
  });

  it.each([
    ['events', '../../etc/passwd', 'a parent folder'],
    ['events', 'clickhouse/../../x.tsv.gz', 'a parent folder'],
    ['events', '/etc/x', 'an absolute path'],
    ['events', 'clickhouse/other.tsv.gz', 'not clickhouse/events.tsv.gz'],
    ['events', 'events.tsv.gz', 'not clickhouse/events.tsv.gz'],
    ['../x', 'clickhouse/../x.tsv.gz', 'a parent folder'],
  ])('refuses ClickHouse table %j with file %j (%s)', (table, file, why) => {
    expect(() => checkManifestNames(manifest(2, [], { [table]: file }))).toThrow(
      `ClickHouse file ${JSON.stringify(file)} of table ${JSON.stringify(table)}: ${why}`,
    );
  });

  it('names every bad entry at once', () => {
    expect(() => checkManifestNames(manifest(2, ['../a', 'b/c'], { 'x y': 'clickhouse/x y.tsv.gz' }))).toThrow(
      /state file "\.\.\/a": a parent folder \(\.\.\); state file "b\/c": a path separator; ClickHouse table "x y": not a table name/,
    );
  });
});
