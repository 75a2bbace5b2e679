// Which failures are worth waiting out (a dependency away, busy or in a deadlock) and which belong to
// the data (the same request or message will fail again). The batch consumer retries the first kind
// forever and never dead-letters for them (the second kind is isolated); the API answers 503 for the first.

const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Postgres SQLSTATEs that say "try again later": connection exceptions (08), serialization failure and
 * deadlock (40001, 40P01), insufficient resources (53), operator intervention (57: shutdown, query
 * canceled by a statement timeout), and a read-only standby (25006).
 */
function transientPgCode(code: string): boolean {
  return (
    code.startsWith('08') ||
    code === '40001' ||
    code === '40P01' ||
    code.startsWith('53') ||
    code.startsWith('57') ||
    code === '25006'
  );
}

/** Postgres data exceptions (22: bad byte sequence, value too long, ...) and program limits (54: index row too big). */
function dataPgCode(code: string): boolean {
  return code.startsWith('22') || code.startsWith('54');
}

const TRANSIENT_MESSAGE =
  /connection (terminated|refused|reset|closed|lost|timeout)|max retries per request|timeout|timed out|socket hang up|ECONNRESET|ECONNREFUSED|too many connections|the database system is (starting up|shutting down)|Stream isn't writeable|Connection is closed|LOADING Redis|READONLY|TRYAGAIN|CLUSTERDOWN|MEMORY_LIMIT_EXCEEDED|TOO_MANY_SIMULTANEOUS_QUERIES/i;

function fields(err: unknown): { code?: unknown; name?: unknown; message?: unknown; retriable?: unknown; cause?: unknown } {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : {};
}

/** True when waiting may cure the failure: a dependency away, slow, overloaded or in a deadlock. */
export function isTransientError(err: unknown, depth = 0): boolean {
  const e = fields(err);
  if (e.retriable === true) return true; // kafkajs marks its retriable errors
  if (typeof e.code === 'string') {
    if (TRANSIENT_NODE_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code)) return transientPgCode(e.code);
  }
  if (typeof e.name === 'string' && /Timeout|Connection|KafkaJSNumberOfRetriesExceeded/i.test(e.name)) return true;
  if (typeof e.message === 'string' && TRANSIENT_MESSAGE.test(e.message)) return true;
  return depth < 3 && e.cause !== undefined && isTransientError(e.cause, depth + 1);
}

/** True when the error is known to come from the data itself (a message the store cannot hold). */
export function isDataError(err: unknown): boolean {
  const e = fields(err);
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && dataPgCode(e.code);
}

/** One line for the dead-letter record: the error's code (when any) and message. */
export function describeError(err: unknown): string {
  const e = fields(err);
  const msg = typeof e.message === 'string' ? e.message : String(err);
  return typeof e.code === 'string' ? `${e.code}: ${msg}` : msg;
}
