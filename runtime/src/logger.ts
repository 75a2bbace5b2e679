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
