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
  /** A server given by URL in the environment is someone else's: the stack neither starts nor stops it. */
  external: Record<StackServer, boolean>;
  urls: Record<StackServer, string>;
}

export function stackSettings(env: NodeJS.ProcessEnv = process.env): StackSettings {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  return {
    root,
    dir: resolve(root, env.STACK_DIR ?? '.stack'),
    ...localStack,
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
      kafka: env.KAFKA_BROKERS ?? localUrls.kafka,
    },
  };
}
