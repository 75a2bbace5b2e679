// Writes dead-letter records in chunks that stay far below the broker's 1 MB record-batch limit.
import type { Message } from 'kafkajs';

export const MAX_DEAD_LETTER_CHUNK_BYTES = 512 * 1024;

/** Splits records into consecutive chunks of at most maxBytes (a record larger than that goes alone). */
export function chunkBySize(records: readonly Message[], maxBytes = MAX_DEAD_LETTER_CHUNK_BYTES): Message[][] {
  const chunks: Message[][] = [];
  let chunk: Message[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = r.value === null ? 0 : r.value.length;
    if (chunk.length > 0 && bytes + size >= maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(r);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

export class DeadLetterWriter {
  private readonly send: (messages: Message[]) => Promise<void>;
  constructor(send: (messages: Message[]) => Promise<void>) {
    this.send = send;
  }

  /** Sends every record; on failure the records not yet sent stay in `pending` for the next call. */
  async write(pending: Message[]): Promise<number> {
    let sent = 0;
    for (const chunk of chunkBySize(pending)) {
      await this.send(chunk);
      pending.splice(0, chunk.length);
      sent += chunk.length;
    }
    return sent;
  }
}
