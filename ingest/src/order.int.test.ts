// Per-host order: events a host posts one after the other without waiting (pipelined), reach the
// events topic in the order ingest accepted them, also when an earlier Kafka send is slow or retried
// while later micro-batches are ready.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryLogger, openIngestStores, readAll, sampleEvent, type IngestStores } from '@watchpost/testkit';
import { createApiKey } from '@watchpost/core';
import { buildIngestApp } from './app.ts';
import type { EventSink } from './kafka-sink.ts';

let s: IngestStores;

beforeAll(async () => {
  s = await openIngestStores('ingest_order', { KAFKA_PARTITIONS: '2', SERVICE_INGEST_LINGER_MS: '1' }, 'ingest-order-test');
});
afterAll(async () => s?.close());

it('each host’s events land in the topic in the order they were accepted, though the first send is slow', async () => {
  const { stores, redis, kafka } = s;
  const base = await buildIngestApp({ config: stores.config, log: memoryLogger().log, redis, pg: stores.pg, kafka });
  let sends = 0;
  // The real sink; its first send takes 400 ms, as a send that kafkajs retries after a broker error.
  const sink: EventSink = {
    send: async (m) => {
      if (sends++ === 0) await new Promise((r) => setTimeout(r, 400));
      await base.ingest.sink.send(m);
    },
    ready: () => base.ingest.sink.ready(),
    close: async () => {},
  };
  const { app } = await buildIngestApp({ config: stores.config, log: memoryLogger().log, redis, pg: stores.pg, kafka, sink });
  try {
    const key = (await createApiKey(stores.pg, 'order')).key;
    const hosts = ['order-a', 'order-b', 'order-c', 'order-d'];
    const sent = new Map(hosts.map((h) => [h, [] as string[]]));
    const posts: Promise<number>[] = [];
    // 4 hosts x 60 events, issued in sequence without waiting, in waves so that later micro-batches
    // form while the first send is still out.
    for (let wave = 0; wave < 6; wave++) {
      for (let i = 0; i < 10; i++)
        for (const h of hosts) {
          const ev = sampleEvent({ host: { hostname: h, os_family: 'linux' } });
          sent.get(h)!.push(ev.event_id);
          posts.push(
            app
              .inject({ method: 'POST', url: '/api/v1/events', headers: { 'x-api-key': key }, payload: JSON.stringify(ev) })
              .then((r) => r.statusCode),
          );
        }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await Promise.all(posts)).every((s) => s === 201)).toBe(true);
    expect(sends).toBeGreaterThan(1);
    const got = await readAll(stores.config, stores.config.topics.events, 240);
    expect(got).toHaveLength(240);
    for (const h of hosts) {
      const inTopic = got
        .filter((m) => m.key === h)
        .map((m) => (JSON.parse(m.value) as { event: { event_id: string } }).event.event_id);
      expect(inTopic, h).toEqual(sent.get(h));
    }
  } finally {
    await app.close();
    await base.app.close();
  }
});
