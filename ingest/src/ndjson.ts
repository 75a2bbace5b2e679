// NDJSON batch bodies split into lines as the bytes arrive: the body never exists as one string
// (up to 16 MiB, plus the array of its split copies); each line is decoded on its own, a line over
// the per-event limit is never assembled, and lines past the event count are only counted.

export interface BatchLine {
  /** 1-based, blank lines included. */
  line: number;
  /** The line as text; undefined when it was longer than `maxLineBytes`. */
  text: string | undefined;
  /** The line's bytes as received (what is appended to Kafka); undefined with `text`. */
  bytes?: Buffer;
}

export interface SplitBatch {
  /** Non-blank lines, at most `maxEvents` of them kept. */
  lines: BatchLine[];
  /** Every non-blank line, also past `maxEvents`. */
  count: number;
}

export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  constructor(maxBytes: number) {
    super(`a batch may take at most ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

const NL = 0x0a;

function isBlank(buf: Buffer): boolean {
  for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== NL) return false;
  return true;
}

/** Reads `body` to its end; throws BodyTooLargeError past `maxBytes` (and stops reading). */
export async function splitNdjson(
  body: AsyncIterable<Buffer | string>,
  limits: { maxBytes: number; maxLineBytes: number; maxEvents: number },
): Promise<SplitBatch> {
  const lines: BatchLine[] = [];
  let count = 0;
  let lineNo = 0;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let tooLong = false;
  let total = 0;

  const endLine = (): void => {
    lineNo++;
    if (!tooLong) {
      const buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes);
      if (!isBlank(buf)) {
        count++;
        if (count <= limits.maxEvents) lines.push({ line: lineNo, text: buf.toString('utf8'), bytes: buf });
      }
    } else {
      count++;
      if (count <= limits.maxEvents) lines.push({ line: lineNo, text: undefined });
    }
    parts = [];
    partBytes = 0;
    tooLong = false;
  };
  const append = (piece: Buffer): void => {
    if (tooLong || piece.length === 0) return;
    if (partBytes + piece.length > limits.maxLineBytes) {
      tooLong = true;
      parts = [];
      partBytes = 0;
      return;
    }
    parts.push(piece);
    partBytes += piece.length;
  };

  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > limits.maxBytes) throw new BodyTooLargeError(limits.maxBytes);
    let start = 0;
    for (let nl = buf.indexOf(NL, start); nl !== -1; nl = buf.indexOf(NL, start)) {
      append(buf.subarray(start, nl));
      endLine();
      start = nl + 1;
    }
    // Copied: a subarray would keep the whole chunk alive while the line waits for its end.
    if (start < buf.length) append(Buffer.from(buf.subarray(start)));
  }
  if (partBytes > 0 || tooLong) endLine();
  return { lines, count };
}
