// Test helpers around the real Kafka of the local stack.
import { createKafka } from '@watchpost/runtime';
import type { Config } from '@watchpost/runtime';
import type { Message } from 'kafkajs';

/** Produces messages in chunks (acks from all replicas). */
export async function produce(config: Config, topic: string, messages: Message[], chunk = 500): Promise<void> {
  const producer = createKafka(config.kafkaBrokers, 'test-producer').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += chunk)
      await producer.send({ topic, acks: -1, messages: messages.slice(i, i + chunk) });
  } finally {
    await producer.disconnect();
  }
}

/** Reads every message currently in a topic (from the beginning) with a throwaway group. */
export async function readAll(
  config: Config,
  topic: string,
  expected: number,
  timeoutMs = 20_000,
): Promise<{ key: string | null; value: string }[]> {
  const kafka = createKafka(config.kafkaBrokers, 'test-reader');
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Date.now()}` });
  const out: { key: string | null; value: string }[] = [];
  // A rebalance may hand this consumer messages again; what is in the topic is each position once
  // (a message the producer appended twice keeps both positions).
  const seen = new Set<string>();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const at = `${partition}:${message.offset}`;
      if (seen.has(at)) return;
      seen.add(at);
      out.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? '' });
    },
  });
  const deadline = Date.now() + timeoutMs;
  while (out.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  return out;
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    last = await fn();
  }
  return last;
}
