import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// BIGINT and COUNT(*) come back as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresTimeouts {
  /** Bound on opening a connection (and on waiting for a free one in the pool). */
  connectMs: number;
  /** Server-side statement_timeout, and the same bound client-side for a server that stops answering. */
  statementMs: number;
}

/** Used when the caller passes none: a Postgres that is down or hangs must never hang a caller. */
export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = { connectMs: 5000, statementMs: 60_000 };

export function createPostgres(url: string, max = 10, timeouts: PostgresTimeouts = DEFAULT_POSTGRES_TIMEOUTS): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    // Client-side: a server (or network) that accepts and then never answers is not covered by statement_timeout.
    query_timeout: timeouts.statementMs + 1000,
  });
  pool.on('error', () => {}); // idle-client errors surface on the next query instead of crashing the process
  return pool;
}

/** Runs fn in one transaction; rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}
