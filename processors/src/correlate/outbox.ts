// Relay of the problem outbox to Kafka `problems.v1`. Rows are written in the transaction that opens a
// problem, so a replayed event never creates a second row. The relay locks unsent rows (SKIP LOCKED:
// several correlate processes share the work), produces them with acks from all in-sync replicas, then
// marks them sent in the same transaction. A crash between the produce and the commit re-sends a row:
// consumers dedupe by `message_id` (= `<problem id>:opened` for a new problem).
import type { Pool } from 'pg';
import type { Producer } from 'kafkajs';
import { withTransaction, type Logger } from '@watchpost/runtime';

export async function relayOutboxOnce(pool: Pool, producer: Producer, topic: string, limit = 500): Promise<number> {
  return withTransaction(pool, async (c) => {
    const r = await c.query<{ id: number; problem_id: string; payload: unknown }>(
      `SELECT id, problem_id::text, payload FROM problem_outbox WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (r.rows.length === 0) return 0;
    await producer.send({
      topic,
      acks: -1,
      messages: r.rows.map((row) => ({ key: row.problem_id, value: JSON.stringify(row.payload) })),
    });
    await c.query('UPDATE problem_outbox SET sent_at = now() WHERE id = ANY($1::bigint[])', [r.rows.map((x) => x.id)]);
    return r.rows.length;
  });
}

/** Runs the relay every intervalMs and whenever kick() is called; drains fully each round. */
export function startOutboxRelay(opts: { pool: Pool; producer: Producer; topic: string; intervalMs: number; log: Logger }) {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  const round = async () => {
    do {
      again = false;
      try {
        while (!stopped && (await relayOutboxOnce(opts.pool, opts.producer, opts.topic)) > 0);
      } catch (err) {
        opts.log.warn({ err }, 'outbox relay failed; retrying on the next round');
      }
    } while (again && !stopped);
  };
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().finally(() => {
      running = null;
    });
  };
  const timer = setInterval(kick, opts.intervalMs);
  kick();
  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
