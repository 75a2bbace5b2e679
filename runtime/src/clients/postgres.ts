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
  // pg-pool listens for errors only on IDLE clients. A client checked out (a transaction between two
  // queries, a role holding it) whose server goes away emits 'error' with nobody listening, which ends
  // the process. Every client the pool creates gets a listener for its whole life: the error is then
  // answered by the failing query (or by the next one: "not queryable"), and release() discards the
  // broken client (pg-pool drops a client that is no longer queryable).
  pool.on('connect', (client) => client.on('error', ignoreClientError));
  pool.on('error', ignoreClientError); // idle clients: the pool has already removed them
  return pool;
}

/** An error on a client's connection: the caller's query fails with it (or the next one does). */
function ignoreClientError(): void {}

/**
 * A standalone client (not from a pool) with an error listener, so that a server that goes away makes
 * its queries fail instead of ending the process. The caller connects and ends it.
 */
export function createPostgresClient(config: string | pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  client.on('error', ignoreClientError);
  return client;
}

/** Runs fn in one transaction; rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let out: T;
  try {
    await c.query('BEGIN');
    out = await fn(c);
    await c.query('COMMIT');
  } catch (err) {
    // A client whose ROLLBACK fails (connection lost, server gone or hanging) may still be in the
    // transaction: release(err) destroys it instead of handing it to the next caller.
    const broken = await c.query('ROLLBACK').then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
    );
    c.release(broken);
    throw err;
  }
  c.release();
  return out;
}
