import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_SENTINEL_MASTER, localStack, localUrls } from '@watchpost/runtime';

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
  /**
   * STACK_REDIS_SENTINEL=1: Redis as a master, a replica and three sentinels (state in
   * .stack/redis-sentinel/) instead of the one Redis; the one Redis is neither started nor stopped then.
   */
  redisSentinel: boolean;
  redisSentinelNodePort: number;
  redisSentinelPort: number;
  /** The master group name the stack's sentinels monitor. */
  redisSentinelMaster: string;
  /** host:port of the three sentinels (empty without STACK_REDIS_SENTINEL). */
  redisSentinels: string;
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
    ...redisSentinelSettings(env),
    external: {
      postgres: !!env.DATABASE_URL,
      redis: !!env.REDIS_URL,
      clickhouse: !!env.CLICKHOUSE_URL,
      kafka: !!env.KAFKA_BROKERS,
    },
    urls: {
      postgres: env.DATABASE_URL ?? localUrls.postgres,
      redis:
        env.REDIS_URL ??
        `redis://127.0.0.1:${redisSentinelSettings(env).redisSentinel ? localStack.redisSentinelNodePort : localStack.redisPort}`,
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

function redisSentinelSettings(env: NodeJS.ProcessEnv) {
  const raw = env.STACK_REDIS_SENTINEL ?? '';
  if (!/^(|0|1|true|false|yes|no|on|off)$/i.test(raw)) throw new Error(`STACK_REDIS_SENTINEL: 1 or 0, got "${raw}"`);
  const on = /^(1|true|yes|on)$/i.test(raw);
  return {
    redisSentinel: on,
    redisSentinelNodePort: localStack.redisSentinelNodePort,
    redisSentinelPort: localStack.redisSentinelPort,
    redisSentinelMaster: LOCAL_SENTINEL_MASTER,
    redisSentinels: on ? [0, 1, 2].map((i) => `127.0.0.1:${localStack.redisSentinelPort + i}`).join(',') : '',
  };
}
