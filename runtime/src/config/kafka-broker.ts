// server.properties of one KRaft Kafka node (broker and controller in one JVM), for the local stack
// (ops/src/stack) and the test kit's own clusters (testkit/src/kafka-cluster.ts): one template, so a
// test's cluster is configured as the stack's.
import { randomBytes } from 'node:crypto';

/**
 * A new KRaft cluster id for `kafka-storage format -t`: 16 random bytes in base64url, as Kafka's
 * Uuid.randomUuid, which likewise never returns one starting with '-': the tool's argument parser takes
 * `-t -abc…` for an option with no value ("expected one argument"), which failed 1 in 64 formats.
 */
export function newKafkaClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export interface KafkaNodeProperties {
  nodeId: number;
  dataDir: string;
  /** Where the broker listens for clients and for the other brokers' replica fetches. */
  port: number;
  /** What it advertises for that listener (a proxy in front of `port` in tests); `port` by default. */
  advertisedPort?: number;
  controllerPort: number;
  /** `id@host:port,...`: how THIS node reaches each controller (may differ per node, e.g. through proxies). */
  voters: string;
  /** Nodes in the cluster: internal topics and the default replication follow it (3 and more: 3, min in-sync 2). */
  clusterSize: number;
  /** Settings added or replaced (tests: smaller segments, shorter timeouts). */
  extra?: Record<string, string | number>;
}

export function kafkaNodeProperties(p: KafkaNodeProperties): string {
  const rf = Math.min(3, p.clusterSize);
  const isr = rf >= 3 ? 2 : 1;
  const props: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': p.nodeId,
    'controller.quorum.voters': p.voters,
    listeners: `PLAINTEXT://127.0.0.1:${p.port},CONTROLLER://127.0.0.1:${p.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${p.advertisedPort ?? p.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': p.dataDir,
    'num.partitions': 4,
    'auto.create.topics.enable': 'false',
    'offsets.topic.replication.factor': rf,
    'offsets.topic.num.partitions': 8,
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.min.isr': isr,
    'default.replication.factor': rf,
    'min.insync.replicas': isr,
    'group.initial.rebalance.delay.ms': 0,
    'log.retention.hours': 168,
    ...p.extra,
  };
  return [...Object.entries(props).map(([k, v]) => `${k}=${v}`), ''].join('\n');
}

/** For several nodes on one small machine (the stack's cluster, the test kit's): small buffers and segments, few threads. */
export const kafkaSmallNodeSettings: Record<string, string | number> = {
  'log.segment.bytes': 8 * 1024 * 1024,
  'offsets.topic.segment.bytes': 8 * 1024 * 1024,
  'log.cleaner.dedupe.buffer.size': 8 * 1024 * 1024,
  'log.cleaner.threads': 1,
  'num.network.threads': 2,
  'num.io.threads': 2,
  'num.replica.fetchers': 1,
  'num.recovery.threads.per.data.dir': 1,
  'background.threads': 2,
};

export const kafkaLog4j = `log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=WARN
`;
