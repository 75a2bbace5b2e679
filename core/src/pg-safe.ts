// The safe form of values Postgres cannot hold as they are. Schema v1 accepts any string, but
// Postgres text and jsonb refuse NUL (U+0000) and lone UTF-16 surrogates, and a btree index row over
// ~2,700 bytes: one such value used to fail its whole batch. ClickHouse keeps the event exactly as
// sent; what goes to Postgres (hosts, problems, timelines, inventory) goes through here.
import { createHash } from 'node:crypto';

/** Longest key (hostname, event type, address) kept as is: 200 characters stay under the index row limit even at 4 bytes each. */
export const MAX_PG_KEY_CHARS = 200;

// eslint-disable-next-line no-control-regex -- NUL is exactly what Postgres refuses
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// eslint-disable-next-line no-control-regex -- as above
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** NUL and lone surrogates become U+FFFD (the replacement character); everything else is untouched. */
export function pgSafeText(s: string): string {
  // Nearly every string holds neither NUL nor any surrogate: a plain scan for them first costs 30 ns
  // against 50 for the replace's lookarounds over every string of every event correlate writes.
  return SUSPECT.test(s) ? s.replace(UNSAFE, '\ufffd') : s;
}

/** The first `n` UTF-16 units of `s`, never ending on half a surrogate pair. */
export function sliceWhole(s: string, n: number): string {
  return s.slice(0, n).replace(/[\ud800-\udbff]$/, '');
}

/** A key for an indexed column: safe text, and over MAX_PG_KEY_CHARS its first 180 characters, '…' and 16 hex digits of its SHA-256. */
export function pgSafeKey(s: string): string {
  const t = pgSafeText(s);
  if (t.length <= MAX_PG_KEY_CHARS) return t;
  const digest = createHash('sha256').update(s).digest('hex').slice(0, 16);
  return `${sliceWhole(t, 180)}…${digest}`;
}

/** Every string (values and keys) of a JSON value in safe text; iterative, so any depth is fine. */
export function pgSafeJson<T>(value: T): T {
  if (typeof value === 'string') return pgSafeText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: [unknown, Record<string, unknown> | unknown[]][] = [[value, root as Record<string, unknown>]];
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      let out: unknown = v;
      if (typeof v === 'string') out = pgSafeText(v);
      else if (v !== null && typeof v === 'object') {
        out = Array.isArray(v) ? [] : {};
        stack.push([v, out as Record<string, unknown>]);
      }
      if (Array.isArray(dst)) dst[Number(k)] = out;
      else dst[pgSafeText(k)] = out;
    }
  }
  return root as T;
}
