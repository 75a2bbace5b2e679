// Ceiling phase of `npm run bench:ingest`: ingest's own Kafka sink (kafkajs, acks=all, the configured
// compression) sending envelopes (built as ingest builds them) as fast as it can, with no HTTP, Redis or logging. Whatever
// ingest does per event comes on top of this, so it bounds what one ingest process can reach here.
// Usage: node produce-only.ts <events per send> <sends in flight> <seconds>; env as server.ts.
// Prints one JSON line: {"events":N,"seconds":S,"cpuSeconds":C} (C: this process, all threads).
import { loadConfig } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { envelopeValue } from '../src/app.ts';
import { KafkaEventSink } from '../src/kafka-sink.ts';
import { benchEvent } from '@watchpost/testkit';

const [perSend, inFlight, seconds] = process.argv.slice(2).map(Number) as [number, number, number];
const config = loadConfig(process.env, 'ingest');
const sink = new KafkaEventSink(
  createKafka(config.kafkaBrokers, 'bench-produce-only'),
  config.topics.events,
  config.ingest.produceTimeoutMs,
  config.kafkaCompression,
);
function message() {
  const e = benchEvent();
  return { key: e.hostname, value: envelopeValue(new Date().toISOString(), e.json) };
}

await sink.send([message()]); // connect and fetch metadata before the clock starts
let events = 0;
const cpu0 = process.cpuUsage();
const started = performance.now();
const until = started + seconds * 1000;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (performance.now() < until) {
      await sink.send(Array.from({ length: perSend }, message));
      events += perSend;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
await sink.close();
process.stdout.write(`${JSON.stringify({ events, seconds: elapsed, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
process.exit(0);
