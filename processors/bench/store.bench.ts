// npm run bench:store — drains a pre-filled topic of N ~1 KB envelopes into ClickHouse with the store
// processor, then lets ClickHouse's own Kafka engine (plus a materialized view) consume the same events
// into a copy of `events` that carries the same views as `events`, and compares events/s. The Kafka engine of 18.16 cannot map the nested envelope JSON onto columns,
// so it reads a second topic holding the same events as flat JSONEachRow rows of the table's columns.
// Env: BENCH_EVENTS (default 1,000,000: enough that neither side is measured mostly starting up),
// BENCH_KAFKA_ENGINE_TIMEOUT_S (default 180).
import { Clients, createLogger } from '@watchpost/runtime';
import { compressionType, createKafka, ensureTopics } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import { ident, quoteString, sql } from '@watchpost/runtime';
import { encodeEnvelope } from '@watchpost/schemas';
import { createTestStores, testConfig } from '@watchpost/testkit';
import { storeRole } from '../src/store/index.ts';
import { envelopeToRow, EVENT_COLUMNS } from '../src/store/rows.ts';
import { makeEnvelope } from '@watchpost/testkit';

const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ENGINE_TIMEOUT_S = Number(process.env.BENCH_KAFKA_ENGINE_TIMEOUT_S ?? 180);
const PARTITIONS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const s = await createTestStores(testConfig('bench_store', { KAFKA_PARTITIONS: String(PARTITIONS), LOG_LEVEL: 'silent' }));
const { config, ch } = s;
const flatTopic = `${config.topics.events}.flat`;
const kafka = createKafka(config.kafkaBrokers, 'bench-store');

try {
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [{ topic: flatTopic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
  await admin.disconnect();

  // Pre-fill both topics with the same N events (~1 KB envelopes).
  const iso = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const eventsCompression = compressionType(config.kafkaCompression);
  await producer.connect();
  let envBytes = 0;
  const t0 = Date.now();
  const CHUNK = 4000;
  for (let i = 0; i < N; i += CHUNK) {
    const envs = Array.from({ length: Math.min(CHUNK, N - i) }, (_, j) =>
      makeEnvelope(
        {
          summary: `Authentication failure for user root from 203.0.113.7 port 52144 ssh2 (attempt 3 of 5). Source flagged by the local blocklist; event ${i + j}.`,
        },
        i + j,
      ),
    );
    const env = envs.map((e) => ({ key: e.event.host.hostname, value: encodeEnvelope(e) }));
    const flat = envs.map((e) => {
      const r = envelopeToRow(e);
      return {
        key: e.event.host.hostname,
        value: JSON.stringify({ ...r, occurred_at: iso(r.occurred_at), received_at: iso(r.received_at) }),
      };
    });
    for (const m of env) envBytes += m.value.length;
    const sends = [];
    for (let k = 0; k < env.length; k += 500) {
      // events.v1 compressed as ingest writes it (KAFKA_COMPRESSION); the flat topic plain, since the
      // Kafka engine of ClickHouse 18.16 (librdkafka 0.11) cannot read zstd.
      sends.push(
        producer.send({ topic: config.topics.events, acks: -1, compression: eventsCompression, messages: env.slice(k, k + 500) }),
      );
      sends.push(producer.send({ topic: flatTopic, acks: -1, messages: flat.slice(k, k + 500) }));
    }
    await Promise.all(sends);
  }
  await producer.disconnect();
  console.log(
    `bench:store  ${fmt(N)} events, envelope ${Math.round(envBytes / N)} B avg, ${PARTITIONS} partitions, events topic compression ${config.kafkaCompression}; pre-filled both topics in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(
    `store batch: ${config.store.batchSize} events / ${config.store.batchMs} ms; ClickHouse ${(await queryRows<{ v: string }>(ch, sql`SELECT version() AS v`))[0]!.v}`,
  );

  const count = async (table: string) =>
    Number((await queryRows<{ n: string }>(ch, sql`SELECT count() AS n FROM ${ident(table)}`))[0]!.n);

  // 1) The store processor (the production role, in this process).
  const clients = new Clients(config);
  const storeStart = Date.now();
  const role = await storeRole({ config, log: createLogger('silent', 'bench'), clients });
  let firstRowS = 0;
  let firstRows = 0;
  // Peak memory of the store's main thread while it drains (fetched batches, rows in flight).
  let peakHeap = 0;
  let peakExternal = 0;
  for (let n = 0; n < N; n = await count('events')) {
    if (n > 0 && firstRowS === 0) {
      firstRowS = (Date.now() - storeStart) / 1000;
      firstRows = n;
    }
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakExternal = Math.max(peakExternal, m.external);
    await sleep(100);
  }
  const storeS = (Date.now() - storeStart) / 1000;
  const storeSteadyRate = (N - firstRows) / (storeS - firstRowS);
  await role.close?.();
  await clients.close();
  const storeRate = N / storeS;
  console.log(
    `store processor  (kafkajs -> TabSeparated inserts): ${fmt(N)} rows in ${storeS.toFixed(2)} s = ${fmt(storeRate)} events/s (first rows after ${firstRowS.toFixed(1)} s; from then ${fmt(storeSteadyRate)} events/s)`,
  );
  console.log(
    `  main thread while draining: JS heap peak ${fmt(peakHeap / 2 ** 20)} MiB, buffers peak ${fmt(peakExternal / 2 ** 20)} MiB`,
  );

  // 2) ClickHouse's Kafka engine + materialized view into a copy of the events table.
  await ch.command({ query: 'CREATE TABLE events_kafka_copy AS events' });
  // The views on `events` (events_by_id, the changed-hours log), rebuilt from their own definitions
  // to read the copy, so that both sides write the same tables.
  const copyViews: string[] = [];
  const views = await queryRows<{ name: string }>(
    ch,
    sql`SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'`,
  );
  for (const { name } of views) {
    const rs = await ch.query({ query: `SHOW CREATE TABLE ${ident(name).text}`, format: 'TabSeparatedRaw' });
    const create = (await rs.text()).trim();
    const m = /^CREATE MATERIALIZED VIEW \S+ TO (\S+?)\.(\w+) \(.*?\) AS (SELECT .*)$/s.exec(create);
    const from = new RegExp(`FROM ${config.clickhouseDatabase}\\.events\\b`);
    if (!m || !from.test(m[3]!)) continue;
    const target = `${m[2]}_kafka_copy`;
    await ch.command({ query: `CREATE TABLE ${ident(target).text} AS ${ident(m[2]!).text}` });
    await ch.command({
      query: `CREATE MATERIALIZED VIEW ${ident(`${name}_kafka`).text} TO ${ident(target).text} AS ${m[3]!.replace(from, 'FROM events_kafka_copy')}`,
    });
    copyViews.push(name);
  }
  // 18.16's Kafka engine starts a new group at the END of the topic (librdkafka auto.offset.reset
  // largest; measured). Committing offset 0 for its group first makes it read the pre-filled topic.
  const chGroup = `${flatTopic}.clickhouse`;
  const groupAdmin = kafka.admin();
  await groupAdmin.connect();
  await groupAdmin.setOffsets({
    groupId: chGroup,
    topic: flatTopic,
    partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, offset: '0' })),
  });
  await groupAdmin.disconnect();
  // DESCRIBE works on 18.16 (its system.columns has no position column).
  const columns = await queryRows<{ name: string; type: string }>(ch, sql`DESCRIBE TABLE events`);
  const colDefs = columns
    .filter((c) => (EVENT_COLUMNS as readonly string[]).includes(c.name))
    .map((c) => `${ident(c.name).text} ${c.type}`);
  await ch.command({
    query: `CREATE TABLE events_kafka_queue (${colDefs.join(', ')}) ENGINE = Kafka SETTINGS
      kafka_broker_list = ${quoteString(config.kafkaBrokers.join(','))},
      kafka_topic_list = ${quoteString(flatTopic)},
      kafka_group_name = ${quoteString(chGroup)},
      kafka_format = 'JSONEachRow',
      kafka_num_consumers = 1`,
  });
  const engineStart = Date.now();
  await ch.command({
    query: `CREATE MATERIALIZED VIEW events_kafka_mv TO events_kafka_copy AS SELECT ${EVENT_COLUMNS.join(', ')} FROM events_kafka_queue`,
  });
  let engineRows = 0;
  while ((engineRows = await count('events_kafka_copy')) < N && Date.now() - engineStart < ENGINE_TIMEOUT_S * 1000)
    await sleep(100);
  const engineS = (Date.now() - engineStart) / 1000;
  await ch.command({ query: 'DROP TABLE events_kafka_mv' });
  await ch.command({ query: 'DROP TABLE events_kafka_queue' });
  const engineRate = engineRows / engineS;
  const engineNote = engineRows < N ? ` (stopped after ${ENGINE_TIMEOUT_S} s with ${fmt(engineRows)} of ${fmt(N)} rows)` : '';
  console.log(
    `Kafka engine     (JSONEachRow flat rows -> MV, + ${copyViews.join(', ')}): ${fmt(engineRows)} rows in ${engineS.toFixed(2)} s = ${fmt(engineRate)} events/s${engineNote}`,
  );
  // Targets are judged on the whole drain, start-up included. The store's "from then" rate leaves out
  // the time before its first rows (group join, first fetch, first batch); the Kafka engine writes in
  // large blocks, so it has no comparable figure.
  const ratio = engineRate > 0 ? storeRate / engineRate : Infinity;
  console.log(`ratio store / Kafka engine: ${ratio.toFixed(2)}  (target >= 1.0: ${ratio >= 1 ? 'reached' : 'NOT reached'})`);
  console.log(`store target >= 50,000 events/s over the whole drain: ${storeRate >= 50_000 ? 'reached' : 'NOT reached'}`);
} finally {
  const admin = kafka.admin();
  await admin.connect();
  await admin
    .deleteTopics({ topics: [config.topics.events, config.topics.deadLetter, config.topics.problems, flatTopic] })
    .catch(() => {});
  await admin.disconnect();
  await s.drop();
}
