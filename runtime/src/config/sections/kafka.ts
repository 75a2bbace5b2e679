// Kafka's topic replication and the warnings a process logs at start about settings fit only for the
// local stack.
import { localStack } from '../local-stack.ts';
import { ConfigError, envReader, type EnvVars } from '../env.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[?::1\]?)$/i;

/** Warnings a process logs at start (and the migration prints): settings that are fine only on the local stack. */
export function startupWarnings(config: { kafkaBrokers: string[]; kafkaReplicationFactor: number }): string[] {
  const out: string[] = [];
  const local = config.kafkaBrokers.every((b) => LOOPBACK.test(b.slice(0, b.lastIndexOf(':'))));
  if (config.kafkaReplicationFactor === 1 && !local)
    out.push(
      'KAFKA_REPLICATION_FACTOR is 1 with brokers outside the local stack: topics the migration creates keep one copy, so losing that broker loses accepted events; set 3 (and KAFKA_MIN_INSYNC_REPLICAS 2) on a cluster',
    );
  return out;
}

/** min.insync.replicas must not exceed the replication factor (writes with acks=all would always fail). */
export function kafkaReplication(env: EnvVars): { rf: number; isr: number } {
  // The local stack's cluster (STACK_KAFKA_BROKERS=3) gets replicated topics without more settings.
  const rf = envReader(env).int('KAFKA_REPLICATION_FACTOR', env.KAFKA_BROKERS ? 1 : Math.min(3, localStack.kafkaBrokers), 1, 16);
  const isr = envReader(env).int('KAFKA_MIN_INSYNC_REPLICAS', rf >= 3 ? 2 : 1, 1, 16);
  if (isr > rf)
    throw new ConfigError('KAFKA_MIN_INSYNC_REPLICAS', `must not exceed KAFKA_REPLICATION_FACTOR (${rf}), got ${isr}`);
  return { rf, isr };
}
