// Relay of the problem outbox to Kafka `problems.v1`. Rows are written in the transaction that opens a
// problem, so a replayed event never creates a second row. The relay locks unsent rows (SKIP LOCKED:
// several correlate processes share the work), produces them with acks from all in-sync replicas, then
// marks them sent in the same transaction. A crash between the produce and the commit re-sends a row:
// consumers dedupe by `message_id` (= `<problem id>:opened` for a new problem).
// When the broker refuses the batch for its content (a message over the topic's max.message.bytes), the
// rows go one by one and the ones the broker refuses become dead letters, so one oversized notification
// never holds back every other one.
import type { Pool, PoolClient } from 'pg';
import type { Producer } from 'kafkajs';
import { counter, withTransaction, type Logger } from '@watchpost/runtime';
import { deadLetterRecord } from '@watchpost/schemas';

const outboxDeadLetters = counter(
  'watchpost_outbox_dead_letters_total',
  'Problem outbox rows the broker refused, sent to the dead-letter topic instead of problems.v1',
  ['outcome'],
);

/** Kafka error types that say "this content is refused", not "the broker is unavailable". */
const REFUSED = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE']);

/** The refusal type when the broker refused the content (kafkajs may wrap it in `cause`), else null. */
export function refusalOf(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && REFUSED.has(type)) return type;
    e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return null;
}

type Row = { id: number; problem_id: string; payload: unknown };

export interface OutboxRelayOptions {
  /** Dead-letter topic for rows the broker refuses (config.topics.deadLetter); without it they throw. */
  deadLetterTopic?: string;
  log?: Logger;
  limit?: number;
}

export async function relayOutboxOnce(
  pool: Pool,
  producer: Producer,
  topic: string,
  opts: OutboxRelayOptions = {},
): Promise<number> {
  // A failure after some rows went out one by one: those are marked sent, then the error is raised.
  const failed: { err?: Error } = {};
  const n = await withTransaction(pool, async (c) => {
    const r = await c.query<Row>(
      `SELECT id, problem_id::text, payload FROM problem_outbox WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [opts.limit ?? 500],
    );
    if (r.rows.length === 0) return 0;
    try {
      await producer.send({ topic, acks: -1, messages: r.rows.map(messageOf) });
      await markSent(c, r.rows);
      return r.rows.length;
    } catch (err) {
      if (!opts.deadLetterTopic || refusalOf(err) === null) throw err;
      opts.log?.warn({ err, rows: r.rows.length }, 'broker refused the outbox batch; sending its rows one by one');
    }
    const done: Row[] = [];
    for (const row of r.rows) {
      try {
        await producer.send({ topic, acks: -1, messages: [messageOf(row)] });
      } catch (err) {
        const refused = refusalOf(err);
        if (refused === null) {
          failed.err = err instanceof Error ? err : new Error(String(err as string));
          break;
        }
        await deadLetter(producer, opts.deadLetterTopic, topic, row, refused, err, opts.log);
      }
      done.push(row);
    }
    await markSent(c, done);
    return done.length;
  });
  if (failed.err) throw failed.err;
  return n;
}

function messageOf(row: Row) {
  return { key: row.problem_id, value: JSON.stringify(row.payload) };
}

async function markSent(c: PoolClient, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  await c.query('UPDATE problem_outbox SET sent_at = now() WHERE id = ANY($1::bigint[])', [rows.map((x) => x.id)]);
}

/**
 * One refused row to the dead-letter topic: `source_topic` problems.v1, `partition` -1 (it never had
 * one) and `offset` the problem_outbox id. If the dead-letter topic refuses it too, the row is still
 * marked sent (logged at error, counted): it stays in problem_outbox until retention removes it.
 */
async function deadLetter(
  producer: Producer,
  dlq: string,
  topic: string,
  row: Row,
  refused: string,
  err: unknown,
  log?: Logger,
): Promise<void> {
  const value = Buffer.from(JSON.stringify(row.payload));
  const reason = `broker refused the problem notification: ${refused}: ${(err as Error).message ?? String(err)}`;
  const record = deadLetterRecord(reason, topic, -1, String(row.id), Buffer.from(row.problem_id), value);
  try {
    await producer.send({ topic: dlq, acks: -1, messages: [{ key: row.problem_id, value: JSON.stringify(record) }] });
  } catch (dlqErr) {
    if (refusalOf(dlqErr) === null) throw dlqErr;
    outboxDeadLetters.inc({ outcome: 'refused_by_dead_letter_topic' });
    log?.error(
      { err: dlqErr, outbox_id: row.id, problem_id: row.problem_id, bytes: value.length },
      'dead-letter topic refused an outbox row too; it stays only in problem_outbox',
    );
    return;
  }
  outboxDeadLetters.inc({ outcome: 'dead_lettered' });
  log?.error(
    { outbox_id: row.id, problem_id: row.problem_id, bytes: value.length, reason, dead_letter_topic: dlq },
    'problem notification refused by the broker; sent to the dead-letter topic',
  );
}

/** Runs the relay every intervalMs and whenever kick() is called; drains fully each round. */
export function startOutboxRelay(opts: {
  pool: Pool;
  producer: Producer;
  topic: string;
  deadLetterTopic?: string;
  intervalMs: number;
  log: Logger;
}) {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  const round = async () => {
    do {
      again = false;
      try {
        while (
          !stopped &&
          (await relayOutboxOnce(opts.pool, opts.producer, opts.topic, {
            deadLetterTopic: opts.deadLetterTopic,
            log: opts.log,
          })) > 0
        );
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
