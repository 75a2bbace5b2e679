// Agent API keys: created, imported, listed and revoked by the CLI/API, verified by ingest. Generated
// keys are random (32 bytes, base64url, after the configured prefix), so a plain sha256 is the right
// hash; only the hash is stored. A key is found by its hash, never by its prefix: keys made under
// another prefix (`wpk_` before SERVICE_AGENT_KEY_PREFIX existed) or imported keep working.
import { hash, randomBytes } from 'node:crypto';
import { withTransaction, writeSecretFile } from '@watchpost/runtime';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { Logger } from '@watchpost/runtime';

/**
 * Prefix of generated keys when SERVICE_AGENT_KEY_PREFIX is unset: rdp-login-monitor's
 * Deploy-LoginMonitor.ps1 (Test-RdpMonitorSettingsNeedsSacBootstrap) rewrites any `$SacApiKey` that
 * does not match `sac_[^'"]+`, so another prefix is wiped at the agent's next deploy.
 */
export const DEFAULT_KEY_PREFIX = 'sac_';
/** Characters of a key kept in clear for display (`sac_` plus 8). */
const DISPLAY_CHARS = 12;
export const BOOTSTRAP_KEY_NAME = 'bootstrap';
export const BOOTSTRAP_KEY_FILE = 'bootstrap-api-key';
/** Bounds of an imported key, in characters (printable ASCII, no spaces). */
export const IMPORTED_KEY_MIN_LENGTH = 24;
export const IMPORTED_KEY_MAX_LENGTH = 512;

export interface ApiKeyInfo {
  id: number;
  name: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** Keys whose hash ApiKeyVerifier remembers. */
const HASH_MEMO_KEYS = 1000;

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateApiKey(prefix: string = DEFAULT_KEY_PREFIX): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * The part of a key shown in lists. A generated key (its `prefix` known): the prefix and 8 random
 * characters of 43. Any other key: 12 characters, at most a third of it, so a short key is not weakened.
 */
export function displayPrefix(key: string, prefix?: string): string {
  if (prefix !== undefined) return key.slice(0, prefix.length + 8);
  return key.slice(0, Math.min(DISPLAY_CHARS, Math.floor(key.length / 3)));
}

async function insertKey(pool: Pool, name: string, key: string, shown: string): Promise<number | null> {
  const r = await pool.query<{ id: number }>(
    'INSERT INTO api_keys (name, key_hash, prefix) VALUES ($1, $2, $3) ON CONFLICT (key_hash) DO NOTHING RETURNING id',
    [name, hashApiKey(key), shown],
  );
  return r.rows[0]?.id ?? null;
}

function keyName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('an API key needs a name');
  return trimmed;
}

/** Creates a key (`prefix`: SERVICE_AGENT_KEY_PREFIX); the clear key is returned once and never stored. */
export async function createApiKey(
  pool: Pool,
  name: string,
  opts: { prefix?: string } = {},
): Promise<{ id: number; key: string; prefix: string }> {
  const trimmed = keyName(name);
  const key = generateApiKey(opts.prefix);
  const shown = displayPrefix(key, opts.prefix ?? DEFAULT_KEY_PREFIX);
  const id = await insertKey(pool, trimmed, key, shown);
  if (id === null) throw new Error('API key collision'); // 256 random bits: practically impossible
  return { id, key, prefix: shown };
}

/** An imported key was refused: `invalid` (the key itself) or `duplicate` (its hash is registered). Never carries the key. */
export class ApiKeyImportError extends Error {
  readonly reason: 'invalid' | 'duplicate';
  constructor(reason: 'invalid' | 'duplicate', message: string) {
    super(message);
    this.name = 'ApiKeyImportError';
    this.reason = reason;
  }
}

/** Shannon estimate over the key's own characters: low for repeated or few distinct characters. */
function estimatedBits(key: string): number {
  const counts = new Map<string, number>();
  for (const c of key) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= n * Math.log2(n / key.length);
  return bits;
}

/**
 * Why an existing key cannot be imported, or null. A guard against placeholders and typed-in values,
 * not a strength meter: the keys of another collector are random already. Never quotes the key.
 */
export function importedKeyProblem(key: string): string | null {
  if (key.length < IMPORTED_KEY_MIN_LENGTH || key.length > IMPORTED_KEY_MAX_LENGTH)
    return `the key must be ${IMPORTED_KEY_MIN_LENGTH} to ${IMPORTED_KEY_MAX_LENGTH} characters, got ${key.length}`;
  // Agents send it in an HTTP header (`Authorization: Bearer <key>`, Sac-Client.ps1) and keep it in a
  // PowerShell settings file: spaces and non-ASCII characters would not survive.
  if (!/^[\x21-\x7e]+$/.test(key)) return 'the key must be printable ASCII without spaces';
  // The placeholders of rdp-login-monitor's settings (Deploy-LoginMonitor.ps1 `sac_CHANGE_ME`,
  // login_monitor.settings.example.ps1 `your-ingest-api-key`).
  if (/change_?me|your[-_]?(ingest[-_]?)?api[-_]?key/i.test(key)) return 'the key is a placeholder, not a real key';
  if (estimatedBits(key) < 40) return 'the key has too few distinct characters to be a random key';
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= key.length; i++) trigrams.add(key.slice(i, i + 3));
  if (trigrams.size < 0.6 * (key.length - 2)) return 'the key repeats a pattern; it does not look random';
  let steps = 0;
  for (let i = 1; i < key.length; i++) if (Math.abs(key.charCodeAt(i) - key.charCodeAt(i - 1)) <= 1) steps++;
  if (steps > 0.8 * (key.length - 1)) return 'the key is a run of consecutive characters; it does not look random';
  return null;
}

/**
 * Registers a key an agent already has (a fleet moving from another collector). Surrounding whitespace
 * is dropped (a pasted or piped line); the key is stored hashed with its display prefix, exactly like a
 * generated one, and works for ingest the same way. Throws ApiKeyImportError: `invalid`, or `duplicate`
 * when the same key is registered already (active or revoked: a revoked key stays revoked).
 */
export async function importApiKey(pool: Pool, name: string, key: string): Promise<{ id: number; prefix: string }> {
  const trimmed = keyName(name);
  const clear = key.trim();
  const problem = importedKeyProblem(clear);
  if (problem) throw new ApiKeyImportError('invalid', problem);
  const shown = displayPrefix(clear);
  const id = await insertKey(pool, trimmed, clear, shown);
  if (id === null) {
    const r = await pool.query<{ id: number; name: string; revoked: boolean }>(
      'SELECT id, name, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE key_hash = $1',
      [hashApiKey(clear)],
    );
    const other = r.rows[0];
    throw new ApiKeyImportError(
      'duplicate',
      other
        ? `this key is already registered as API key ${other.id} "${other.name}"${other.revoked ? ' (revoked; a revoked key cannot be imported again)' : ''}`
        : 'this key is already registered',
    );
  }
  return { id, prefix: shown };
}

export async function listApiKeys(pool: Pool): Promise<ApiKeyInfo[]> {
  const r = await pool.query<ApiKeyInfo>(
    'SELECT id, name, prefix, created_at, revoked_at, last_used_at FROM api_keys ORDER BY id',
  );
  return r.rows;
}

/** Revokes the key with this id, or every active key with this name; returns how many were revoked. */
export async function revokeApiKey(pool: Pool, idOrName: number | string): Promise<number> {
  const asId = typeof idOrName === 'number' ? idOrName : /^\d+$/.test(idOrName) ? Number(idOrName) : null;
  const r =
    asId !== null
      ? await pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [asId])
      : await pool.query('UPDATE api_keys SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL', [idOrName]);
  return r.rowCount ?? 0;
}

/** The active key's id, or null. Uncached: ingest goes through ApiKeyVerifier. */
export async function verifyApiKey(pool: Pool, key: string): Promise<{ id: number } | null> {
  if (!key) return null;
  const r = await pool.query<{ id: number }>('SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [
    hashApiKey(key),
  ]);
  return r.rows[0] ?? null;
}

/** Postgres could not answer a key check (down, too slow): the caller answers 503, not 401. */
export class KeyCheckUnavailable extends Error {
  constructor(cause: unknown) {
    super(`agent key check unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KeyCheckUnavailable';
  }
}

interface CachedKey {
  id: number;
  expires: number;
  /** Last time Postgres said this key is active. */
  verifiedAt: number;
}

/**
 * Verifies keys with a short in-memory cache so the hot path does not query Postgres per request.
 * Results (valid and invalid) live `ttlMs`: a revoked key stops working within that time, a new key
 * that was tried before it existed works after it. last_used_at is written at most once a minute per key.
 *
 * Postgres down or hanging: a lookup fails after `lookupTimeoutMs` with KeyCheckUnavailable. A key
 * Postgres confirmed within the last `ttlMs + staleMs` keeps working from the cache meanwhile (and
 * without waiting on Postgres again while it is failing); any other key gets KeyCheckUnavailable.
 */
export class ApiKeyVerifier {
  private readonly pool: Pool;
  private readonly ttlMs: number;
  private readonly staleMs: number;
  private readonly lookupTimeoutMs: number;
  private readonly maxEntries: number;
  /** Active keys: bounded by the keys in the table, never cleared by a flood of wrong ones. */
  private readonly valid = new Map<string, CachedKey>();
  private readonly invalid = new Map<string, number>();
  private readonly pending = new Map<string, Promise<number | null>>();
  private readonly hashes = new Map<string, string>();
  private readonly lastTouched = new Map<number, number>();
  private readonly log: Logger | undefined;
  /** Set while lookups fail: known keys are then answered from the cache without waiting. */
  private failingSince: number | undefined;

  constructor(
    pool: Pool,
    opts: { ttlMs: number; staleMs?: number; lookupTimeoutMs?: number; maxEntries?: number; log?: Logger },
  ) {
    this.pool = pool;
    this.ttlMs = opts.ttlMs;
    this.staleMs = opts.staleMs ?? 0;
    this.lookupTimeoutMs = opts.lookupTimeoutMs ?? 5000;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.log = opts.log;
  }

  /** The key id when the key is active, else null. Synchronous on a cache hit. Rejects with KeyCheckUnavailable. */
  verify(key: string): number | null | Promise<number | null> {
    const hash = this.hashOf(key);
    const now = Date.now();
    const hit = this.valid.get(hash);
    if (hit && hit.expires > now) {
      this.touch(hit.id, now);
      return hit.id;
    }
    if (!hit && (this.invalid.get(hash) ?? 0) > now) return null;
    const usable = hit !== undefined && now - hit.verifiedAt <= this.ttlMs + this.staleMs;
    if (usable && this.failingSince !== undefined) {
      // Postgres is failing: answer from the cache at once and let one lookup find out whether it is back.
      this.lookup(hash).catch(() => {});
      return hit.id;
    }
    return this.lookup(hash).catch((err: unknown) => {
      if (usable) return hit.id;
      throw err;
    });
  }

  /**
   * sha256 of a key, remembered for the keys seen last: every ingest request carries its key, and hashing
   * it each time cost ~7 µs per request on the bench machine. Bounded (cleared when full), so a flood of
   * made-up keys only costs hashing; a key kept here is in this process's memory as every request's is.
   */
  private hashOf(key: string): string {
    let h = this.hashes.get(key);
    if (h === undefined) {
      if (this.hashes.size >= HASH_MEMO_KEYS) this.hashes.clear();
      this.hashes.set(key, (h = hashApiKey(key)));
    }
    return h;
  }

  private lookup(hash: string): Promise<number | null> {
    let p = this.pending.get(hash);
    if (!p) {
      p = this.query(hash).finally(() => this.pending.delete(hash));
      this.pending.set(hash, p);
    }
    return p;
  }

  private async query(hash: string): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    let id: number | null;
    try {
      const q = this.pool.query<{ id: number }>('SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
      q.catch(() => {}); // a late failure after the timeout below
      const r = await Promise.race([
        q,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.lookupTimeoutMs} ms`)), this.lookupTimeoutMs);
        }),
      ]);
      id = r.rows[0]?.id ?? null;
    } catch (err) {
      if (this.failingSince === undefined) {
        this.failingSince = Date.now();
        this.log?.warn({ err }, 'agent key check failing: known keys are accepted from the cache for a bounded time');
      }
      throw new KeyCheckUnavailable(err);
    } finally {
      clearTimeout(timer);
    }
    if (this.failingSince !== undefined) {
      this.failingSince = undefined;
      this.log?.info('agent key check answers again');
    }
    const now = Date.now();
    if (id === null) {
      this.valid.delete(hash);
      // Bounded: a flood of wrong keys must not grow memory without limit.
      if (this.invalid.size >= this.maxEntries) this.invalid.clear();
      if (this.ttlMs > 0) this.invalid.set(hash, now + this.ttlMs);
    } else {
      this.invalid.delete(hash);
      if (this.ttlMs > 0 || this.staleMs > 0) this.valid.set(hash, { id, expires: now + this.ttlMs, verifiedAt: now });
      this.touch(id, now);
    }
    return id;
  }

  private touch(id: number, now: number): void {
    if ((this.lastTouched.get(id) ?? 0) > now - 60_000) return;
    this.lastTouched.set(id, now);
    this.pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]).catch((err: unknown) => {
      this.log?.warn({ err }, 'could not record api key use');
    });
  }
}

/**
 * Makes sure one agent key exists after the first start. SERVICE_BOOTSTRAP_API_KEY, when set, is
 * registered (once; a revoked one stays revoked). Otherwise, when the table holds no key at all, one
 * is generated and written to `<stateDir>/bootstrap-api-key` (mode 0600); the printed line says where
 * it is, never the key itself (logs are collected and kept where secrets must not be).
 * Returns what happened, for the caller's log line (never the key).
 */
export async function ensureBootstrapKey(
  pool: Pool,
  opts: { bootstrapApiKey: string | undefined; stateDir: string; keyPrefix?: string; print?: (line: string) => void },
): Promise<'registered' | 'generated' | 'exists'> {
  const { outcome, generated } = await withTransaction(pool, async (client) => {
    // Two processes starting at once must not both generate a key.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('watchpost.api_keys.bootstrap'))");
    let outcome: 'registered' | 'generated' | 'exists' = 'exists';
    let generated: string | undefined;
    if (opts.bootstrapApiKey) {
      const key = opts.bootstrapApiKey;
      const r = await client.query(
        'INSERT INTO api_keys (name, key_hash, prefix) VALUES ($1, $2, $3) ON CONFLICT (key_hash) DO NOTHING',
        [BOOTSTRAP_KEY_NAME, hashApiKey(key), displayPrefix(key)],
      );
      if (r.rowCount) outcome = 'registered';
    } else {
      const any = await client.query('SELECT 1 FROM api_keys LIMIT 1');
      if (any.rowCount === 0) {
        generated = generateApiKey(opts.keyPrefix);
        await client.query('INSERT INTO api_keys (name, key_hash, prefix) VALUES ($1, $2, $3)', [
          BOOTSTRAP_KEY_NAME,
          hashApiKey(generated),
          displayPrefix(generated, opts.keyPrefix ?? DEFAULT_KEY_PREFIX),
        ]);
        outcome = 'generated';
      }
    }
    if (generated) {
      // Written before COMMIT: if the file cannot be written, no key exists that nobody knows.
      await writeSecretFile(opts.stateDir, BOOTSTRAP_KEY_FILE, generated);
    }
    return { outcome, generated };
  });
  if (generated) {
    const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
    print(
      `watchpost: generated the bootstrap agent API key; read it from ${join(opts.stateDir, BOOTSTRAP_KEY_FILE)} (mode 0600, readable by the service user only)`,
    );
  }
  return outcome;
}
