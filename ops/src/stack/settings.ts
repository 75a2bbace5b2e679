import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localStack, localUrls } from '@watchpost/runtime';

export type StackServer = 'postgres' | 'redis' | 'clickhouse' | 'kafka';

export interface StackSettings {
  root: string;
  dir: string;
  pgPort: number;
  redisPort: number;
  chHttpPort: number;
  chTcpPort: number;
  kafkaPort: number;
  kafkaControllerPort: number;
  /** STACK_KAFKA_BROKERS: 1 (default) or a KRaft cluster of 3 or more nodes (replication 3, min in-sync 2). */
  kafkaBrokers: number;
  /** A server given by URL in the environment is someone else's: the stack neither starts nor stops it. */
  external: Record<StackServer, boolean>;
  urls: Record<StackServer, string>;
}

export function stackSettings(env: NodeJS.ProcessEnv = process.env): StackSettings {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const nodes = kafkaBrokers(env);
  return {
    root,
    dir: resolve(root, env.STACK_DIR ?? '.stack'),
    ...localStack,
    kafkaBrokers: nodes,
    external: {
      postgres: !!env.DATABASE_URL,
      redis: !!env.REDIS_URL,
      clickhouse: !!env.CLICKHOUSE_URL,
      kafka: !!env.KAFKA_BROKERS,
    },
    urls: {
      postgres: env.DATABASE_URL ?? localUrls.postgres,
      redis: env.REDIS_URL ?? localUrls.redis,
      clickhouse: env.CLICKHOUSE_URL ?? localUrls.clickhouse,
      kafka: env.KAFKA_BROKERS ?? Array.from({ length: nodes }, (_, i) => `127.0.0.1:${localStack.kafkaPort + 2 * i}`).join(','),
    },
  };
}

function kafkaBrokers(env: NodeJS.ProcessEnv): number {
  const n = Number(env.STACK_KAFKA_BROKERS ?? localStack.kafkaBrokers);
  if (!Number.isInteger(n) || n < 1 || n === 2 || n > 9)
    throw new Error(
      `STACK_KAFKA_BROKERS: 1, or 3 to 9 (a 2-node quorum cannot lose either node), got "${env.STACK_KAFKA_BROKERS}"`,
    );
  return n;
}
