// Helpers for ingest's integration tests: a silent logger that keeps its lines, and a topic reader.
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Kafka } from 'kafkajs';
import type { Logger } from '@watchpost/runtime';

export function memoryLogger(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const log = pino({ level: 'info', base: { pid: process.pid, host: 'test' } }, stream);
  return {
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

export interface ReadMessage {
  key: string;
  value: string;
  partition: number;
  offset: string;
}

/** Every message of a topic from its start, collected as they arrive (one consumer for a test file). */
export async function topicReader(kafka: Kafka, topic: string) {
  const messages: ReadMessage[] = [];
  const consumer = kafka.consumer({ groupId: `${topic}.reader`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message, partition }) => {
      messages.push({
        key: message.key?.toString() ?? '',
        value: message.value?.toString() ?? '',
        partition,
        offset: message.offset,
      });
    },
  });
  const admin = kafka.admin();
  await admin.connect();
  return {
    messages,
    /** Waits until everything written to the topic so far was read, then returns all messages. */
    async caughtUp(timeoutMs = 20_000): Promise<ReadMessage[]> {
      const offsets = await admin.fetchTopicOffsets(topic);
      const total = offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
      const until = Date.now() + timeoutMs;
      while (messages.length < total && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      if (messages.length < total) throw new Error(`read ${messages.length} of ${total} messages from ${topic}`);
      return messages;
    },
    async close() {
      await consumer.disconnect();
      await admin.disconnect();
    },
  };
}
