import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';

export type { Logger };

type SyncDestination = ReturnType<typeof pino.destination>;

/**
 * The lines of one event-loop turn go out in one write, at the end of that turn: ingest logs a line per
 * event, and a write call per line cost it ~10 µs per event (a fifth of its overhead over a bare HTTP
 * server). Nothing waits for a timer, so a line is out within the turn that logged it, and whatever a
 * turn logged before the process exits is written on exit.
 */
export class TurnBatchedDestination {
  private pending: string[] = [];
  private scheduled = false;
  private readonly out: SyncDestination;

  constructor(out: SyncDestination) {
    this.out = out;
    process.once('exit', () => this.flush());
  }

  write(line: string): boolean {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  flush(cb?: (err?: Error) => void): void {
    this.scheduled = false;
    if (this.pending.length > 0) {
      const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
      this.pending = [];
      this.out.write(text);
    }
    cb?.();
  }
}

/**
 * One JSON line per outcome; credentials are redacted wherever they appear in a logged object.
 * Lines go to stdout unless `dest` names another file (the ingest bench writes to /dev/null).
 */
export function createLogger(level: string, name: string, dest: number | string = 1): Logger {
  return pino(
    {
      level,
      name,
      // The machine goes under `host`: `hostname` is the event's host in ingest's outcome lines, and a
      // second `hostname` key would make each such line ambiguous JSON.
      base: { pid: process.pid, host: hostname() },
      redact: {
        paths: [
          'password',
          '*.password',
          'apiKey',
          '*.apiKey',
          'token',
          '*.token',
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    new TurnBatchedDestination(pino.destination({ dest, sync: true })),
  );
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
/** Pino's own state that a line in its format needs (exported by pino as `pino.symbols`). */
type PinoInternals = Record<symbol, unknown>;

/**
 * A writer of one kind of line that a process logs per event, in `logger`'s own format and stream: its
 * level, time and bindings, then `fields` in their order, then `msg`. pino's generic serializer (serializers,
 * per-value type checks) cost ingest ~3 µs and 1.3 KB of garbage per event in the bench; this ~1 µs. Fields
 * are strings or null and go out as they are: no serializers, no redaction, so a caller never passes a
 * credential. When `logger` would not log at `level`, nothing is written.
 */
export function eventLineWriter(logger: Logger, level: Level, msg: string): (fields: Record<string, string | null>) => void {
  const levelVal = logger.levels.values[level]!;
  const internals = logger as unknown as PinoInternals;
  const head = (internals[pino.symbols.lsCacheSym] as Record<number, string>)[levelVal]!;
  const time = internals[pino.symbols.timeSym] as () => string;
  const chindings = internals[pino.symbols.chindingsSym] as string;
  const stream = internals[pino.symbols.streamSym] as { write(s: string): unknown };
  const tail = `,"msg":${JSON.stringify(msg)}}\n`;
  return (fields) => {
    if (logger.levelVal > levelVal) return;
    let line = head + time() + chindings;
    for (const k in fields) {
      const v = fields[k];
      if (v !== undefined) line += `,${JSON.stringify(k)}:${v === null ? 'null' : JSON.stringify(v)}`;
    }
    stream.write(line + tail);
  };
}
