import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';

export type { Logger };

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
    pino.destination({ dest, sync: true }),
  );
}
